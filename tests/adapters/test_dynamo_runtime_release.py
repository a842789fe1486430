"""A Dynamo runtime image names the engine release Dynamo lists for its tag (engines/dynamo_images.py), and the
physics and rules read it as they read the engine's own image of that release.

The srt-slurm recipe is V4 of test_srt_dsv4 (after NVIDIA/srt-slurm-recipes recipes/multi-node/DeepSeek-V4-Pro/GB300/
8k1k/sglang/disagg/disagg-10p1d-dep4-dep16.yaml) on a Dynamo SGLang runtime image, as the recipes of that repository
under recipes/multi-node/DeepSeek-V4-Pro/*/sglang run `nvcr.io/nvidia/ai-dynamo/sglang-runtime:...`. The graph is
written after ai-dynamo/dynamo's recipes/llama-3-70b/vllm/agg/deploy.yaml (a worker on vllm-runtime:1.0.0)."""
from __future__ import annotations

import json

from helpers import run
from tests.adapters.kit import adapt
from tests.adapters.test_srt_dsv4 import V4

NIGHTLY = "lmsysorg/sglang:nightly-dev-cu13-20260520-425dffbd"
DEV_1_3_0 = "nvcr.io/nvidia/ai-dynamo/sglang-runtime:1.3.0-dev.1-cuda13"  # SGLang 0.5.12.post1
V4_PREVIEW = "nvcr.io/nvidia/ai-dynamo/sglang-runtime:1.2.0-sglang-deepseek-v4-b200-dev.1"  # listed nowhere


def _audit(tmp_path, text):
    path = tmp_path / "v4.yaml"
    path.write_text(text)
    [dep] = json.loads(run(["audit", "--isolated", "--format", "json", str(path)]).out)["deployments"]
    pools = [(dep[k] or {}).get("tokens") for k in ("prefill_pool", "decode_pool")]
    return dep["engine_version"], pools, dep["verdict"], dep["why_unknown"]


def test_a_listed_runtime_tag_is_its_sglang_release_at_the_container():
    [dep] = adapt(V4.replace(NIGHTLY, DEV_1_3_0), "v4.yaml").deployments
    version = dep.engine.version
    assert (version.value, version.raw, version.source.line, version.source.col) == ("0.5.12.post1", DEV_1_3_0, 5, 14)
    assert dep.engine.build is None


def test_the_v4_pool_is_the_plain_images_of_that_release(tmp_path):
    # the same numbers as lmsysorg/sglang:v0.5.12.post1, whose sizing counts the 62 compress_ratios entries
    plain = _audit(tmp_path, V4.replace(NIGHTLY, "lmsysorg/sglang:v0.5.12.post1"))
    assert plain == ("0.5.12.post1", [2887680, 22796032], "fits", None)
    assert _audit(tmp_path, V4.replace(NIGHTLY, DEV_1_3_0)) == plain


def test_a_release_the_v4_sizing_was_not_read_for_stays_unknown(tmp_path):
    # sglang-runtime:1.2.1 is SGLang 0.5.11: named now, and as lmsysorg/sglang:v0.5.11 its V4 pool is not modelled
    version, pools, verdict, why = _audit(tmp_path, V4.replace(NIGHTLY, "nvcr.io/nvidia/ai-dynamo/sglang-runtime:1.2.1"))
    assert (version, pools, verdict) == ("0.5.11", [None, None], "unknown")
    assert why.startswith("deepseek-ai/DeepSeek-V4-Pro: DeepSeek-V4's compressed attention is sized on SGLang as the "
                          "releases read size it; here SGLang 0.5.11: its DeepSeek-V4 pool sizing was not read")


def test_an_unlisted_dev_tag_names_no_release(tmp_path):
    version, pools, verdict, why = _audit(tmp_path, V4.replace(NIGHTLY, V4_PREVIEW))
    assert (version, pools, verdict) == ("", [None, None], "unknown")
    assert "here the SGLang release is not named (an image tag or version would name it)" in why


