"""OpenShift AI's TGIS runtimes in KServe and plain Deployments (sweep 48, red-hat-data-services/ods-ci:
vllm_servingruntime_grpc.yaml gave no deployment, tgis_servingruntime_grpc.yaml "no model id")."""
from __future__ import annotations

import textwrap

import pytest

from helpers import run
from tests.adapters.kit import adapt, at

RUNTIME = """\
apiVersion: serving.kserve.io/v1alpha1
kind: ServingRuntime
metadata:
  name: {name}
spec:
  supportedModelFormats: [{{name: pytorch, autoSelect: true}}]
  containers:
    - name: kserve-container
      image: {image}
      command: {command}
      args: {args}
      env: [{{name: {var}, value: "65536"}}]
---
apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata:
  name: llama
spec:
  predictor:
    nodeSelector: {{nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB}}
    model:
      runtime: {name}
      modelFormat: {{name: pytorch}}
      storageUri: hf://meta-llama/Llama-3.1-8B-Instruct
      resources: {{limits: {{nvidia.com/gpu: "1"}}}}
"""
ADAPTER = RUNTIME.format(name="vllm-grpc", image="quay.io/modh/vllm:rhoai-2.20-cuda",
                         command="[python3, -m, vllm_tgis_adapter]", var="MAX_MODEL_LEN",
                         args="[--port=8080, --model=/mnt/models, --distributed-executor-backend=mp]")
TGIS = RUNTIME.format(name="tgis-runtime", image="quay.io/modh/text-generation-inference:rhoai-2.8",
                      command="[text-generation-launcher]", var="MAX_SEQUENCE_LENGTH",
                      args="[--model-name=/mnt/models/, --port=3000, --grpc-port=8033]")


@pytest.mark.parametrize("text,engine,setting", [(ADAPTER, "vllm", "MAX_MODEL_LEN"),
                                                 (TGIS, "tgis", "MAX_SEQUENCE_LENGTH")])
def test_the_runtime_serves_the_storage_uri_with_its_env_window(text, engine, setting):
    [dep] = adapt(text).deployments
    [role] = dep.roles
    assert (dep.engine.name.value, dep.model.id.value, role.context_length.value) == \
        (engine, "meta-llama/Llama-3.1-8B-Instruct", 65536)
    assert at(text, role.context_length.source) == '"65536"' and f"name: {setting}" in text


def test_tgis_pool_is_said_to_be_not_modelled(tmp_path):
    (tmp_path / "tgis.yaml").write_text(TGIS)
    result = run(["check", "--isolated", str(tmp_path / "tgis.yaml")])
    assert result.out == (f"{tmp_path / 'tgis.yaml'}:9:14: CTX208 [info] KV pool of unified not declared and not "
                          "derivable: IBM TGIS is not modelled (its KV-cache memory rules are not Hugging Face "
                          "TGI's); capacity checks skip these roles (capacity-not-derivable)\n")


def test_the_adapter_pool_is_checked(tmp_path):
    (tmp_path / "rt.yaml").write_text(ADAPTER.replace('"65536"', '"1048576"'))
    result = run(["check", "--isolated", "--select", "CTX201", str(tmp_path / "rt.yaml")])
    assert "CTX201 [error] 1,048,576 > " in result.out and result.code == 1


PROBE = """\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: {name}}}
spec:
  selector: {{matchLabels: {{app: x}}}}
  template:
    metadata: {{labels: {{app: x}}}}
    spec:
      nodeSelector: {{nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB}}
      containers:
      - name: kserve-container
        image: {image}
        command: {command}
        args: ["{model}=meta-llama/Llama-3.1-8B-Instruct", "{window}=65536"]
        resources: {{limits: {{nvidia.com/gpu: "1"}}}}
"""


@pytest.mark.parametrize("image,command,model,window,engine", [
    ("quay.io/modh/text-generation-inference:rhoai-2.8", '["text-generation-launcher"]', "--model-name",
     "--max-sequence-length", "tgis"),
    ("quay.io/modh/vllm:rhoai-2.20-cuda", '["python3", "-m", "vllm_tgis_adapter"]', "--model", "--max-model-len",
     "vllm"),
    ("quay.io/modh/vllm:rhoai-2.20-cuda", '["python3", "-m", "vllm_tgis_adapter"]', "--model-name",
     "--max-sequence-length", "vllm"),
])
def test_a_deployment_names_its_model_and_window(image, command, model, window, engine):
    text = textwrap.dedent(PROBE.format(name="probe", image=image, command=command, model=model, window=window))
    [dep] = adapt(text).deployments
    assert (dep.engine.name.value, dep.model.id.value, dep.roles[0].context_length.value) == \
        (engine, "meta-llama/Llama-3.1-8B-Instruct", 65536)


def test_tgis_image_given_arguments_alone_is_said_unchecked(tmp_path):
    # the image's Dockerfile ends `CMD text-generation-launcher` (no ENTRYPOINT): arguments replace the launcher
    (tmp_path / "pod.yaml").write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec:\n  containers:\n"
                                       "  - name: a\n    image: quay.io/modh/text-generation-inference:x\n"
                                       "    args: [--model-name=m, --max-sequence-length=4096]\n")
    result = run(["check", "--isolated", str(tmp_path / "pod.yaml")])
    assert result.out == (f"{tmp_path / 'pod.yaml'}:7:12: CTX008 [info] the image "
                          "quay.io/modh/text-generation-inference:x is tgis's but ctxlint does not know what its "
                          "entrypoint runs, so --model-name, --max-sequence-length are not read as tgis flags and "
                          "this container is not checked; state the command that starts it "
                          "(`text-generation-launcher ...`) (unresolved-value)\n")


def test_tgis_without_a_length_takes_the_models(tmp_path):
    # get_max_sequence_length: the model's config.json length (max_position_embeddings first), else 2048
    (tmp_path / "tgis.yaml").write_text(TGIS.replace('      env: [{name: MAX_SEQUENCE_LENGTH, value: "65536"}]\n', ""))
    result = run(["audit", "--isolated", str(tmp_path / "tgis.yaml")])
    [row] = [line for line in result.out.splitlines() if line.startswith("meta-llama/")]
    assert row.split()[3:7] == ["tgis", "unified", "-", "131,072"] and row.split()[7] == "default"


def test_a_tgis_image_with_no_command_or_arguments_runs_its_launcher_configured_by_env():
    # review: with neither command nor args the image's `CMD text-generation-launcher` runs, configured by its env;
    # once TGIS images were told from TGI's the container was dropped without a word (0 deployments)
    text = ("apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec:\n  containers:\n"
            "  - name: a\n    image: quay.io/opendatahub/text-generation-inference:fast\n    env:\n"
            "    - {name: MODEL_NAME, value: meta-llama/Llama-3.1-8B-Instruct}\n"
            "    - {name: MAX_SEQUENCE_LENGTH, value: '65536'}\n")
    [dep] = adapt(text).deployments
    assert (dep.engine.name.value, dep.model.id.value, dep.roles[0].context_length.value) == \
        ("tgis", "meta-llama/Llama-3.1-8B-Instruct", 65536)
