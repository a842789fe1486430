"""The searches' shortcuts give exactly what the plain searches give: CTX208's memory search
(physics/need_search.py) and the suggested memory fraction (physics/suggest.py)."""
from __future__ import annotations

import json

import pytest
from conftest import SHARED
from helpers import run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctxlint.physics import need_search, needs
from ctxlint.physics.accelerators import accelerator_from_mapping
from ctxlint.physics.capacity import CapacityInput, compute
from ctxlint.physics.models import lookup_model
from ctxlint.physics.need_search import CELLS, PiecewiseFits, bisect, gib_at, monotone_tiers, pieces
from ctxlint.physics.needs import _longest
from ctxlint.physics.releases import VLLM_RELEASES
from ctxlint.records import replace


def _bytes(gib: float) -> float:
    return float(accelerator_from_mapping("candidate", {"memory_gib": gib}).memory_bytes)


def _both(longest, context, ranges):
    """(plain bisection, shortcut) over the same figures; and how many figures the shortcut read."""
    read = set()

    def counted(k):
        read.add(k)
        return longest(k)

    plain = bisect(lambda gib: longest(need_search._index(gib)) >= context)
    return plain, bisect(PiecewiseFits(counted, context, ranges)), len(read)


@st.composite
def rising_by_tier(draw):
    """Figures that rise within each tier, with steps, a clamp at 0 and jumps (either way) at tiers."""
    cuts = sorted(draw(st.sets(st.integers(2, CELLS), max_size=3)))
    ranges = list(zip([1] + cuts, [c - 1 for c in cuts] + [CELLS]))
    shapes = [(draw(st.integers(-50_000, 50_000)), draw(st.integers(0, 3_000)), draw(st.sampled_from([1, 16, 64])))
              for _ in ranges]

    def longest(k):
        tier = sum(1 for c in cuts if k >= c)
        offset, slope, block = shapes[tier]
        return max(0, (offset + slope * k) // block * block)
    return longest, ranges, draw(st.integers(1, 200_000))


@given(rising_by_tier())
@settings(max_examples=400, deadline=None)
def test_shortcut_equals_bisection_on_figures_that_rise_by_tier(case):
    longest, ranges, context = case
    plain, fast, _ = _both(longest, context, ranges)
    assert fast == plain


def test_grid_points_are_the_bisections_mids():
    low, high, seen = 1.0, 2048.0, []
    while high - low > 0.1:
        mid = (low + high) / 2
        seen.append(mid)
        low, high = (low, mid) if len(seen) % 3 else (mid, high)
    assert all(gib_at(need_search._index(mid)) == mid for mid in seen)


MODELS = ["meta-llama/Llama-3.1-8B-Instruct", "openai/gpt-oss-120b", "deepseek-ai/DeepSeek-V3",
          "google/gemma-3-27b-it", "Qwen/Qwen3-235B-A22B", "mistralai/Mistral-7B-Instruct-v0.3",
          "meta-llama/Llama-4-Scout-17B-16E-Instruct"]


@st.composite
def estimates(draw):
    engine = draw(st.sampled_from(["vllm", "vllm", "trtllm"]))
    options = {
        "gpu_memory_utilization": st.sampled_from([0.5, 0.85, 0.95, 1]),
        "max_num_batched_tokens": st.sampled_from([512, 8192, 32768]),
        "max_num_seqs": st.sampled_from([16, 512]),
        "enforce_eager": st.just(True),
        "VLLM_USE_V1": st.just("0"),
        "enable_chunked_prefill": st.booleans(),
        "kv_transfer_config": st.just({"kv_connector": "x"}),
        "distributed_executor_backend": st.just("ray"),
        "block_size": st.sampled_from([16, 32]),
        "kv_cache_free_gpu_memory_fraction": st.sampled_from([0.5, 0.9]),
        "max_num_tokens": st.sampled_from([2048, 16384]),
        "max_tokens": st.sampled_from([65536, 1_000_000]),
        "max_gpu_total_bytes": st.sampled_from([20 << 30, 200 << 30]),
    }
    chosen = draw(st.sets(st.sampled_from(sorted(options)), max_size=4))
    return dict(
        arch=lookup_model(draw(st.sampled_from(MODELS))), engine=engine,
        tp=draw(st.sampled_from([1, 2, 4, 8])), pp=draw(st.sampled_from([1, 1, 2])),
        kv_cache_dtype=draw(st.sampled_from(["auto", "fp8"])),
        settings={key: draw(options[key]) for key in sorted(chosen)},
        context_length=draw(st.sampled_from([2048, 8192, 32768, 131072, 1_000_000])),
        engine_version=draw(st.sampled_from([None, None, "0.6.3", "0.7.2", *VLLM_RELEASES])))


@given(estimates(), st.sampled_from(["point", "low", "high"]))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_shortcut_equals_bisection_on_the_physics(fields, which):
    # The shortcut relies on each engine's figures rising with the memory between the tiers
    # monotone_tiers names: checked here against the real estimates, at every grid point a
    # plain bisection probes.
    tiers = monotone_tiers(fields["engine"], fields["settings"], fields["arch"])
    assert tiers is not None
    context = fields["context_length"]
    figures: dict = {}

    def longest(k):
        if k not in figures:
            acc = accelerator_from_mapping("candidate", {"memory_gib": gib_at(k)})
            figures[k] = _longest(compute(CapacityInput(accelerator=acc, **fields)), which)
        return figures[k]

    plain, fast, _ = _both(longest, context, pieces(tiers, _bytes))
    assert fast == plain


@given(estimates(), st.sampled_from([16.0, 24.0, 40.0, 80.0, 141.0, 192.0]))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_suggested_fraction_by_bisection_equals_the_scan(fields, gib):
    from ctxlint.physics import suggest

    fields = dict(fields, engine="vllm")
    inp = CapacityInput(accelerator=accelerator_from_mapping("candidate", {"memory_gib": gib}), **fields)
    settings_ = dict(fields["settings"])
    knob = "gpu_memory_utilization"
    scan = next((step / 100 for step in range(50, 96)
                 if suggest._fits(replace(inp, settings={**settings_, knob: step / 100}))[0]), None)
    assert suggest._least_fraction(inp, settings_, knob, 50, 95) == scan


def test_tiers_split_the_grid_at_the_device_memory_they_name():
    ranges = pieces((70 << 30, 160 << 30), _bytes)
    assert [a for a, _ in ranges] == [1, 1105, 2546] and ranges[-1][1] == CELLS
    assert _bytes(gib_at(1104)) < 70 << 30 <= _bytes(gib_at(1105))
    assert monotone_tiers("vllm", {"gpu_memory_utilization": 0}) is None
    assert monotone_tiers("trtllm", {"free_gpu_memory_fraction": "0.9"}) is None
    assert monotone_tiers("sglang", {}) is None


@pytest.mark.skipif(not (SHARED / "corpus" / "real").is_dir(), reason="../shared/corpus/real is not beside the repo")
def test_check_reports_the_same_needs_with_the_plain_search(monkeypatch):
    args = ["check", str(SHARED / "corpus" / "real"), "--format", "json", "--fail-on", "never", "--select", "CTX208"]
    needs._NEEDS.clear()  # each run searches again (the answers are remembered by role)
    fast = json.loads(run(args).out)
    asked = []
    monkeypatch.setattr(needs, "monotone_tiers", lambda engine, settings, arch=None, **_: asked.append(engine))
    needs._NEEDS.clear()
    try:
        plain = json.loads(run(args).out)
    finally:
        needs._NEEDS.clear()
    assert plain == fast and len(asked) > 50  # the plain search ran, role by role
    assert sum("needs >=" in f["message"] for f in fast["findings"]) > 50


@st.composite
def sglang_estimates(draw):
    """SGLang roles with mem_fraction_static set (monotone_tiers: the whole grid is one range)."""
    options = {"page_size": st.sampled_from([1, 16, 64]), "max_total_tokens": st.sampled_from([65536, 2_000_000]),
               "chunked_prefill_size": st.sampled_from([2048, 8192]), "cuda_graph_max_bs": st.sampled_from([8, 512])}
    chosen = draw(st.sets(st.sampled_from(sorted(options)), max_size=3))
    settings_ = {key: draw(options[key]) for key in sorted(chosen)}
    settings_["mem_fraction_static"] = draw(st.sampled_from([0.3, 0.7, 0.85, 0.93, 1, 1.5]))
    return dict(
        arch=lookup_model(draw(st.sampled_from(MODELS))), engine="sglang",
        tp=draw(st.sampled_from([1, 2, 4, 8])), pp=draw(st.sampled_from([1, 1, 2])),
        kv_cache_dtype=draw(st.sampled_from(["auto", "fp8_e5m2"])), settings=settings_,
        context_length=draw(st.sampled_from([2048, 8192, 32768, 131072, 1_000_000])),
        engine_version=draw(st.sampled_from([None, "0.3.0", "0.4.5", "0.4.7", "0.5.2", "0.5.3"])))


@given(sglang_estimates(), st.sampled_from(["point", "low", "high"]))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_sglang_with_its_fraction_set_rises_with_the_memory(fields, which):
    # as test_shortcut_equals_bisection_on_the_physics, for SGLang: its budget is (memory - CUDA context) x
    # mem_fraction_static - weights when the fraction is set; the automatic one (not searched so) reads the device
    test_shortcut_equals_bisection_on_the_physics.hypothesis.inner_test(fields, which)


def test_sglang_is_searched_by_tier_only_with_its_fraction_set():
    assert monotone_tiers("sglang", {"mem_fraction_static": 0.85}) == ()
    for value in (None, 0, -0.5, "0.85", True, float("nan"), float("inf")):
        assert monotone_tiers("sglang", {"mem_fraction_static": value}) is None
