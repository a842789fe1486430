"""The calibration table against the engines' own boot logs (issue 11's acceptance figures)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import calibration  # noqa: E402

OUTCOMES = calibration.outcomes()
BY_ID = {o.id: o for o in OUTCOMES}
# Bands wider than +5% at the top, and why: the low end of vLLM V0 0.6.6's activation term reaches
# the forward buffers alone, because SkyPilot's documented DeepSeek-R1-Distill-Llama-8B on one L4
# (vLLM 0.6.6.post1, 4,096 tokens) cannot start under the one-log fit; a small budget (1.71 GiB)
# turns every term's band into a large relative one.
# sglang-0.4.3-qwq-32b-4xl4-tp4-pcie: what NCCL and the custom all-reduce take before the weights differs by ~1.6 GiB
# between NVLink groups and PCIe groups of more than two (mem_sglang.pcie_group); the band's top is the PCIe figure
WIDE_BANDS = {"vllm-v0-llama3-8b-a100-40gb", "vllm-gpt-oss-120b-h100-gmu0.95-mnbt1024",
              "sglang-0.4.3-qwq-32b-4xl4-tp4-pcie"}
# Known misses: the settings-alone point is more than 5% optimistic and the cause is not yet in the physics.
# vllm-0.30-qwen3-4b-5060ti-gmu0.9: the same host, image and model as the gmu0.7 case (estimated 18.7% low there)
# logged non-torch 0.95 GiB and a 0.71 GiB transient on a cold torch.compile run, against 0.25 and 0.15 on the
# cached one; a shared WSL2 host (the report's DEV-04), no engine rule found that separates the two runs.
# trtllm-0.19-llama3.1-8b-fp8-rtx5090-engine: the engine held 14.0 GiB before the KV cache (31.84 - 17.83), the
# point 12.1: the C++ runtime's I/O and decoder buffers for max_batch_size 2048 are allocated first
# (docs/source/reference/memory.md) and sit in the band (trt_warmup.RUNTIME_BYTES), not the point; their size per
# sequence is not known from the code, and the Suite.md rate per vocabulary entry would be 11 GiB here, not ~2.
# vllm-0.9-qwen2.5-vl-7b-l4-2k: +5.1% once the vision encoder's profile run is counted (physics/vllm_mm.py, a
# 16,384-token image of 65,536 patches: +66% without it); the rest is the weights, 15.63 GiB logged against 15.45
# counted (0.18 GiB, a tenth of this 1.81 GiB budget; with the logged weights the point is -4.9%).
# vllm-0.24-qwen2.5-7b-gb10-gmu0.25, vllm-0.24-qwen2.5-0.5b-gb10-gmu0.15-default: on GB10's unified memory vLLM's
# non-torch term (free memory lost beyond torch's own) took 1.2-2.8 GiB where discrete GPUs take 0.1-0.3, growing
# with the checkpoint read (14.19 GiB for the 7B); page cache counted as used is the likely cause, not confirmed
# in vLLM's code; the same launch varies by 2% between runs on that box.
KNOWN_MISSES = {"vllm-0.30-qwen3-4b-5060ti-gmu0.9", "trtllm-0.19-llama3.1-8b-fp8-rtx5090-engine",
                "vllm-0.9-qwen2.5-vl-7b-l4-2k", "vllm-0.24-qwen2.5-7b-gb10-gmu0.25",
                "vllm-0.24-qwen2.5-0.5b-gb10-gmu0.15-default"}


def test_there_are_enough_cases_across_engines():
    assert len(OUTCOMES) >= 64
    assert sum(1 for o in ESTIMATED if _unified_memory(o)) >= 5  # GB10 runs: the unified-memory rule is exercised
    assert {o.case["engine"] for o in OUTCOMES} >= {"vllm", "sglang", "tgi", "trtllm", "llamacpp"}


@pytest.mark.parametrize("outcome", [o for o in OUTCOMES if o.with_budget is not None], ids=lambda o: o.id)
def test_the_logged_budget_gives_the_engines_pool(outcome):
    limit = 0.015 if outcome.case.get("budget_is_one_rank") else 0.005
    assert abs(outcome.with_budget) <= limit, f"{outcome.with_budget:+.2%}"


ESTIMATED = [o for o in OUTCOMES if o.point is not None]


def _refused(outcome) -> bool:
    return outcome.compared == "KV GiB (absolute)"


@pytest.mark.parametrize("outcome", [o for o in ESTIMATED if not _refused(o) and o.id not in KNOWN_MISSES],
                         ids=lambda o: o.id)
def test_settings_alone_point_is_never_more_than_5_percent_optimistic(outcome):
    assert outcome.point <= 0.05, f"point {outcome.point:+.1%}"
    assert outcome.low <= outcome.point <= outcome.high


def _spans_releases(outcome) -> bool:
    return outcome.case["engine"] in ("vllm", "sglang") and not outcome.case.get("version")


def _unified_memory(outcome) -> bool:
    """A device whose CUDA total is a band because the host shares it (GB10): the band's top is the whole
    memory, the point the most the device gives (its catalog note)."""
    from ctxlint.physics.accelerators import lookup_accelerator

    device = lookup_accelerator(outcome.case["gpu"]) if outcome.case.get("gpu") else None
    return device is not None and "unified" in device.nominal


@pytest.mark.parametrize("outcome", [o for o in ESTIMATED if not _refused(o) and not _spans_releases(o)
                                     and not _unified_memory(o)], ids=lambda o: o.id)
def test_error_threshold_of_a_known_release_is_never_more_than_5_percent_optimistic(outcome):
    if outcome.id not in WIDE_BANDS | KNOWN_MISSES:
        assert outcome.high <= 0.05, f"band top {outcome.high:+.1%}"


@pytest.mark.parametrize("outcome", [o for o in ESTIMATED if not _refused(o) and _unified_memory(o)],
                         ids=lambda o: o.id)
def test_on_unified_memory_the_band_holds_the_engines_figure(outcome):
    # GB10: CUDA reports 121.63 GiB of 128 GB, varying with what the host holds; the band's top reaches the
    # whole memory, so it is wide by construction, and the engine's own figure must lie inside it
    assert outcome.low <= 0 <= outcome.high, f"band {outcome.low:+.1%} .. {outcome.high:+.1%}"


@pytest.mark.parametrize("outcome", [o for o in ESTIMATED if not _refused(o) and _spans_releases(o)],
                         ids=lambda o: o.id)
def test_an_unknown_release_spans_releases_and_holds_the_engines_figure(outcome):
    # The log does not say which release printed it: the band runs from the least any release leaves to
    # the most (releases.py; SGLang's automatic mem_fraction_static and reserve also differ by release,
    # mem_sglang), and the engine's own figure must lie inside it.
    assert outcome.low <= 0 <= outcome.high, f"band {outcome.low:+.1%} .. {outcome.high:+.1%}"
    assert "version unknown" in outcome.result.rule


# Logs of unknown release whose band top was held to the known-release bound before the unknown-release rule
# covered their engine (SGLang's, c44d84cc): the rule must not let them widen unseen.
HELD_BEFORE = {"sglang-qwen3-235b-fp8-4xh100-tp4"}


def test_an_unknown_sglang_release_keeps_the_bound_it_was_held_to():
    for case in HELD_BEFORE:
        o = BY_ID[case]
        assert _spans_releases(o) and o.high <= 0.05, f"{case}: band top {o.high:+.1%}"


def _refuses(r, which: str) -> bool:
    """vLLM refuses to start with no KV memory, or with less than one request of max_model_len."""
    budget = {"point": r.kv_budget_bytes_per_gpu, "high": r.kv_budget_high}[which]
    longest = {"point": r.max_context_at_concurrency_1, "high": r.max_context_high}[which]
    return budget < 0 or bool(r.context_length and longest is not None and longest < r.context_length)


@pytest.mark.parametrize("outcome", [o for o in ESTIMATED if _refused(o)], ids=lambda o: o.id)
def test_what_the_engine_refused_ctxlint_refuses(outcome):
    r = outcome.result
    assert outcome.case["logged"]["kv_gib"] < 0
    assert _refuses(r, "point"), "the point estimate must refuse (a warning at least)"
    if not _spans_releases(outcome):  # a known release: even the top of the band refuses (an error)
        assert _refuses(r, "high"), f"band top {r.kv_budget_high / calibration.GIB:.2f} GiB"


def test_a_setup_no_release_can_hold_is_an_error_even_at_an_unknown_version():
    # Llama-3.3-70B FP8 on one H100 at 16,000 tokens: 67.72 GiB of weights leave no release room for
    # one request, so the verdict does not depend on the image tag.
    r = BY_ID["vllm-llama3.3-70b-fp8-h100-tp1-refuses"].result
    assert _refuses(r, "high") and "vLLM version unknown" in r.rule


def test_median_absolute_error_from_settings_alone():
    assert calibration.median_abs_error(OUTCOMES) <= 0.10
    assert sum(1 for o in OUTCOMES if o.point is not None) >= 48


def test_wide_bands_are_still_wide():
    # the exceptions above must stay exceptions, not grow silently
    for case in WIDE_BANDS:
        assert BY_ID[case].high > 0.05


def test_known_misses_are_still_misses_and_still_in_their_band_or_above():
    # a known miss leaves the list when the physics catches it: this fails first, so it is not kept silently
    for case in KNOWN_MISSES:
        o = BY_ID[case]
        assert o.point > 0.05, f"{case} now within 5% ({o.point:+.1%}): drop it from KNOWN_MISSES"
        assert o.low <= o.point <= o.high


def test_the_pytorch_backends_0_20_log_is_not_read_as_a_compiled_engine():
    # NVIDIA/TensorRT-LLM#6294's 0.20.0 log is the PyTorch backend's (its autotuner, "generation only CUDA graph
    # warmup" for 24 batch sizes, "Rank 0 uses 8.46 GB for model weights" from the Hugging Face checkpoint); a 0.20
    # row without `backend` is a compiled TensorRT engine since physics/trt_warmup.runs_engine reads the release's
    # default, so the row states its backend
    from ctxlint.physics.trt_warmup import runs_engine

    case = BY_ID["trtllm-0.20-llama3.1-8b-fp8-h100-max-tokens"].case
    assert case["settings"]["backend"] == "pytorch"
    assert not runs_engine(case["settings"], case["version"])


def test_the_ray_serve_runs_name_the_h100_their_sources_name():
    # anyscale/ray-serve-llm-perf-examples@04ba8ab4: replica_initialization/README.md runs on a p5.48xlarge (8 x
    # H100), service.py asks for accelerator_type H100, and the Qwen3-235B log loads the fused-MoE config of
    # device_name=NVIDIA_H100_80GB_HBM3; they stay budget-only for the build and the unlogged memory fraction
    for case in ("vllm-dev-llama3-70b-tp4-anyscale", "vllm-dev-qwen3-235b-tp8-anyscale"):
        assert BY_ID[case].case.get("gpu") == "H100-SXM-80GB" and BY_ID[case].case["from_settings"] is False
