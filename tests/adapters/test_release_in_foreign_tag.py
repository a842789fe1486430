"""An image named for something else whose tag states the engine's release after the engine's name
(`mooncake:0.3.7.post2-sglang0.5.5.post3-deepep`) runs that release: before, its release was unknown and a flag
only SGLang 0.5.20 drops was a warning (three on AliyunContainerService/ai-models-on-ack:
llm/sglang/sglang-pd-qwen3-235b.yaml, a RoleBasedGroup whose prefill and decode pods run that image)."""
from __future__ import annotations

import pytest

from tests.adapters.kit import adapt, at

# Modelled on the Aliyun file's prefill role: SGLang started by its command, on a Mooncake build of SGLang.
POD = """\
apiVersion: v1
kind: Pod
metadata: {{name: sglang-prefill}}
spec:
  containers:
    - name: sglang-prefill
      image: registry.example.com/evaluate/mooncake:{tag}
      command: [python3, -m, sglang.launch_server, --model-path, Qwen/Qwen3-8B, --tp-size, "1",
                --cuda-graph-max-bs, "128"]
      resources: {{limits: {{nvidia.com/gpu: "1"}}}}
"""
AMBIGUOUS = ("sglang 0.5.20{when} would refuse to start: ambiguous option: --cuda-graph-max-bs could match "
             "--cuda-graph-max-bs-decode, --cuda-graph-max-bs-prefill (dropped in 0.5.20: write "
             "--cuda-graph-max-bs-decode 128)")


def _refusals(text):
    return [d for d in adapt(text, "pod.yaml").diagnostics if d.kind == "engine-rejects-value"]


def test_the_release_after_the_engines_name_is_the_one_run_and_points_at_the_tag():
    text = POD.format(tag="0.3.7.post2-sglang0.5.5.post3-deepep")
    [dep] = adapt(text, "pod.yaml").deployments
    assert dep.engine.version.value == "0.5.5.post3"
    assert at(text, dep.engine.version.source) == "0.3.7.post2-sglang0.5.5.post3-deepep"
    assert not _refusals(text)  # 0.5.5.post3 still takes --cuda-graph-max-bs


def test_a_tag_stating_a_release_that_refuses_the_flag_an_error():
    [refusal] = _refusals(POD.format(tag="0.3.8-sglang0.5.20"))
    assert (refusal.message, refusal.severity) == (AMBIGUOUS.format(when=""), None)


@pytest.mark.parametrize("tag", ["0.3.7.post2-deepep", "0.3.7-vllm0.10.0", "v${SGLANG}-sglang"])
def test_a_tag_naming_no_release_of_this_engine_leaves_it_unknown(tag):
    """Mooncake's own number, another engine's release, or a variable: the release stays unknown, a warning."""
    text = POD.format(tag=tag)
    assert adapt(text, "pod.yaml").deployments[0].engine.version is None
    [refusal] = _refusals(text)
    assert refusal.severity == "warning"
    assert refusal.message.startswith(AMBIGUOUS.format(when=" and later"))


def test_release_named_in_tag():
    from ctxlint.engines.images import release_named_in_tag

    assert release_named_in_tag("sglang", "mooncake:0.3.7.post2-sglang0.5.5.post3-deepep") == "0.5.5.post3"
    assert release_named_in_tag("vllm", "me/runtime:cu128_vllm_0.8.5_20250513") == "0.8.5"
    assert release_named_in_tag("vllm", "me/runtime:0.8.5") is None  # a number alone is the image's own
    assert release_named_in_tag("vllm", "me/sglang0.5.5:latest") is None  # only the tag counts
    assert release_named_in_tag("tgi", "me/runtime:tgi2.0.0") is None  # TGI's DLC tags are read apart (images.py)
    assert release_named_in_tag("vllm", None) is None
