"""KServe: the model an engine serves from /mnt/models is the one the InferenceService's storageUri names."""
from __future__ import annotations

import pytest

from ctxlint.resolution.resolve import resolve
from helpers import run
from tests.adapters.kit import adapt, at

SERVICE = """\
apiVersion: serving.kserve.io/v1alpha1
kind: ServingRuntime
metadata:
  name: vllm-runtime
spec:
  supportedModelFormats: [{{name: vLLM, autoSelect: true}}]
  containers:
    - name: kserve-container
      image: vllm/vllm-openai:v0.10.1
      command: [vllm, serve, /mnt/models, --max-model-len, "8192"]
---
apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata:
  name: qwen
spec:
  predictor:
    model:
      runtime: vllm-runtime
      modelFormat: {{name: vLLM}}
      storageUri: {uri}
      resources: {{limits: {{nvidia.com/gpu: "1"}}}}
"""


@pytest.mark.parametrize("uri", ["s3://models/Qwen2.5-7B-Instruct", "gs://bucket/llm/Qwen2.5-7B-Instruct",
                                 "pvc://model-store/Qwen/Qwen2.5-7B-Instruct", "hf://Qwen/Qwen2.5-7B-Instruct"])
def test_a_storage_uri_names_the_model_at_the_mount(uri):
    # sweep 41 (Deim0s13/rhoai: `storageUri: s3://models/granite-3.3-8b-instruct`, `vllm serve /mnt/models`): only
    # an hf:// URI stood for the model KServe copies to /mnt/models; an s3://, gs:// or pvc:// one names it by its
    # folder, as a local path does
    text = SERVICE.format(uri=uri)
    [dep] = adapt(text).deployments
    assert (dep.model.id.value, at(text, dep.model.id.source)) == (uri.removeprefix("hf://"), uri)
    found = resolve(dep.model.id.value)
    assert found.arch.name == "Qwen/Qwen2.5-7B-Instruct"
    if not uri.startswith("hf://"):  # a guess from the folder's name, and said to be one
        assert found.how == (f"{uri}: architecture of Qwen/Qwen2.5-7B-Instruct, matched by the storage URI's "
                             "folder name")


def test_an_oci_modelcar_leaves_the_mount():
    # a modelcar image names its model as it likes (`modelcar-catalog:granite-3.3-8b-instruct`)
    [dep] = adapt(SERVICE.format(uri="oci://quay.io/org/modelcar-catalog:qwen2.5-7b-instruct")).deployments
    assert dep.model.id.value == "/mnt/models"


def test_an_unresolved_storage_uri_or_path_says_where_its_config_json_is_read(tmp_path):
    (tmp_path / "isvc.yaml").write_text(SERVICE.format(uri="s3://models/house-model-v2"))
    result = run(["check", "--select", "CTX208", str(tmp_path / "isvc.yaml")])
    assert "model 's3://models/house-model-v2' is not in the built-in catalog: a storage URI " \
           "(s3://models/house-model-v2): put the model's config.json in a folder house-model-v2/ beside the " \
           "deploy file, or add the model under `models:` in .ctxlint.yaml;" in result.out
    assert resolve("/srv/house-model-v2").hint == (
        "a local path: put the model's config.json at /srv/house-model-v2/config.json, or in a folder "
        "house-model-v2/ beside the deploy file, or add the model under `models:` in .ctxlint.yaml")
    assert resolve("models/house-model-v2").hint is not None


STORAGE = """\
apiVersion: serving.kserve.io/v1alpha1
kind: ServingRuntime
metadata:
  name: mistral-7b
spec:
  supportedModelFormats: [{autoSelect: true, name: pytorch}]
  containers:
    - name: kserve-container
      image: vllm/vllm-openai:v0.10.1
      args: [--model, /mnt/models/, --max-model-len, "6144"]
---
apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata:
  name: mistral-7b
spec:
  predictor:
    model:
      runtime: mistral-7b
      modelFormat: {name: pytorch}
      resources: {limits: {nvidia.com/gpu: "1"}}
      storage:
        key: aws-connection-mistral
        path: mistralai/Mistral-7B-Instruct-v0.2
"""


def test_a_storage_path_names_the_model_at_the_mount():
    # sweep k30 (alpha-hack-program/doc-bot@3f0a9a76:vllm_runtime/vllm-mistral-7b-instance.yaml, the shape OpenShift
    # AI's dashboard writes: `storage: {key: <data connection>, path: org/name}` beside `--model /mnt/models/`): the
    # path is the folder KServe's storage initializer copies to /mnt/models, as a storageUri's is; it was not read
    # The type (and an s3 bucket) is the key's entry's in the storage secret (kserve/kserve@aaac4e29:
    # pkg/credentials/service_account_credentials.go CreateStorageSpecSecretEnvs: s3, hdfs or webhdfs), so the path is
    # a folder of that storage, read by its name as a storage URI's folder is: never a Hub repository (it was read
    # as the Hub id `mistralai/Mistral-7B-Instruct-v0.2`, and a name not in the catalog was sent to `models lock`)
    [dep] = adapt(STORAGE).deployments
    assert (dep.model.id.value, at(STORAGE, dep.model.id.source)) == (
        "storage://aws-connection-mistral/mistralai/Mistral-7B-Instruct-v0.2", "mistralai/Mistral-7B-Instruct-v0.2")
    assert resolve(dep.model.id.value).arch.name == "mistralai/Mistral-7B-Instruct-v0.2"


