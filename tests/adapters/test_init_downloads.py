"""An engine model path that a pod's init container fills with a Hugging Face download is read as that model
(init_downloads.py). Shapes from volcano-sh/kthena@3cc057284c34469fcb0ed22a12dac84b1d120719:
examples/model-serving/data-parallel-deployment.yaml (`--source hf://Qwen/Qwen3-0.6B --output-dir /tmp/cache/Qwen3`,
then `--model /tmp/cache/Qwen3`: before, "model '/tmp/cache/Qwen3' is not in the built-in catalog", no capacity) and
gpu-kvcache-aware.yaml (a bare `--source Qwen/Qwen3-0.6B` in kthena's downloader image)."""
from __future__ import annotations

import pytest

from tests.adapters.kit import adapt, at

POD = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: qwen}
spec:
  template:
    spec:
      initContainers:
INIT
      containers:
        - name: engine
          image: vllm/vllm-openai:v0.13.0
          command: [python3, -m, vllm.entrypoints.openai.api_server, --model, MODEL, --max-model-len, "2048"]
          resources: {limits: {nvidia.com/gpu: "1"}}
      nodeSelector: {cloud.google.com/gke-accelerator: nvidia-l4}
"""


def _pod(init: str, model: str = "/tmp/cache/Qwen3") -> str:
    return POD.replace("INIT\n", init).replace("MODEL", model)


KTHENA = """\
        - name: downloader
          image: ghcr.io/volcano-sh/downloader:v0.2.0
          args: [--source, SOURCE, --output-dir, /tmp/cache/Qwen3]
