"""OME (ome.io): runtimes with engine/decoder/router configs, InferenceServices and base models."""
from __future__ import annotations

from tests.adapters.kit import adapt, arg, at

OME = """\
apiVersion: ome.io/v1beta1
kind: ClusterBaseModel
metadata:
  name: deepseek-v3
spec:
  storage:
    storageUri: hf://deepseek-ai/DeepSeek-V3
    path: /raid/models/deepseek-v3
---
apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: srt-ds-pd
spec:
  engineConfig:
    nodeSelector:
      nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3
    leader:
      runner:
        name: ome-container
        image: docker.io/lmsysorg/sglang:v0.5.5
        command: ["python3", "-m", "sglang.launch_server", "--model-path", "$(MODEL_PATH)",
                  "--disaggregation-mode", "prefill", "--tp-size", "$(PARALLELISM_SIZE)",
                  "--nnodes", "$(LWS_GROUP_SIZE)", "--node-rank", "$(LWS_WORKER_INDEX)",
                  "--max-total-tokens", "131072"]
        resources:
          limits:
            nvidia.com/gpu: 8
    worker:
      size: 1
      runner:
        name: ome-container
        image: docker.io/lmsysorg/sglang:v0.5.5
        command: ["python3", "-m", "sglang.launch_server", "--model-path", "$(MODEL_PATH)"]
        resources:
          limits:
            nvidia.com/gpu: 8
  decoderConfig:
    runner:
      name: ome-container
      image: docker.io/lmsysorg/sglang:v0.5.5
      command: ["python3", "-m", "sglang.launch_server", "--model-path", "$(MODEL_PATH)", "--tp-size", "8"]
      resources:
        limits:
          nvidia.com/gpu: 8
  routerConfig:
    runner:
      name: router
      image: docker.io/lmsysorg/sglang-router:v0.2.4
      command: ["python3", "-m", "sglang_router.launch_router", "--pd-disaggregation"]
---
apiVersion: ome.io/v1beta1
kind: InferenceService
metadata:
  name: ds
spec:
  model:
    name: deepseek-v3
  runtime:
    name: srt-ds-pd
  engine:
    minReplicas: 2
  decoder:
    minReplicas: 3
    runner:
      args: ["--context-length", "32768"]
"""


def test_ome_inference_service_over_its_pd_runtime():
    res = adapt(OME)
    [dep] = res.deployments
    assert (dep.input_format, dep.display_name, dep.engine.name.value, dep.engine.version.value) == \
        ("ome", "ds/engine + ds/decoder", "sglang", "0.5.5")
    assert (dep.model.id.value, dep.model.id.source.line, at(OME, dep.model.id.source)) == \
        ("deepseek-ai/DeepSeek-V3", 7, "hf://deepseek-ai/DeepSeek-V3")
    prefill, decode = dep.roles
    assert (prefill.kind, decode.kind) == ("prefill", "decode")
    pool = prefill.kv_pool_tokens
    assert (pool.value, pool.source.line, at(OME, pool.source)) == (131072, 25, "131072")
    # PARALLELISM_SIZE = 8 GPUs x (leader + 1 worker); one instance spans both pods
    assert (prefill.parallelism.tp, prefill.accelerators.count.value, prefill.accelerators.type.value) == \
        (16, 16, "H100-SXM-80GB")
    assert (prefill.replicas.value, at(OME, prefill.replicas.source)) == (2, "2")
    assert (decode.replicas.value, decode.parallelism.tp, decode.accelerators.count.value) == (3, 8, 8)
    # the isvc's decoder runner args are merged over the runtime's runner
    ctx = decode.context_length
    assert (ctx.value, ctx.source.line, at(OME, ctx.source)) == (32768, 66, "32768")
    assert (at(OME, decode.role.source), decode.role.source.line) == ("decoder", 63)
    assert arg(prefill, "model_path").value == "/raid/models/deepseek-v3"  # MODEL_PATH from the base model
    assert [d for d in res.diagnostics if d.kind == "unresolved-value"] == []


def test_ome_runtime_alone_is_one_deployment_without_a_model():
    runtime = OME.split("---\n")[1]
    res = adapt(runtime)
    [dep] = res.deployments
    assert (dep.display_name, dep.model.id, [r.kind for r in dep.roles]) == \
        ("srt-ds-pd", None, ["prefill", "decode"])
    assert dep.roles[0].replicas is None
    [note] = [d for d in res.diagnostics if d.kind == "unresolved-value"]
    assert "--model-path $(MODEL_PATH)" in note.message and note.source.line == 13


def test_ome_older_runtime_shape_and_isvc_without_its_runtime():
    text = """\
    apiVersion: ome.io/v1beta1
    kind: ServingRuntime
    metadata: {name: vllm-rt}
    spec:
      containers:
        - name: ome-container
          image: vllm/vllm-openai:v0.9.0
          args: ["--model", "meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "65536"]
          resources: {limits: {nvidia.com/gpu: 1}}
    ---
    apiVersion: ome.io/v1beta1
    kind: InferenceService
    metadata: {name: other}
    spec: {model: {name: m}, runtime: {name: elsewhere}}
    """
    [dep] = adapt(text).deployments
    assert (dep.display_name, dep.engine.name.value, dep.model.id.value, dep.roles[0].context_length.value) == \
        ("vllm-rt", "vllm", "meta-llama/Llama-3.1-8B-Instruct", 65536)


def test_ome_bad_shapes_never_crash():
    odd = """\
    apiVersion: ome.io/v1beta1
    kind: ClusterServingRuntime
    metadata: {name: [x]}
    spec: {engineConfig: {leader: 3, worker: {size: many}, runner: [1]}, decoderConfig: "no"}
    ---
    apiVersion: ome.io/v1beta1
    kind: InferenceService
    metadata: {name: i}
    spec: {model: 5, runtime: {name: [x]}, engine: [1]}
    ---
    apiVersion: ome.io/v1beta1
    kind: ClusterBaseModel
    metadata: {name: b}
    spec: {storage: "hf://x"}
    ---
    apiVersion: ome.io/v1beta1
    kind: InferenceService
    spec: [1]
    """
    res = adapt(odd)
    # the one shape OME's CRD refuses that ctxlint says: a runtime name that is no string (CTX002)
    assert res.deployments == []
    assert [(d.kind, d.source.line, d.source.col, d.message) for d in res.diagnostics] == [
        ("schema-violation", 9, 34, "the Kubernetes API server refuses InferenceService i: OME's CRD takes "
         "`spec.runtime` as a mapping with a string `name` (the runtime's; `kind` and `apiGroup` optional), and "
         "`spec.runtime.name` is a list")]
