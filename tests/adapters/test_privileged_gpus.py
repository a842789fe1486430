"""A Kubernetes container with `securityContext.privileged: true` has every device node of its node, so every GPU
there, whatever its `nvidia.com/gpu` limit: "the expected behavior" (a maintainer in NVIDIA/k8s-device-plugin#161;
also #336, kubernetes/kubernetes#81256). The GPUs the engine sees are then at least the limit, how many is not
known: the parallelism checks (CTX204, CTX205) are not made on the limit. Modelled on the privileged vLLM pods of
the sweeps' repos (a `securityContext` beside `resources.limits`)."""
from __future__ import annotations

from ctxlint.engine import lint_text

POD = """apiVersion: v1
kind: Pod
metadata:
  name: vllm
spec:
  containers:
  - name: server
    image: vllm/vllm-openai:v0.8.5
    args: ["--model", "Qwen/Qwen2.5-7B-Instruct", "--tensor-parallel-size", "{tp}", "--max-model-len", "8192"]
    securityContext:
      privileged: {privileged}
    resources:
      limits:
        nvidia.com/gpu: 2
"""


def _rules(tp: int, privileged: str) -> list:
    return [(f.rule, f.line, f.column) for f in lint_text(POD.format(tp=tp, privileged=privileged), "pod.yaml")
            .findings if f.rule in ("CTX204", "CTX205")]


def test_a_privileged_containers_limit_is_not_the_gpus_it_sees():
    # TP 4 over a limit of 2: vLLM refuses it in an unprivileged container; a privileged one may see 4 or more
    assert _rules(4, "false") == [("CTX204", 9, 78)]
    assert _rules(4, "true") == []
    # `"true"` is no boolean: the API server refuses it, and the limit is read as before
    assert _rules(4, '"true"') == [("CTX204", 9, 78)]


# llama.cpp splits its layers (and their KV) over every GPU it sees (--split-mode layer, its default): in a privileged
# container that is every GPU of the node, so the limit's count is not the pipeline. Read at the limit, 131,072 cells
# of Llama-3.1-8B on one T4 were a CTX209 error and the audit's "KV does not fit" (llama_cells' T4 case).
LLAMA = """apiVersion: apps/v1
kind: Deployment
metadata: {{name: llama}}
spec:
  template:
    spec:
      containers:
      - name: server
        image: ghcr.io/ggml-org/llama.cpp:server-cuda-b6000
        args: ["-hf", "bartowski/Meta-Llama-3.1-8B-Instruct-GGUF:Q4_K_M", "-c", "131072", "-ngl", "99", "-fit", "off"{extra}]
        securityContext: {{privileged: {privileged}}}
        env: [{env}]
        resources:
          limits: {{nvidia.com/gpu: 1}}
      nodeSelector: {{nvidia.com/gpu.product: Tesla-T4}}
"""
PRIVILEGED_WHY = (
    "KV pool of unified not declared and not derivable: the device is stated (T4) but the container is privileged, "
    "so it sees every GPU of its node whatever its nvidia.com/gpu limit, and llama.cpp splits the layers over every "
    "GPU it sees (--split-mode layer, its default): how many is not known, and the pool per device depends on it; "
    "capacity checks skip these roles")


def _llama(privileged: str, extra: str = "", env: str = ""):
    from ctxlint.audit import build_audit

    report = lint_text(LLAMA.format(privileged=privileged, extra=extra, env=env), "llama.yaml")
    (row,) = build_audit(report).rows
    return [(f.rule, f.line, f.column, f.message) for f in report.findings], row.verdict


def test_a_privileged_llama_cpp_splits_over_gpus_not_counted():
    findings, verdict = _llama("true")
    assert findings == [("CTX208", 15, 46, PRIVILEGED_WHY)]  # at the device the pool per GPU depends on
    assert verdict == "unknown"
    # unprivileged, the limit is what it sees: one T4, which the stated cells overflow
    findings, verdict = _llama("false")
    assert [f[:3] for f in findings] == [("CTX209", 10, 82)] and verdict == "KV does not fit"


def test_what_a_privileged_llama_cpp_uses_when_it_is_known():
    # CUDA_VISIBLE_DEVICES names the GPUs it sees: one is one T4 again, two are a pipeline of two
    findings, verdict = _llama("true", env='{name: CUDA_VISIBLE_DEVICES, value: "0"}')
    assert [f[:3] for f in findings] == [("CTX209", 10, 82)] and verdict == "KV does not fit"
    findings, verdict = _llama("true", env='{name: CUDA_VISIBLE_DEVICES, value: "0,1"}')
    assert findings == [] and verdict == "fits"
    # --split-mode none keeps every layer on the main GPU, however many it sees
    findings, verdict = _llama("true", extra=', "-sm", "none"')
    assert [f[:3] for f in findings] == [("CTX209", 10, 82)] and verdict == "KV does not fit"
    # --tensor-split's equal shares name the GPUs it uses: a pipeline of two (as where no count is stated)
    findings, verdict = _llama("true", extra=', "-ts", "1,1"')
    assert findings == [] and verdict == "fits"
    # ids not known: still not counted
    findings, verdict = _llama("true", env="{name: CUDA_VISIBLE_DEVICES, value: $(GPUS)}")
    assert [f[0] for f in findings] == ["CTX208"] and verdict == "unknown"


def test_a_cuda_visible_devices_of_fewer_ids_than_the_limit_is_what_llama_cpp_splits_over():
    # unprivileged too: llama.cpp sees the GPUs CUDA_VISIBLE_DEVICES leaves it, not its limit's count. Read as a
    # pipeline of the limit's 2, this was a false CTX204 error ("needs 2 GPUs but a replica has 1") and "fits" for
    # 16 GiB of cells on the one T4 it uses
    from ctxlint.audit import build_audit

    def run(limit: int, ids: str):
        text = LLAMA.format(privileged="false", extra="", env=f'{{name: CUDA_VISIBLE_DEVICES, value: "{ids}"}}')
        report = lint_text(text.replace("nvidia.com/gpu: 1", f"nvidia.com/gpu: {limit}"), "llama.yaml")
        (row,) = build_audit(report).rows
        return [f[:3] for f in ((f.rule, f.line, f.column) for f in report.findings)], row.verdict

    assert run(2, "0") == ([("CTX209", 10, 82)], "KV does not fit")
    assert run(4, "0,1") == ([], "fits")  # a pipeline of the two it sees
    assert run(2, "0,1") == ([], "fits")  # as many as the limit: the limit's pipeline
