"""llm-d ModelService and production-stack VLLMRuntime: roles, values at their tokens, findings, odd shapes."""
from __future__ import annotations

import pytest

from helpers import run
from tests.adapters.kit import adapt, arg, at
from tests.conftest import SHARED

NEEDS_CORPUS = pytest.mark.skipif(not (SHARED / "corpus" / "real").is_dir(),
                                  reason="../shared/corpus/real is not beside the repo")

MODEL_SERVICE = """\
apiVersion: llm-d.ai/v1alpha1
kind: ModelService
metadata:
  name: llama-pd
spec:
  baseConfigMapRef:
    name: basic-gpu-with-nixl-preset
  routing:
    modelName: meta-llama/Llama-3.1-8B-Instruct
  modelArtifacts:
    uri: hf://meta-llama/Llama-3.1-8B-Instruct
  prefill:
    replicas: 2
    acceleratorTypes:
      labelKey: nvidia.com/gpu.product
      labelValues: [NVIDIA-L4]
    containers:
    - name: vllm
      args:
      - --max-model-len
      - "131072"
      resources:
        limits:
          nvidia.com/gpu: 1
  decode:
    replicas: 1
    parallelism:
      tensor: 4
    acceleratorTypes:
      labelKey: nvidia.com/gpu.product
      labelValues: [NVIDIA-L4, NVIDIA-A10G]
    containers:
    - name: vllm
      args: ["--max-model-len", "131072", "--tensor-parallel-size", "2"]
      resources:
        limits:
          nvidia.com/gpu: "2"
    - name: sidecar
      args: ["--port", "8080"]
"""


def test_model_service_prefill_and_decode_are_one_disaggregated_deployment():
    [dep] = adapt(MODEL_SERVICE).deployments
    assert (dep.input_format, dep.display_name) == ("llm-d", "llama-pd-prefill + llama-pd-decode")
    assert dep.engine.name.value == "vllm" and at(MODEL_SERVICE, dep.engine.name.source) == "vllm"
    assert (dep.engine.name.source.line, dep.engine.name.source.col) == (18, 13)
    assert dep.model.id.value == "meta-llama/Llama-3.1-8B-Instruct"
    assert at(MODEL_SERVICE, dep.model.id.source) == "hf://meta-llama/Llama-3.1-8B-Instruct"
    assert dep.disaggregation.value == "prefill-decode"
    prefill, decode = dep.roles  # the sidecar runs no engine
    assert [r.kind for r in dep.roles] == ["prefill", "decode"]
    assert at(MODEL_SERVICE, prefill.role.source) == "prefill"
    assert (prefill.replicas.value, decode.replicas.value) == (2, 1)
    for role, line, col in ((prefill, 21, 10), (decode, 34, 34)):
        assert (role.context_length.value, role.context_length.source.line, role.context_length.source.col) == \
            (131072, line, col)
        assert at(MODEL_SERVICE, role.context_length.source) == "131072"
    # One device label value names the device; two are an any-of and name none.
    assert (prefill.accelerators.type.value, prefill.accelerators.type.raw) == ("L4", "NVIDIA-L4")
    assert at(MODEL_SERVICE, prefill.accelerators.type.source) == "NVIDIA-L4"
    assert decode.accelerators.type is None
    assert (prefill.accelerators.count.value, at(MODEL_SERVICE, prefill.accelerators.count.source)) == (1, "1")
    assert (decode.accelerators.count.value, at(MODEL_SERVICE, decode.accelerators.count.source)) == (2, '"2"')
    # parallelism.tensor is not rendered by the controller: the args' size counts.
    assert decode.parallelism.tp == 2 and at(MODEL_SERVICE, arg(decode, "tensor_parallel_size").source) == "2"


def test_model_service_instance_family_labels():
    # AWS's instance family labels name a device as a node selector does; values of one device are that device
    for key, values, device in (("karpenter.k8s.aws/instance-family", "[g6e]", "L40S"),
                                ("eks.amazonaws.com/instance-family", "[p5e, p5en]", "H200"),
                                ("karpenter.k8s.aws/instance-family", "[g6e, p5]", None)):
        text = MODEL_SERVICE.replace("labelKey: nvidia.com/gpu.product\n      labelValues: [NVIDIA-L4]",
                                     f"labelKey: {key}\n      labelValues: {values}")
        prefill = adapt(text).deployments[0].roles[0]
        assert (prefill.accelerators.type.value if prefill.accelerators.type else None) == device, values