def test_identity_frameworks_comes_before_the_image():
    text = V4.replace(NIGHTLY, DEV_1_3_0).replace('name: "v4-pro-pd"\n',
                                                  'name: "v4-pro-pd"\nidentity:\n  frameworks:\n    sglang: "0.5.13"\n')
    [dep] = adapt(text, "v4.yaml").deployments
    assert (dep.engine.version.value, dep.engine.version.raw) == ("0.5.13", "identity.frameworks.sglang")


GRAPH = """\
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata:
  name: agg
spec:
  services:
    Frontend:
      componentType: frontend
      extraPodSpec:
        mainContainer:
          image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.1.1
    VllmDecodeWorker:
      componentType: worker
      replicas: 1
      resources:
        limits:
          gpu: "1"
      extraPodSpec:
        mainContainer:
          image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:{tag}
          command: [python3, -m, dynamo.vllm]
          args: [--model, Qwen/Qwen3-0.6B, --max-seq-len-to-capture, "8192"]
"""
_DROPPED = ("unrecognized arguments: --max-seq-len-to-capture (dropped in 0.11.0: remove it; V1 captures CUDA graphs "
            "by batch size, --max-cudagraph-capture-size)")


def _refusals(tmp_path, tag):
    path = tmp_path / "graph.yaml"
    path.write_text(GRAPH.format(tag=tag))
    out = run(["check", "--isolated", str(path)]).out.replace(str(path), "graph.yaml")
    return [line for line in out.splitlines() if "CTX301" in line]


def test_a_graph_on_a_listed_tag_is_refused_by_its_release(tmp_path):
    # vllm-runtime:1.1.1 is vLLM 0.19.0, which has no --max-seq-len-to-capture: an error, as on vllm/vllm-openai:v0.19.0
    assert _refusals(tmp_path, "1.1.1") == [
        f"graph.yaml:22:44: CTX301 [error] vllm 0.19.0 would refuse to start: {_DROPPED} (engine-rejects-value)"]
    [dep] = adapt(GRAPH.format(tag="1.1.1")).deployments
    version = dep.engine.version
    assert (version.value, version.source.line, version.source.col, version.source.end_col) == ("0.19.0", 20, 56, 61)


def test_a_graph_on_a_dev_tag_keeps_the_warning(tmp_path):
    image = "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.3.0-nemotron-super-dev.1"
    assert _refusals(tmp_path, "1.3.0-nemotron-super-dev.1") == [
        f"graph.yaml:22:44: CTX301 [warning] vllm 0.11.0 and later would refuse to start: {_DROPPED}. Which "
        f"vllm release runs is unknown: {image} is a Dynamo runtime image whose tag is not one Dynamo's release pages "
        "list with the vllm release it holds (engines/dynamo_images.py); a release before 0.11.0 takes it, so this is "
        "a warning (the image's vllm version says which; with that release pinned ctxlint can tell) "
        "(engine-rejects-value)"]


def test_compose_and_docker_run_read_the_runtime_tag(tmp_path):
    # a compose service and a `docker run` of Dynamo workers (after ai-dynamo/dynamo's container/run.sh usage)
    compose = tmp_path / "compose.yaml"
    compose.write_text("services:\n  worker:\n    image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.1.1\n"
                       "    command: python3 -m dynamo.vllm --model Qwen/Qwen3-0.6B --max-seq-len-to-capture 8192\n")
    script = tmp_path / "run.sh"
    script.write_text("#!/bin/bash\ndocker run --gpus all nvcr.io/nvidia/ai-dynamo/sglang-runtime:1.0.0 python3 -m "
                      "dynamo.sglang --model-path Qwen/Qwen3-0.6B --prefill-round-robin-balance\n")
    out = run(["check", "--isolated", str(compose), str(script)]).out.replace(str(tmp_path) + "/", "")
    # vLLM 0.19.0 refuses the dropped flag; SGLang 0.5.9 (sglang-runtime:1.0.0) still takes --prefill-round-robin-balance
    assert [line for line in out.splitlines() if "CTX301" in line] == [
        f"compose.yaml:4:61: CTX301 [error] vllm 0.19.0 would refuse to start: {_DROPPED} (engine-rejects-value)"]