"""


@pytest.mark.parametrize("source", ["hf://Qwen/Qwen3-0.6B", "Qwen/Qwen3-0.6B"])
@pytest.mark.parametrize("model", ["/tmp/cache/Qwen3", "/tmp/cache/Qwen3/"])
def test_kthena_downloader_names_the_model_the_engine_loads(source, model):
    text = _pod(KTHENA.replace("SOURCE", source), model)
    [dep] = adapt(text).deployments
    assert dep.model.id.value == "Qwen/Qwen3-0.6B" and dep.model.id.raw == model
    assert at(text, dep.model.id.source) == model  # still where the engine is told what to load
    assert dep.model.id.show() == f"{model} (= Qwen/Qwen3-0.6B)"


@pytest.mark.parametrize("init", [
    "        - name: fetch\n          image: python:3.12\n          command: [huggingface-cli, download, "
    "Qwen/Qwen3-0.6B, --local-dir, /tmp/cache/Qwen3]\n",
    "        - name: fetch\n          image: python:3.12\n          command: [sh, -c]\n          args:\n"
    "            - pip install -U huggingface_hub && hf download Qwen/Qwen3-0.6B --local-dir=/tmp/cache/Qwen3\n",
    # a model's hf:// URI in place of REPO (huggingface_hub 2.5.0's cli/download.py), with or without `models/`
    "        - name: fetch\n          image: python:3.12\n          command: [hf, download, "
    "hf://Qwen/Qwen3-0.6B, --local-dir, /tmp/cache/Qwen3]\n",
    "        - name: fetch\n          image: python:3.12\n          command: [hf, download, "
    "hf://models/Qwen/Qwen3-0.6B@main, --local-dir, /tmp/cache/Qwen3]\n",
    # an option after the download's own command line is another command's (a script's `&&`)
    "        - name: fetch\n          command: [sh, -c, \"hf download hf://Qwen/Qwen3-0.6B --local-dir /tmp/cache/Qwen3"
    " && git clone x --revision main\"]\n",
])
def test_hugging_face_cli_download_names_the_model(init):
    [dep] = adapt(_pod(init)).deployments
    assert dep.model.id.value == "Qwen/Qwen3-0.6B"


@pytest.mark.parametrize("init", [
    KTHENA.replace("SOURCE", "s3://bucket/qwen"),  # another scheme: no Hugging Face id
    KTHENA.replace("SOURCE", "hf://$(MODEL_ID)"),  # not known
    KTHENA.replace("SOURCE", "Qwen/Qwen3-0.6B").replace("ghcr.io/volcano-sh/downloader:v0.2.0", "busybox"),
    KTHENA.replace("SOURCE", "hf://Qwen/Qwen3-0.6B").replace("/tmp/cache/Qwen3]", "/tmp/cache/other]"),
    KTHENA.replace("SOURCE", "hf://Qwen/Qwen3-0.6B") + KTHENA.replace("SOURCE", "hf://Qwen/Qwen3-8B"),  # which?
    "        - name: fetch\n          command: [sh, -c, \"hf download 'Qwen/Qwen3-0.6B --local-dir /tmp/cache/Qwen3\"]"
    "\n",  # an unclosed quote: the script is not read
    # a dataset's URI; the older CLI, which reads no URI
    "        - name: fetch\n          command: [hf, download, hf://datasets/Qwen/x, --local-dir, /tmp/cache/Qwen3]\n",
    "        - name: fetch\n          command: [huggingface-cli, download, hf://Qwen/Qwen3-0.6B, --local-dir, "
    "/tmp/cache/Qwen3]\n",
    # beside a URI, hf refuses --revision, --repo-type/--type and a file argument when the URI names a path
    # (huggingface_hub 2.5.0 cli/download.py: CLIError), so the init container downloads nothing
    "        - name: fetch\n          command: [hf, download, hf://Qwen/Qwen3-0.6B, --revision, main, --local-dir, "
    "/tmp/cache/Qwen3]\n",
    "        - name: fetch\n          command: [hf, download, hf://Qwen/Qwen3-0.6B, --local-dir=/tmp/cache/Qwen3, "
    "--repo-type=model]\n",
    "        - name: fetch\n          command: [sh, -c, \"hf download hf://Qwen/Qwen3-0.6B --type model --local-dir "
    "/tmp/cache/Qwen3\"]\n",
    "        - name: fetch\n          command: [hf, download, hf://Qwen/Qwen3-0.6B/config.json, tokenizer.json, "
    "--local-dir, /tmp/cache/Qwen3]\n",
])
def test_a_download_that_does_not_say_which_model_fills_the_path_changes_nothing(init):
    [dep] = adapt(_pod(init)).deployments
    assert dep.model.id.value == "/tmp/cache/Qwen3" and dep.model.id.raw in ("", "/tmp/cache/Qwen3")


@pytest.mark.parametrize("init", ["        - 3\n", "        - {name: x, command: 3, args: {a: 1}}\n",
                                  "        - {name: x, command: [hf, download]}\n",
                                  "        - {name: x, args: [--source]}\n"])
def test_odd_init_containers_never_crash(init):
    adapt(_pod(init))


# Where the files land is a volume, not a path: kthena's example mounts one volume (example-weights) at /tmp/cache in
# both containers. An engine path that names the same directory in another volume, or in the container's own
# filesystem, is not what the init container downloaded; the same volume mounted elsewhere is.
def _mounted(init_mount: str, engine_mount: str, model: str = "/tmp/cache/Qwen3") -> str:
    init = KTHENA.replace("SOURCE", "hf://Qwen/Qwen3-0.6B") + f"          volumeMounts: [{init_mount}]\n"
    text = _pod(init, model)
    return text.replace("      nodeSelector:", f"          volumeMounts: [{engine_mount}]\n      nodeSelector:") \
        if engine_mount else text


@pytest.mark.parametrize("init_mount, engine_mount, model", [
    ("{name: weights, mountPath: /tmp/cache}", "{name: weights, mountPath: /tmp/cache}", "/tmp/cache/Qwen3"),
    ("{name: weights, mountPath: /tmp/cache}", "{name: weights, mountPath: /models}", "/models/Qwen3/"),
    ("{name: weights, mountPath: /tmp/cache/Qwen3}", "{name: weights, mountPath: /m}", "/m"),
    ("{name: weights, mountPath: /tmp/cache, subPath: a}", "{name: weights, mountPath: /m/}", "/m/a/Qwen3"),
])
def test_the_volume_the_init_container_fills_names_the_model(init_mount, engine_mount, model):
    [dep] = adapt(_mounted(init_mount, engine_mount, model)).deployments
    assert dep.model.id.value == "Qwen/Qwen3-0.6B" and dep.model.id.raw == model


@pytest.mark.parametrize("init_mount, engine_mount", [
    ("{name: scratch, mountPath: /tmp/cache}", "{name: weights, mountPath: /tmp/cache}"),  # another volume
    ("{name: weights, mountPath: /tmp/cache, subPath: a}", "{name: weights, mountPath: /tmp/cache}"),
    ("{name: weights, mountPath: /tmp/cache}", ""),  # the engine reads its own filesystem
    ("{name: weights, mountPath: /data}", "{name: weights, mountPath: /tmp/cache}"),  # downloaded off the volume
])
def test_the_same_path_on_another_volume_is_not_the_download(init_mount, engine_mount):
    [dep] = adapt(_mounted(init_mount, engine_mount)).deployments
    assert dep.model.id.value == "/tmp/cache/Qwen3"