def test_model_service_finding_points_at_the_prefill_context_length(tmp_path):
    path = tmp_path / "ms.yaml"
    path.write_text(MODEL_SERVICE)
    result = run(["check", str(path), "--select", "CTX201"])
    assert result.code == 1
    [line] = result.out.splitlines()
    assert line.startswith(f"{path}:21:10: CTX201 [error] 131,072 > 39,744: the prefill engine context length 131,072 "
                           "exceeds its KV pool 25,440 (derived for meta-llama/Llama-3.1-8B on 1x L4, vllm: ")


def test_model_service_container_with_a_command_is_read_like_a_deployment():
    text = MODEL_SERVICE.replace("    - name: vllm\n      args:\n      - --max-model-len",
                                 "    - name: engine\n      command: [python3, -m, sglang.launch_server]\n"
                                 "      args:\n      - --context-length")
    # Different engines are not paired: the SGLang prefill and the vLLM decode are two deployments.
    sglang, vllm = adapt(text).deployments
    assert (sglang.engine.name.value, vllm.engine.name.value) == ("sglang", "vllm")
    assert at(text, sglang.engine.name.source) == "python3"
    [role] = sglang.roles
    assert (role.kind, role.context_length.value, at(text, role.context_length.source)) == ("prefill", 131072,
                                                                                             "131072")
    # An args-only container not named `vllm` is not the preset's engine container.
    renamed = MODEL_SERVICE.replace("- name: vllm", "- name: main")
    assert adapt(renamed).deployments == []


def test_model_service_odd_shapes_never_crash():
    odd = [
        "apiVersion: llm-d.ai/v1alpha1\nkind: ModelService\nspec: [1, 2]\n",
        "apiVersion: llm-d.ai/v1alpha1\nkind: ModelService\nspec:\n  prefill: 7\n  decode: [a]\n",
        "apiVersion: llm-d.ai/v1alpha1\nkind: ModelService\nspec:\n  modelArtifacts: {uri: [x]}\n"
        "  decode:\n    replicas: many\n    acceleratorTypes: {labelKey: [k], labelValues: H100}\n"
        "    containers: [7, {name: vllm, args: {a: b}}, {name: [x], args: [--max-model-len, 8k]}]\n",
        "apiVersion: llm-d.ai/v1alpha1\nkind: ModelService\nspec:\n  modelArtifacts: {uri: 'pvc://claim'}\n"
        "  decode:\n    containers: [{name: vllm}]\n",
    ]
    for text in odd:
        res = adapt(text)
        assert [d.input_format for d in res.deployments] in ([], ["llm-d"])
    [dep] = adapt(odd[3]).deployments  # the preset's `vllm serve` alone; pvc://claim names no model id
    assert dep.model.id is None and [r.kind for r in dep.roles] == ["decode"]


RUNTIME = """\
apiVersion: production-stack.vllm.ai/v1alpha1
kind: VLLMRuntime
metadata:
  name: mistral
spec:
  model:
    modelURL: mistralai/Mistral-7B-Instruct-v0.3
    maxModelLen: 131072
    dtype: bfloat16
    maxNumSeqs: 32
  vllmConfig:
    enablePrefixCaching: true
    tensorParallelSize: 2
    gpuMemoryUtilization: "0.85"
    extraArgs: ["--kv-cache-dtype", "fp8"]
    v1: true
    env:
      - name: HF_HOME
        value: /data
  deploymentConfig:
    replicas: 3
    resources:
      gpu: "2"
    image:
      registry: docker.io
      name: vllm/vllm-openai:v0.11.0
"""


def test_vllm_runtime_fields_are_the_operators_vllm_serve_arguments():
    [dep] = adapt(RUNTIME).deployments
    [role] = dep.roles
    assert (dep.input_format, dep.display_name, dep.engine.name.value) == ("vllm-runtime", "mistral", "vllm")
    assert at(RUNTIME, dep.engine.name.source) == "VLLMRuntime"
    assert (dep.model.id.value, at(RUNTIME, dep.model.id.source)) == ("mistralai/Mistral-7B-Instruct-v0.3",
                                                                      "mistralai/Mistral-7B-Instruct-v0.3")
    assert (role.kind, role.replicas.value, at(RUNTIME, role.replicas.source)) == ("unified", 3, "3")
    ctx = role.context_length
    assert (ctx.value, ctx.source.line, ctx.source.col, at(RUNTIME, ctx.source)) == (131072, 8, 18, "131072")
    assert (role.parallelism.tp, at(RUNTIME, role.parallelism.tensor.source)) == (2, "2")
    assert (role.accelerators.count.value, at(RUNTIME, role.accelerators.count.source)) == (2, '"2"')
    assert role.accelerators.type is None  # gpuType is the device plugin's resource, not the device
    assert at(RUNTIME, role.kv_cache_dtype.source) == "fp8"
    mem = arg(role, "gpu_memory_utilization")
    assert (mem.value, at(RUNTIME, mem.source)) == (0.85, "0.85")
    assert (arg(role, "max_num_seqs").value, at(RUNTIME, arg(role, "max_num_seqs").source)) == (32, "32")
    assert (arg(role, "dtype").value, at(RUNTIME, arg(role, "dtype").source)) == ("bfloat16", "bfloat16")
    # Booleans: the key itself; the operator passes --no-enable-chunked-prefill when the field is absent.
    assert (arg(role, "enable_prefix_caching").value, at(RUNTIME, arg(role, "enable_prefix_caching").source)) == \
        (True, "enablePrefixCaching")
    chunked = arg(role, "enable_chunked_prefill")
    assert (chunked.value, at(RUNTIME, chunked.source)) == (False, "vllmConfig")
    assert (arg(role, "VLLM_USE_V1").value, at(RUNTIME, arg(role, "VLLM_USE_V1").source)) == ("1", "true")


