"""TGI's shard count when no --num-shard / NUM_SHARD states it (adapters/tgi_shards.py).

The launcher's `find_num_shards` runs a shard on each item of CUDA_VISIBLE_DEVICES, else of NVIDIA_VISIBLE_DEVICES
(from v0.8.0; CUDA_VISIBLE_DEVICES alone from v0.4.0), else one; `all` is one item before v3.3.7, which asks
nvidia-smi (huggingface/text-generation-inference@dfb3fbe78e0d1d69251bd33065591c61bafdfaa8:launcher/src/main.rs).
Docker's `--gpus 2` and a Compose reservation of `count: 2` set NVIDIA_VISIBLE_DEVICES=0,1 through NVIDIA's
hook, or `void` through CDI (docker-v29.2.0 on, where nvidia-cdi-hook is installed), so TGI runs 2 shards from
v3.3.7 (which counts `void` with nvidia-smi) and 1 or 2 before it, the host's to say: ctxlint read TP 1. A
Kubernetes limit is the device plugin's to name (NVIDIA's sets the ids, GKE's sets none, leaving the image's
`all`): not known, CTX208."""
from __future__ import annotations

import pytest

from helpers import run

IMAGE = "ghcr.io/huggingface/text-generation-inference"
ARGS = "--model-id meta-llama/Llama-3.1-8B-Instruct --max-total-tokens 8192"
NOT_KNOWN = "the shard count is not known"


def check(path) -> str:
    return run(["check", str(path)]).out


def script(tmp_path, line: str):
    path = tmp_path / "run.sh"
    path.write_text(f"#!/bin/bash\n{line}\n")
    return path


@pytest.mark.parametrize("line, tp", [
    (f"docker run --gpus 2 {IMAGE}:3.3.7 {ARGS}", 2),
    (f"docker run --gpus '\"device=0,1,2\"' {IMAGE}:3.3.7 {ARGS}", 3),
    (f"docker run --gpus=2 {IMAGE}:3.4 {ARGS}", 2),  # every 3.4.x is past v3.3.7
    (f"docker run --runtime nvidia -e NVIDIA_VISIBLE_DEVICES=0,1 {IMAGE}:3.3.7 {ARGS}", 2),
    (f"CUDA_VISIBLE_DEVICES=0,1 text-generation-launcher {ARGS}", 2),
    (f"CUDA_VISIBLE_DEVICES=GPU-a1,GPU-b2,GPU-c3 text-generation-launcher {ARGS}", 3),  # items, whatever they are
    (f"docker run --gpus 4 -e CUDA_VISIBLE_DEVICES=0,1 {IMAGE}:2.4.0 {ARGS}", 2),  # read before NVIDIA's
    (f"docker run --gpus 2 {IMAGE}:3.3.7 {ARGS} --sharded true", 2),
])
def test_shards_over_the_gpus_the_file_gives(tmp_path, line, tp):
    out = check(script(tmp_path, line))
    assert "CTX205" not in out and f"GiB per GPU at TP {tp} " in out, out


@pytest.mark.parametrize("line", [
    f"docker run --gpus 2 {IMAGE}:0.7.0 {ARGS}",  # reads CUDA_VISIBLE_DEVICES only
    f"docker run --gpus 2 {IMAGE}:2.4.0 {ARGS} --sharded false",
    f"docker run --gpus 2 -e NUM_SHARD=1 {IMAGE}:2.4.0 {ARGS}",
    f"docker run --gpus 2 {IMAGE}:3.3.7-rocm {ARGS}",  # no NVIDIA_VISIBLE_DEVICES in a ROCm image
])
def test_one_shard_where_tgi_runs_one(tmp_path, line):
    assert "CTX205" in check(script(tmp_path, line))


