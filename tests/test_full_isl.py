"""vLLM 0.19.x's admission check (scheduler_reserve_full_isl, on by default) reserves cdiv(length, block_size)
blocks in every KV cache group, sliding-window groups too (`can_fit_full_sequence`,
vllm-project/vllm@v0.19.0:vllm/v1/core/kv_cache_manager.py), so one request of a model with window layers
holds about (num_blocks - 1) // groups blocks, while its startup check counts the window layers only up to
their window: vLLM starts with a longer context and a request that long waits forever (vllm#39734:
google/gemma-4-31B-it, TP 2 on 2x H100, "Using max model len 262144", "GPU KV cache size: 76,640 tokens").
The derived pool follows it (ctxlint.physics.logged_eras.reserves_whole), an unknown release reads 0.19 as one
of its releases (a band, not a verdict), and the messages say the engine starts and the request hangs.

The log's figure and the held request are different quantities: 0.19 prints num_blocks // groups x the smallest
block size (16), 82,896 tokens here against the logged 76,640 (+8.2%, about 2.9 GiB of KV budget per GPU, just
below the band's low end), while one request holds more, 90,432: at TP 2 a full-attention layer's token is half a
window layer's (2 x 512 against 8 x 256), so with one page size for every group (physics.kv.vllm_groups, after
vLLM's _get_kv_cache_groups_uniform_page_size) that group's block holds 32 tokens, and the admission check counts
cdiv(length, 32) blocks there. What the 8.2% is (the vision tower's profile run,
not modelled for Gemma 4, or the tower held whole on each rank) needs the log's "Model loading took" and
"Available KV cache memory" lines, which the issue's excerpts do not hold: not fitted here.
"""
from __future__ import annotations

from helpers import run

from ctxlint.physics.capacity import CapacityInput, compute
from ctxlint.physics.models import lookup_model

GEMMA4 = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: gemma4{annotations}
spec:
  replicas: 1
  template:
    spec:
      nodeSelector:
        nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3
      containers:
        - name: vllm
          image: vllm/vllm-openai:{tag}
          command: ["vllm", "serve", "google/gemma-4-31B-it", "--tensor-parallel-size", "2"{args}]
          resources:
            limits:
              nvidia.com/gpu: 2
"""
HANGS = ("vLLM starts (its startup check counts the window layers only up to their window), and a request longer "
         "than {held} tokens is never admitted: vLLM 0.19's admission check (scheduler_reserve_full_isl) reserves "
         "every KV cache group for the whole request, so it waits at the head of the queue while health checks pass "
         "(vllm#39734; --no-scheduler-reserve-full-isl or vLLM 0.20 admits it)")


def _check(tmp_path, tag="v0.19.0", args="", annotations=""):
    path = tmp_path / "gemma4.yaml"
    path.write_text(GEMMA4.format(tag=tag, args=args, annotations=annotations))
    return run(["check", "--isolated", "--select", "CTX1,CTX2", str(path)]).out


def _estimate(version, settings=None):
    return compute(CapacityInput(arch=lookup_model("google/gemma-4-31B-it"), engine="vllm", accelerator="H100",
                                 accelerator_count=2, tp=2, engine_version=version, settings=settings or {},
                                 context_length=262144))


def test_the_derived_pool_of_0_19_holds_what_its_admission_check_admits():
    # 1 full-attention group and 5 sliding-window groups of 10 layers: every group reserves the whole request
    isl, before, after = _estimate("0.19.0"), _estimate("0.18.0"), _estimate("0.19.0", {
        "scheduler_reserve_full_isl": False})
    assert isl.pool_tokens == before.pool_tokens == after.pool_tokens == 994_768
    assert (isl.max_context_at_concurrency_1, isl.fits) == (90_432, False)
    assert (before.max_context_at_concurrency_1, after.max_context_at_concurrency_1) == (963_872, 963_872)
    assert isl.admission_starts is not None and isl.admission_starts >= 262_144  # vLLM starts
    assert before.admission_starts is None and after.admission_starts is None
    # the hybrid manager off: the window layers store the whole context, no admission rule of their own
    whole = _estimate("0.19.0", {"disable_hybrid_kv_cache_manager": True})
    assert whole.admission_starts is None


def test_0_19_is_an_error_that_says_vllm_starts_and_the_request_hangs(tmp_path):
    out = _check(tmp_path)
    assert "CTX201 [error] 262,144 > 92,704: the unified engine context length 262,144" in out
    assert "904,320 for the sliding-window layers, which vLLM 0.19's admission check reserves for the whole " \
           "request" in out
    assert HANGS.format(held="92,704") in out and "refuses to start" not in out
    assert "Set --max-model-len 90,432 (or less)" in out
    # the admission check turned off: what 0.18 and 0.20 admit, no finding
    assert _check(tmp_path, args=', "--no-scheduler-reserve-full-isl"') == ""
    assert _check(tmp_path, tag="v0.20.1") == ""


def test_an_unknown_release_reads_0_19_as_one_of_its_releases(tmp_path):
    folded = _estimate(None)
    assert folded.max_context_at_concurrency_1 == 90_432 < 262_144 <= folded.max_context_high
    assert folded.admission_starts is None  # not every release it may be hangs the request
    out = _check(tmp_path, tag="latest")
    # 0.34.0 (the extensible KV cache) in the fold raises the top from 1,022,624 (in its 64-token blocks)
    assert "CTX210 [warning] 262,144 is inside the estimated band 83,952-1,125,312" in out
    assert "CTX201" not in out


def test_an_advertised_window_says_the_request_hangs(tmp_path):
    out = _check(tmp_path, annotations='\n  annotations:\n    ctxlint.io/context-window: "200000"')
    assert "CTX101 [error] 200,000 > 92,704: the longest request (the advertised window 200,000) exceeds" in out
    assert f"by 107,296 tokens; {HANGS.format(held='92,704')}. Raise the unified pool to at least 2,200,242" in out


def test_a_logged_pool_of_0_19_says_the_request_hangs(tmp_path):
    # Gemma-4's full layers have their own page size; 0.19's figure is num_blocks // 6 groups x 16 all the same
    out = _check(tmp_path, annotations='\n  annotations:\n    ctxlint.io/kv-pool-tokens: "76640"')
    assert "CTX201 [error] 262,144 > 76,640: " in out
    assert "0.19.0: num_blocks // 6 groups x 16, so 28,740-28,745 blocks" in out
    assert HANGS.format(held="76,640") in out and "refuses to start" not in out


def test_the_point_and_its_reserve_add_up(tmp_path):
    # 994,768 - 16 - 30,880 = 963,872: the point's own figures; the band's top said apart
    out = _check(tmp_path, tag="v0.20.1", annotations='\n  annotations:\n    ctxlint.io/context-window: "2000000"')
    assert ("which holds 987,040 tokens for one request at the estimate's point (of its 1,017,936: one 16-token "
            "block is vLLM's null block; 30,880 for the sliding-window layers) and at most 1,022,624 at the top of its "
            "band, by 977,376 tokens") in out