def test_vllm_runtime_finding_points_at_max_model_len(tmp_path):
    path = tmp_path / "runtime.yaml"
    path.write_text(RUNTIME)
    result = run(["check", str(path), "--select", "CTX109"])
    assert result.code == 1
    assert result.out.startswith(f"{path}:8:18: CTX109 [error] 131,072 > 32,768 x 1 = 32,768: the unified context "
                                 "length 131,072 exceeds the model's trained positions")


@NEEDS_CORPUS
def test_vllm_runtime_corpus_sample_reports_its_missing_device_at_the_spec(in_repo):
    sample = "../shared/corpus/real/vllm-project__production-stack/" \
             "operator__config__samples__production-stack_v1alpha1_vllmruntime.yaml"
    result = run(["check", sample])
    assert (result.code, result.out) == (0, f"{sample}:11:3: CTX208 [info] KV pool of unified not declared and not "
                                            "derivable: no accelerator type (or available_kv_gib) is given (1 per replica, "
                                            "type unknown); holding one request of 4,096 tokens needs >= 21 (band "
                                            "19.9-23.5) GiB per GPU at TP 1 (L4 maybe, A10G maybe, L40S yes, A100-40GB yes, A100-SXM4-80GB "
                                            "yes, H100-SXM-80GB yes, H200 yes, B200 yes, MI300X yes); state the device "
                                            "(`default-accelerator:` in .ctxlint.yaml, a device or a glob of "
                                            "this file's path -> device: a VLLMRuntime's "
                                            "`deploymentConfig.nodeSelectorTerms` are not read for its device); "
                                            "capacity checks skip these roles "
                                            "(capacity-not-derivable)\n")


def test_vllm_runtime_odd_shapes_never_crash():
    head = "apiVersion: production-stack.vllm.ai/v1alpha1\nkind: VLLMRuntime\n"
    odd = ["spec: 3\n", "spec:\n  model: [x]\n  vllmConfig: 5\n  deploymentConfig: [1]\n",
           "spec:\n  model: {modelURL: [a], maxModelLen: '4096', maxNumSeqs: true}\n"
           "  vllmConfig: {extraArgs: {a: 1}, enableChunkedPrefill: [x], gpuMemoryUtilization: {}, env: 3}\n"
           "  lmCacheConfig: {enabled: true}\n  deploymentConfig: {replicas: -1, resources: {gpu: 1.5}}\n"]
    for text in odd:
        res = adapt(head + text)
        assert [d.input_format for d in res.deployments] in ([], ["vllm-runtime"])
    [dep] = adapt(head + odd[2]).deployments  # wrong-typed fields are not passed (the API server rejects them)
    [role] = dep.roles
    assert role.context_length is None and role.replicas is None and role.accelerators.count is None
    assert arg(role, "kv_transfer_config").value == {"kv_connector": "LMCacheConnector", "kv_role": "kv_both"}


@NEEDS_CORPUS
def test_llmd_deployer_override_without_sections_gets_the_charts_prefill_and_decode(in_repo):
    """pd-nixl.yaml is Helm values of the llm-d chart, whose ModelService template renders both sections."""
    from ctxlint.adapters import adapt_file
    from ctxlint.file_reader import read_path
    path = "../shared/corpus/real/llm-d__llm-d-deployer/quickstart__examples__pd-nixl__pd-nixl.yaml"
    [dep] = adapt_file(read_path(path)).deployments
    assert (dep.input_format, dep.engine.name.value, dep.model.id.value) == \
        ("helm-values", "vllm", "meta-llama/Llama-3.2-3B-Instruct")
    assert [(r.kind, r.role.source.line, r.role.source.col) for r in dep.roles] == [("prefill", 1, 1), ("decode", 1, 1)]
    assert [(r.replicas, r.accelerators.count, r.context_length) for r in dep.roles] == [(None, None, None)] * 2