@pytest.mark.parametrize("line", [
    f"docker run --gpus 2 {IMAGE}:2.4.0 {ARGS}",
    f"docker run --gpus 2 {IMAGE}:0.8.0 {ARGS}",
    f"docker run --gpus 2 {IMAGE}:3.3.6 {ARGS}",
    f"docker run --gpus 2 {IMAGE}:3.3 {ARGS}",  # 3.3.0 to 3.3.6 among it
    f"docker run --gpus 2 {IMAGE}:latest {ARGS}",
    f"docker run --runtime nvidia -e NVIDIA_VISIBLE_DEVICES=0,1 {IMAGE}:2.4.0 {ARGS}",
])
def test_docker_count_before_v3_3_7_is_the_hosts(tmp_path, line):
    """Docker from docker-v29.2.0 with NVIDIA's nvidia-cdi-hook (moby/moby@86f122af), and the NVIDIA runtime's
    jit-cdi mode (Container Toolkit v1.18 on), give the container the CDI spec's NVIDIA_VISIBLE_DEVICES=void: one
    item, one shard, before v3.3.7; the legacy hook's `0,1` is two. Which is the host's: not known, no TP guessed."""
    out = check(script(tmp_path, line))
    assert NOT_KNOWN in out and "CTX205" not in out and "GiB per GPU at TP" not in out, out


def test_a_cuda_visible_devices_not_known_leaves_the_shard_count_unknown(tmp_path):
    out = check(script(tmp_path, f"docker run --gpus 2 -e CUDA_VISIBLE_DEVICES=$GPUS {IMAGE}:3.3.7 {ARGS}"))
    assert NOT_KNOWN in out and "GiB per GPU at TP" not in out, out


def test_cuda_visible_devices_before_v0_4_is_not_read(tmp_path):
    out = check(script(tmp_path, f"docker run --gpus 2 -e CUDA_VISIBLE_DEVICES=0,1 {IMAGE}:0.3.2 "
                                 "--model-id meta-llama/Llama-3.1-8B-Instruct"))
    assert "CTX205" in out and "at TP 2" not in out, out


@pytest.mark.parametrize("tag, known", [("2.4.0", True), ("3.3.6", True), ("3.3.7", False), ("3.3", False),
                                        ("latest", False)])
def test_gpus_all_counts_one_before_v3_3_7(tmp_path, tag, known):
    out = check(script(tmp_path, f"docker run --gpus all {IMAGE}:{tag} {ARGS}"))
    assert ("GiB per GPU at TP 1 " in out, NOT_KNOWN in out) == (known, not known), out


@pytest.mark.parametrize("tag, known", [("3.3.7", True), ("2.4.0", False)])
def test_compose_reservation_count(tmp_path, tag, known):
    path = tmp_path / "compose.yaml"
    path.write_text(f"""services:
  tgi:
    image: {IMAGE}:{tag}
    command: {ARGS}
    deploy:
      resources:
        reservations:
          devices:
            - driver: nvidia
              count: 2
              capabilities: [gpu]
""")
    out = check(path)
    assert "CTX205" not in out and ("GiB per GPU at TP 2 " in out, NOT_KNOWN in out) == (known, not known), out


@pytest.mark.parametrize("entry", ["- driver: nvidia\n        count: 2", "- count: 2",
                                   "- device_ids: ['0', '1']", "- device_ids: ['0,1']"])
@pytest.mark.parametrize("tag, known", [("3.3.7", True), ("2.4.0", False)])
def test_compose_gpus_entry_is_the_same_device_request(tmp_path, entry, tag, known):
    # Compose makes each `gpus:` entry a device request as it does a reservation (the `gpu` capability added:
    # docker/compose@f7297942:pkg/compose/create.go getDeployResources), so TGI counts its GPUs alike
    path = tmp_path / "compose.yaml"
    path.write_text(f"""services:
  tgi:
    image: {IMAGE}:{tag}
    command: {ARGS}
    gpus:
      {entry}
""")
    out = check(path)
    assert "CTX205" not in out and ("GiB per GPU at TP 2 " in out, NOT_KNOWN in out) == (known, not known), out


