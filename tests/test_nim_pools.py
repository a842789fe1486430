"""NIM for LLMs: the pool of a NIM that serves with vLLM (a 2.x release) is derived and says what it assumed; a
NIM 1.x pool is not, and why_unknown / CTX208 say which of NIM's facts is missing (adapters/nim_backend.py).

The inputs are shaped as k8s-nim-operator's samples (config/samples/nim/serving/standalone/basic: a NIMCache of an
NGC model with `model.engine`, and the NIMService that names it) and GKE's nim-llm values."""
from __future__ import annotations

import json

from tests.helpers import run

# k8s-nim-operator's basic sample: the cache caches the TensorRT-LLM profiles, the service runs one of them
OPERATOR_SAMPLE = """\
apiVersion: apps.nvidia.com/v1alpha1
kind: NIMCache
metadata:
  name: meta-llama-3-2-1b-instruct
  namespace: nim-service
spec:
  source:
    ngc:
      modelPuller: nvcr.io/nim/meta/llama-3.2-1b-instruct:1.12.0
      pullSecret: ngc-secret
      authSecret: ngc-api-secret
      model:
        engine: tensorrt_llm
        tensorParallelism: "1"
  storage:
    pvc: {create: true, size: 50Gi, volumeAccessMode: ReadWriteOnce}
---
apiVersion: apps.nvidia.com/v1alpha1
kind: NIMService
metadata:
  name: meta-llama-3-2-1b-instruct
  namespace: nim-service
spec:
  image:
    repository: nvcr.io/nim/meta/llama-3.2-1b-instruct
    tag: "1.12.0"
  authSecret: ngc-api-secret
  storage:
    nimCache: {name: meta-llama-3-2-1b-instruct, profile: ''}
  replicas: 1
  resources:
    limits:
      nvidia.com/gpu: 1
"""
# the same service on a NIM 2.x release, on one L4 (GKE's accelerator label), promising Llama 3.1's 128k window
NIM2_L4 = """\
apiVersion: apps.nvidia.com/v1alpha1
kind: NIMService
metadata:
  name: llama-8b
  namespace: nim-service
  annotations:
    ctxlint.io/context-window: "131072"
spec:
  image:
    repository: nvcr.io/nim/meta/llama-3.1-8b-instruct
    tag: "2.0.1"
  nodeSelector:
    cloud.google.com/gke-accelerator: nvidia-l4
  resources:
    limits:
      nvidia.com/gpu: 1
"""


def _rows(tmp_path, files):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    out = run(["audit", "--isolated", "--format", "json", str(tmp_path)]).out
    return {r["name"]: r for r in json.loads(out)["deployments"]}


def _check(tmp_path) -> str:
    return run(["check", "--isolated", str(tmp_path)]).out.replace(str(tmp_path) + "/", "")


def test_a_nim_1x_whose_nimcache_names_the_backend_says_the_memory_share_is_what_is_missing(tmp_path):
    [row] = _rows(tmp_path, {"llm.yaml": OPERATOR_SAMPLE}).values()
    assert (row["engine"], row["verdict"], row["why_unknown"]) == \
        ("nim", "unknown", "NIM 1.x KV memory share not established")
    assert _check(tmp_path) == (
        "llm.yaml:25:17: CTX208 [info] KV pool of unified not declared and not derivable: NIM 1.x KV memory share "
        "not established: NIM 1.12.0 runs TensorRT-LLM here (NIMCache meta-llama-3-2-1b-instruct "
        "spec.source.ngc.model.engine=tensorrt_llm), but NIM's documentation does not establish what share of GPU "
        "memory NIM 1.x gives that backend's KV cache; a NIM 2.x image (vLLM) is derived; or state the pool the "
        "engine logged (the ctxlint.io/kv-pool-tokens annotation); capacity checks skip these roles "
        "(capacity-not-derivable)\n")