@pytest.mark.parametrize("storage, written", [
    ("storage:\n        key: minio\n        path: models/house-model-v2", "storage://minio/models/house-model-v2"),
    ("storage:\n        path: models/house-model-v2", "storage://default/models/house-model-v2"),  # the `default` entry
])
def test_a_storage_path_not_in_the_catalog_is_a_storage_folder_not_a_hub_id(storage, written):
    text = STORAGE.replace("storage:\n        key: aws-connection-mistral\n        path: mistralai/Mistral-7B-Instruct-v0.2",
                           storage)
    [dep] = adapt(text).deployments
    assert dep.model.id.value == written
    found = resolve(written)
    assert found.arch is None and found.hint.startswith(f"a storage URI ({written})")
    assert "models lock" not in found.hint
    qwen = resolve(written.replace("house-model-v2", "Qwen2.5-7B-Instruct"))
    assert qwen.how.endswith("matched by the storage URI's folder name")


@pytest.mark.parametrize("params, model", [
    ("{type: s3, bucket: models}", "s3://models/mistralai/Mistral-7B-Instruct-v0.2"),
    ("{type: gs}", "gs://mistralai/Mistral-7B-Instruct-v0.2"),
    # the type is the key's secret's: not known, a folder of the storage it names
    ("{bucket: models}", "storage://aws-connection-mistral/mistralai/Mistral-7B-Instruct-v0.2"),
    # an s3 type stated without its bucket: KServe reads no bucket from the secret then, and refuses it (MissingBucket)
    ("{type: s3}", "storage://aws-connection-mistral/mistralai/Mistral-7B-Instruct-v0.2"),
])
def test_a_storage_path_with_its_type_stated_is_the_uri_kserve_builds(params, model):
    # service_account_credentials.go: `<type>://<bucket>/<path>` for s3, `<type>://<path>` for the other types
    text = STORAGE.replace("        path: mistralai/", f"        parameters: {params}\n        path: /mistralai/")
    [dep] = adapt(text).deployments
    assert dep.model.id.value == model
    assert at(text, dep.model.id.source) == "/mistralai/Mistral-7B-Instruct-v0.2"


@pytest.mark.parametrize("where", ["storageUri: s3://models/TinyLlama/TinyLlama-1.1B-Chat-v1.0",
                                   "storage: {key: gcs, path: models/TinyLlama/TinyLlama-1.1B-Chat-v1.0}"])
def test_an_engine_given_no_model_does_not_serve_the_storage_folder(where):
    # robertgshaw2-neuralmagic/vllm-k8s@d811b74c:vllm-kserve-gcs/nm-vllm.yml: a vllm/vllm-openai runtime with no
    # args runs its entrypoint with no model, so vLLM serves its own default, not the folder copied to /mnt/models;
    # only the Hugging Face server (a huggingface format over no engine image) serves model_dir by itself
    text = STORAGE.replace("      args: [--model, /mnt/models/, --max-model-len, \"6144\"]\n", "").replace(
        "      storage:\n        key: aws-connection-mistral\n        path: mistralai/Mistral-7B-Instruct-v0.2\n",
        f"      {where}\n")
    [dep] = adapt(text).deployments
    assert dep.model.id is None


@pytest.mark.parametrize("kind", ["hdfs", "webhdfs"])
def test_a_hdfs_storage_folder_is_a_guess_from_its_name_as_an_s3_one_is(kind):
    # KServe's storage types are s3, hdfs and webhdfs (kserve/kserve@aaac4e29: pkg/credentials/
    # service_account_credentials.go SupportedStorageSpecTypes), and `hdfs://`/`webhdfs://` storageUris are ones it
    # accepts (utils.go SupportedStorageURIPrefixList): a folder there is named as an s3 one is, not a Hub id
    text = STORAGE.replace("        path: mistralai/", f"        parameters: {{type: {kind}}}\n        path: models/")
    [dep] = adapt(text).deployments
    assert dep.model.id.value == f"{kind}://models/Mistral-7B-Instruct-v0.2"
    assert resolve(dep.model.id.value).how.endswith("matched by the storage URI's folder name")
    uri = f"{kind}://namenode/models/Qwen2.5-7B-Instruct"
    [dep] = adapt(SERVICE.format(uri=uri)).deployments
    assert dep.model.id.value == uri
    assert resolve(uri).how.endswith("matched by the storage URI's folder name")
    assert resolve(f"{kind}://namenode/models/house-model-v2").hint.startswith("a storage URI")