def _pod(tmp_path, env: str = "") -> str:
    path = tmp_path / "deploy.yaml"
    path.write_text(f"""apiVersion: apps/v1
kind: Deployment
metadata: {{name: tgi}}
spec:
  selector: {{matchLabels: {{app: tgi}}}}
  template:
    metadata: {{labels: {{app: tgi}}}}
    spec:
      nodeSelector: {{cloud.google.com/gke-accelerator: nvidia-l4}}
      containers:
      - name: tgi
        image: {IMAGE}:2.4.0
        args: [--model-id, meta-llama/Llama-3.1-8B-Instruct, --max-total-tokens, "8192"]
        env: [{env}]
        resources:
          limits: {{nvidia.com/gpu: 2}}
""")
    return check(path)


def test_kubernetes_limit_leaves_the_shard_count_unknown(tmp_path):
    out = _pod(tmp_path)
    assert "CTX205" not in out and "CTX203" not in out and NOT_KNOWN in out and "deploy.yaml:9:" in out, out


def test_kubernetes_num_shard_stated(tmp_path):
    out = _pod(tmp_path, "{name: NUM_SHARD, value: '1'}")
    assert NOT_KNOWN not in out and "CTX205" in out, out


@pytest.mark.parametrize("ids, tp", [("0", 1), ("0,1", 2)])
def test_kubernetes_cuda_visible_devices_is_counted_first(tmp_path, ids, tp):
    """CUDA_VISIBLE_DEVICES is what TGI counts first, whatever the device plugin sets: known shards, no CTX208 for
    them (one GPU of the two seen: one shard over it, no idle GPU either)."""
    out = _pod(tmp_path, f"{{name: CUDA_VISIBLE_DEVICES, value: '{ids}'}}")
    assert NOT_KNOWN not in out and "CTX205" not in out, out


XPU = "--device /dev/dri/renderD128 --device /dev/dri/renderD129"


@pytest.mark.parametrize("tag, tp, idle", [("3.0.0-intel-xpu", 2, False), ("2.1.0-intel", 2, False),
                                           ("2.0.4-intel", 1, True)])
def test_intel_image_counts_ze_affinity_mask(tmp_path, tag, tp, idle):
    """An Intel image sets no NVIDIA_VISIBLE_DEVICES, so from v2.1.0 find_num_shards counts ZE_AFFINITY_MASK's items
    (huggingface/text-generation-inference@83634dc1, #2047): 2 shards over the 2 render nodes, no GPU idle."""
    out = check(script(tmp_path, f"docker run {XPU} -e ZE_AFFINITY_MASK=0,1 {IMAGE}:{tag} {ARGS}"))
    assert ("CTX205" in out) == idle and f"GiB per GPU at TP {tp}" in out, out


def _runtime_class_pod(tmp_path, image: str, args: str, env: str = "", runtime: str = "nvidia") -> str:
    """A pod of NVIDIA's runtime class with no nvidia.com/gpu limit: NVIDIA's runtime reads the image's
    NVIDIA_VISIBLE_DEVICES (CUDA images: `all`), so the container sees every GPU of its node."""
    path = tmp_path / "deploy.yaml"
    path.write_text(f"""apiVersion: apps/v1
kind: Deployment
metadata: {{name: srv}}
spec:
  selector: {{matchLabels: {{app: srv}}}}
  template:
    metadata: {{labels: {{app: srv}}}}
    spec:
      runtimeClassName: {runtime}
      nodeSelector: {{nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB}}
      containers:
      - name: srv
        image: {image}
        args: {args}
        env: [{env}]
""")
    return check(path)


TGI_70B = "[--model-id, meta-llama/Llama-3.1-70B-Instruct, --max-total-tokens, '8192']"


@pytest.mark.parametrize("tag, known", [("3.3.6", True), ("2.4.0", True), ("3.3.7", False), ("latest", False)])
def test_runtime_class_with_no_gpu_limit_is_every_gpu_of_the_node(tmp_path, tag, known):
    # `all` is one item (one shard) before v3.3.7, nvidia-smi's count of the node's GPUs from it: not known. Before,
    # one shard on every release: a false CTX203 (70B's weights on one A100) where TGI shards over the node's GPUs
    out = _runtime_class_pod(tmp_path, f"{IMAGE}:{tag}", TGI_70B)
    assert ("CTX203" in out, NOT_KNOWN in out) == (known, not known), out