def test_a_nim_1x_that_names_no_backend_says_so_and_a_profile_id_names_none(tmp_path):
    service = OPERATOR_SAMPLE.split("---\n")[1]  # without its cache
    rows = _rows(tmp_path, {
        "plain.yaml": service,
        "id.yaml": service.replace("name: meta-llama-3-2-1b-instruct\n  namespace", "name: by-id\n  namespace")
        .replace("  replicas: 1\n", "  replicas: 1\n  env:\n  - {name: NIM_MODEL_PROFILE, value: " + "ab" * 32 + "}\n"),
        "share.yaml": service.replace("name: meta-llama-3-2-1b-instruct\n  namespace", "name: share\n  namespace")
        .replace("  replicas: 1\n", "  replicas: 1\n  env:\n  - {name: NIM_MODEL_PROFILE, value: vllm-bf16-tp1-pp1}\n"
                                    "  - {name: NIM_KVCACHE_PERCENT, value: '0.5'}\n")})
    assert {name: row["why_unknown"] for name, row in rows.items()} == {
        "meta-llama-3-2-1b-instruct": "NIM backend not stated", "by-id": "NIM backend not stated",
        "share": "NIM 1.x KV memory share not established"}
    out = _check(tmp_path).splitlines()
    assert out == [
        "id.yaml:8:17: CTX208 [info] KV pool of unified not declared and not derivable: NIM backend not stated: "
        "NIM 1.12.0 picks its backend (TensorRT-LLM, vLLM or SGLang) from the model profile at run time and "
        "NIM_MODEL_PROFILE is a profile id, which names none; NIM 1.x's KV memory share is not established for any "
        "backend, a NIM 2.x image (vLLM) is derived; or state the pool the engine logged (the "
        "ctxlint.io/kv-pool-tokens annotation); capacity checks skip these roles (capacity-not-derivable)",
        "plain.yaml:8:17: CTX208 [info] KV pool of unified not declared and not derivable: NIM backend not stated: "
        "NIM 1.12.0 picks its backend (TensorRT-LLM, vLLM or SGLang) from the model profile at run time and neither "
        "NIM_MODEL_PROFILE (by name, such as vllm-bf16-tp1-pp1) nor a NIMCache's model.engine says which; NIM 1.x's "
        "KV memory share is not established for any backend, a NIM 2.x image (vLLM) is derived; or state the pool "
        "the engine logged (the ctxlint.io/kv-pool-tokens annotation); capacity checks skip these roles "
        "(capacity-not-derivable)",
        "share.yaml:8:17: CTX208 [info] KV pool of unified not declared and not derivable: NIM 1.x KV memory share "
        "not established: NIM 1.12.0 runs vLLM here (NIM_MODEL_PROFILE=vllm-bf16-tp1-pp1), but NIM's documentation "
        "does not establish how NIM 1.x applies the stated NIM_KVCACHE_PERCENT=0.5 to that backend's KV cache; a "
        "NIM 2.x image (vLLM) is derived; or state the pool the engine logged (the ctxlint.io/kv-pool-tokens "
        "annotation); capacity checks skip these roles (capacity-not-derivable)"]


def test_a_nim_2x_on_one_gpu_is_derived_as_vllm_and_says_what_it_assumed(tmp_path):
    [row] = _rows(tmp_path, {"llm.yaml": NIM2_L4}).values()
    assert (row["engine"], row["verdict"], row["prefill_pool"], row["engine_context"], row["promise"]) == \
        ("vllm", "exceeds", {"tokens": 25440, "origin": "derived", "role": "unified"}, 131072, 131072)
    assert row["worst"]["message"] == (
        "131,072 > 39,744: the longest request (the advertised window 131,072) exceeds the unified KV pool 25,440 "
        "(derived for meta-llama/Llama-3.1-8B (model inferred: meta/llama-3.1-8b-instruct: architecture of "
        "meta-llama/Llama-3.1-8B, matched by name) on L4 at TP 1, vllm: KV budget per GPU 3.11 GiB (instance memory "
        "19.76 GiB - weights 14.96 GiB - activation peak 1.44 GiB - non-torch 0.25 GiB) / 131,072 B per token per "
        "GPU = 25,440 tokens; assumed: vLLM as the backend (a NIM 2.x image carries vLLM or SGLang, and this one's "
        "name says neither); vLLM's default --gpu-memory-utilization (NIM's documentation names built-in defaults "
        "of its own without their values); band 13,184-39,808), which holds 25,424 tokens for one request "
        "at the estimate's point (of its 25,440: one 16-token block is vLLM's null block) and at most 39,744 at the "
        "top of its band, by 91,328 tokens. Raise the unified pool to at least 131,136, or lower the advertised "
        "window to 39,744 and cap prompts at the gateway (and state it with the annotation "
        "ctxlint.io/gateway-max-prompt-tokens) at or below it")


def test_a_stated_memory_share_is_not_an_assumption(tmp_path):
    text = NIM2_L4.replace("  nodeSelector:", "  env:\n  - {name: NIM_PASSTHROUGH_ARGS, value: "
                                              "'--gpu-memory-utilization 0.95'}\n  nodeSelector:")
    [row] = _rows(tmp_path, {"llm.yaml": text}).values()
    assert row["prefill_pool"]["tokens"] > 25440 and "default --gpu-memory-utilization" not in row["worst"]["message"]


def test_a_nim_2x_on_several_gpus_needs_its_tensor_parallel_size_which_a_profile_name_gives(tmp_path):
    several = NIM2_L4.replace("nvidia.com/gpu: 1", "nvidia.com/gpu: 2")
    named = several.replace("name: llama-8b", "name: named").replace(
        "  nodeSelector:", "  env:\n  - {name: NIM_MODEL_PROFILE, value: vllm-bf16-tp2-pp1}\n  nodeSelector:")
    rows = _rows(tmp_path, {"auto.yaml": several, "named.yaml": named})
    assert (rows["llama-8b"]["verdict"], rows["llama-8b"]["why_unknown"]) == ("unknown", "parallel size not known")
    assert (rows["named"]["verdict"], rows["named"]["prefill_pool"]["tokens"]) == ("within band", 162656)
    assert "auto.yaml:16:23: CTX008 [info] NIM selects its model profile, and with it the tensor and pipeline " \
        "parallel sizes, for the 2 GPUs it finds at run time: state NIM_TENSOR_PARALLEL_SIZE, or NIM_MODEL_PROFILE " \
        "by name (vllm-<precision>-tp<N>-pp<M>) (unresolved-value)" in _check(tmp_path).splitlines()


