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