def test_runtime_class_with_ids_or_another_class_is_as_before(tmp_path):
    out = _runtime_class_pod(tmp_path, f"{IMAGE}:3.3.7", TGI_70B, "{name: NVIDIA_VISIBLE_DEVICES, value: '0'}")
    assert "CTX203" in out and NOT_KNOWN not in out, out
    out = _runtime_class_pod(tmp_path, f"{IMAGE}:3.3.7", TGI_70B, runtime="kata")
    assert "CTX203" in out and NOT_KNOWN not in out, out


def test_runtime_class_llamacpp_splits_over_gpus_not_counted(tmp_path):
    out = _runtime_class_pod(tmp_path, "ghcr.io/ggml-org/llama.cpp:server-cuda",
                             "[-m, /models/Meta-Llama-3.1-8B-Instruct-Q8_0.gguf, -c, '131072', -ngl, '99']")
    assert "the pod runs NVIDIA's runtime class with no nvidia.com/gpu limit" in out and "CTX209" not in out, out


TGIS = "quay.io/opendatahub/text-generation-inference:fast"


def _tgis_pod(tmp_path, env: str = "") -> str:
    path = tmp_path / "tgis.yaml"
    path.write_text(f"""apiVersion: apps/v1
kind: Deployment
metadata: {{name: tgis}}
spec:
  template:
    spec:
      nodeSelector: {{nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB}}
      containers:
        - name: tgis
          image: {TGIS}
          env:
            - {{name: MODEL_NAME, value: meta-llama/Llama-3.1-70B-Instruct}}{env}
          resources: {{limits: {{nvidia.com/gpu: "2"}}}}
""")
    return check(path)


def test_tgis_shards_over_the_gpus_it_counts(tmp_path):
    # IBM's fork counts NUM_GPUS, else CUDA_VISIBLE_DEVICES, else NVIDIA_VISIBLE_DEVICES (the device plugin's, not
    # the file's): with none set its shard count is not known, not one. Before, a false CTX205 "1 sit idle"
    assert "CTX205" not in _tgis_pod(tmp_path)
    assert "CTX205" not in _tgis_pod(tmp_path, "\n            - {name: CUDA_VISIBLE_DEVICES, value: '0,1'}")
    assert "CTX205" in _tgis_pod(tmp_path, "\n            - {name: NUM_GPUS, value: '1'}")  # 1 shard stated




@pytest.mark.parametrize("uncounted", ["runtimeClassName: nvidia with no nvidia.com/gpu limit", "docker run --gpus all"])
@pytest.mark.parametrize("release", [None, "3.3.7"])
def test_tgis_counts_all_as_one_shard(uncounted, release):
    """TGIS's num_cuda_devices counts the items of NVIDIA_VISIBLE_DEVICES, `all` one, and asks no nvidia-smi
    (IBM/text-generation-inference@006006d7:launcher/src/main.rs): GPUs not counted (the image's `all`) are one shard
    whatever its release reads as, where TGI from v3.3.7 (or a release not known) leaves the count not known. (Read
    through a file, TGIS is not modelled: this is what its shard count is.)"""
    from types import SimpleNamespace

    from ctxlint.adapters.engine_roles import RoleFacts
    from ctxlint.adapters.tgi_shards import default_shards
    from ctxlint.model import Parallelism

    facts = RoleFacts(kind="unified", kind_source=None, context_length=None, kv_pool_tokens=None,
                      kv_cache_dtype=None, parallelism=Parallelism(), engine_args=())
    reader = SimpleNamespace(c=SimpleNamespace(gpus_uncounted=uncounted, accelerator_count=None),
                             device_setting=lambda name: None)
    inv = SimpleNamespace(settings={})
    assert default_shards(reader, inv, facts, release, "quay.io/opendatahub/text-generation-inference:fast",
                          tgis=True) == facts
    assert default_shards(reader, inv, facts, release, "ghcr.io/huggingface/text-generation-inference:3.3.7",
                          tgis=False).parallel_unknown