def test_nim_backend_facts_of_odd_shapes_never_crash(tmp_path):
    odd = OPERATOR_SAMPLE.replace("engine: tensorrt_llm", "engine: [tensorrt_llm]").replace(
        'tag: "1.12.0"', "tag: latest").replace("  replicas: 1\n", "  replicas: 1\n  env:\n"
                                               "  - {name: NIM_MODEL_PROFILE, value: 7}\n")
    [row] = _rows(tmp_path, {"llm.yaml": odd}).values()
    assert (row["engine"], row["why_unknown"]) == ("nim", "NIM backend not stated")


def _env(text: str, name: str, *pairs) -> str:
    """NIM2_L4 renamed `name`, with the environment `pairs` (name, value) before its nodeSelector."""
    env = "".join(f"  - {{name: {k}, value: '{v}'}}\n" for k, v in pairs)
    return text.replace("name: llama-8b", f"name: {name}").replace("  nodeSelector:", f"  env:\n{env}  nodeSelector:")


def test_a_nim_2x_sglang_image_is_not_read_as_vllm(tmp_path):
    # NIM 2.x images carry vLLM or SGLang (2.1 docs): the SGLang model-free NIM named SGLang's pool vLLM's
    sglang = _env(NIM2_L4, "sglang", ("NIM_MODEL_PATH", "hf://meta-llama/Llama-3.1-8B-Instruct")).replace(
        "meta/llama-3.1-8b-instruct\n", "nvidia/sglang-model-free-nim\n").replace('"2.0.1"', '"2.1.5"')
    [row] = _rows(tmp_path, {"llm.yaml": sglang}).values()
    assert (row["engine"], row["verdict"], row["why_unknown"]) == ("nim", "unknown", "NIM 2.x backend not vLLM")
    assert _check(tmp_path) == (
        "llm.yaml:10:17: CTX208 [info] KV pool of unified not declared and not derivable: NIM 2.x backend not vLLM: "
        "NIM 2.1.5 runs SGLang here (a NIM SGLang image); a NIM 2.x pool is derived only where it serves with vLLM, "
        "whose arguments NIM's variables map to; or state the pool the engine logged (the ctxlint.io/kv-pool-tokens "
        "annotation); capacity checks skip these roles (capacity-not-derivable)\n")


def test_a_memory_share_set_by_a_nim_variable_is_not_replaced_by_vllms_default(tmp_path):
    # NVIDIA's video-search-and-summarization blueprint gives a 2.x NIM 0.3 of a shared GPU this way: derived at
    # vLLM's 0.9 the pool was three times what it is
    rows = _rows(tmp_path, {
        "fraction.yaml": _env(NIM2_L4, "fraction", ("NIM_GPU_MEM_FRACTION", "0.3"), ("NIM_KVCACHE_PERCENT", "0.3")),
        "percent.yaml": _env(NIM2_L4, "percent", ("NIM_KVCACHE_PERCENT", "0.3")),
        "passed.yaml": _env(NIM2_L4, "passed", ("NIM_GPU_MEM_FRACTION", "0.3"),
                            ("NIM_PASSTHROUGH_ARGS", "--gpu-memory-utilization 0.95"))})
    assert {n: (r["engine"], r["why_unknown"]) for n, r in rows.items()} == {
        "fraction": ("nim", "NIM memory share variable not mapped"),
        "percent": ("nim", "NIM memory share variable not mapped"),
        "passed": ("vllm", None)}  # the passthrough argument wins over the NIM_* variables
    assert rows["passed"]["prefill_pool"]["tokens"] == 32896
    assert _check(tmp_path).splitlines()[0] == (
        "fraction.yaml:10:17: CTX208 [info] KV pool of unified not declared and not derivable: NIM memory share "
        "variable not mapped: NIM 2.0.1 serves with vLLM (NIM 2.0.1, whose image name says no backend: vLLM "
        "assumed), and NIM_GPU_MEM_FRACTION=0.3 sets a share of GPU memory that NIM's documentation maps to no vLLM "
        "argument, so vLLM's default cannot stand for it; state the share as --gpu-memory-utilization in "
        "NIM_PASSTHROUGH_ARGS (it wins over the NIM_* variables); or state the pool the engine logged (the "
        "ctxlint.io/kv-pool-tokens annotation); capacity checks skip these roles (capacity-not-derivable)")


def test_an_image_tag_that_names_no_release_is_not_called_one(tmp_path):
    digest = OPERATOR_SAMPLE.split("---\n")[1].replace('    tag: "1.12.0"\n', "").replace(
        "meta/llama-3.2-1b-instruct\n", "meta/llama-3.2-1b-instruct@sha256:" + "0a" * 32 + "\n")
    _rows(tmp_path, {"llm.yaml": digest})
    assert "not derivable: NIM backend not stated: a NIM whose release the image tag does not name picks its " \
        "backend" in _check(tmp_path)
