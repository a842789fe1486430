"""CTX208's search for a vLLM role of unknown version, release by release (physics/span_search.py),
gives exactly what the plain bisection over the folded estimates gives."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_need_search import MODELS, _bytes

from ctxlint.physics import need_search
from ctxlint.physics.accelerators import accelerator_from_mapping
from ctxlint.physics.capacity import CapacityInput, compute, spanned_releases
from ctxlint.physics.models import lookup_model
from ctxlint.physics.need_search import CELLS, Fallback, bisect, gib_at, monotone_tiers, pieces
from ctxlint.physics.needs import _longest
from ctxlint.physics.releases import VLLM_RELEASES
from ctxlint.physics.span_search import SpannedFits, release_figure


def _plain(series, every, context):
    """The plain bisection over the fold: the least of the counted figures (or the most), None when none counts."""
    def fits(gib):
        values = [v for v in (s(need_search._index(gib)) for s in series) if v is not None]
        folded = (min(values) if every else max(values)) if values else None
        return folded is not None and folded >= context
    return bisect(fits)


def _fast(series, every, context, ranges):
    read = set()

    def figure(i, k):
        read.add((i, k))
        return series[i](k)
    return bisect(SpannedFits(figure, len(series), every, context, ranges)), len(read)


@st.composite
def folds(draw):
    """Up to seven figures rising within each tier (steps, a clamp at 0, jumps either way at tiers),
    nearly parallel or not, some not counted at all."""
    cuts = sorted(draw(st.sets(st.integers(2, CELLS), max_size=3)))
    ranges = list(zip([1] + cuts, [c - 1 for c in cuts] + [CELLS]))
    slope = draw(st.integers(0, 3_000))

    def shape():
        if draw(st.integers(0, 9)) == 0:
            return None
        return [(draw(st.integers(-50_000, 50_000)), slope + draw(st.integers(-slope // 10 - 1, 300)),
                 draw(st.sampled_from([1, 16, 64]))) for _ in ranges]

    def series(shapes):
        def longest(k):
            if shapes is None:
                return None
            offset, rise, block = shapes[sum(1 for c in cuts if k >= c)]
            return max(0, (offset + max(0, rise) * k) // block * block)
        return longest
    figures = [series(shape()) for _ in range(draw(st.integers(1, 7)))]
    return figures, ranges, draw(st.integers(1, 200_000)), draw(st.booleans())


@given(folds())
@settings(max_examples=500, deadline=None)
def test_release_by_release_equals_bisection_of_the_fold(case):
    series, ranges, context, every = case
    fast, _ = _fast(series, every, context, ranges)
    assert fast == _plain(series, every, context)


def test_other_releases_cost_one_estimate_each_at_the_threshold():
    # parallel figures, the least first: its threshold is the fold's, the six others confirm it
    series = [lambda k, c=c: max(0, 30 * k - c) for c in (4_000, 3_000, 2_100, 2_000, 900, 500, 0)]
    fast, read = _fast(series, True, 60_000, [(1, CELLS)])
    assert fast == _plain(series, True, 60_000) and read <= 6 + 6
    # the least last: the ones before it each move the threshold, at a few estimates each
    fast, read = _fast(series[::-1], True, 60_000, [(1, CELLS)])
    assert fast == _plain(series, True, 60_000) and read > 6 + 6


def test_a_release_counted_at_one_size_only_falls_back():
    series = [lambda k: None if k < 2_000 else 50 * k, lambda k: 100 * k]
    with pytest.raises(Fallback):  # the first counts at the top, and its threshold is below 2,000
        bisect(SpannedFits(lambda i, k: series[i](k), 2, True, 40_000, [(1, CELLS)]))
    assert bisect(SpannedFits(lambda i, k: series[1](k), 1, True, 40_000, [(1, CELLS)])) == _plain(
        series[1:], True, 40_000)


@st.composite
def unknown_vllm(draw):
    options = {
        "gpu_memory_utilization": st.sampled_from([0.5, 0.85, 0.95, 1]),
        "max_num_batched_tokens": st.sampled_from([512, 8192, 32768]),
        "max_num_seqs": st.sampled_from([16, 512]),
        "enforce_eager": st.just(True),
        "VLLM_USE_V1": st.just("0"),
        "kv_transfer_config": st.just({"kv_connector": "x"}),
        "distributed_executor_backend": st.just("ray"),
        "block_size": st.sampled_from([16, 32]),
        "VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS": st.sampled_from(["0", "1"]),
    }
    chosen = draw(st.sets(st.sampled_from(sorted(options)), max_size=4))
    return dict(
        arch=lookup_model(draw(st.sampled_from(MODELS))), engine="vllm",
        tp=draw(st.sampled_from([1, 2, 4, 8])), pp=draw(st.sampled_from([1, 1, 2])),
        kv_cache_dtype=draw(st.sampled_from(["auto", "fp8"])),
        settings={key: draw(options[key]) for key in sorted(chosen)},
        context_length=draw(st.sampled_from([2048, 8192, 32768, 131072, 1_000_000])))


@given(unknown_vllm(), st.sampled_from(["point", "low", "high"]))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_release_by_release_equals_bisection_on_the_physics(fields, which):
    # Relies on each release's figures rising between the tiers and on a release counting at every
    # size or at none: checked against the real estimates at every grid point the plain search probes.
    releases = spanned_releases(CapacityInput(**fields))  # gpt-oss's from 0.10.1 (releases.releases_for)
    assert releases and set(releases) <= set(VLLM_RELEASES) | {"0.19.0"}  # 0.19.0: models with window layers
    tiers = monotone_tiers("vllm", fields["settings"], fields["arch"])
    assert tiers is not None
    context = fields["context_length"]

    def estimate(gib, release=None):
        acc = accelerator_from_mapping("candidate", {"memory_gib": gib})
        return compute(CapacityInput(accelerator=acc, **dict(fields, engine_version=release)))

    plain = bisect(lambda gib: (_longest(estimate(gib), which) or 0) >= context)
    fast = bisect(SpannedFits(lambda i, k: release_figure(estimate(gib_at(k), releases[i]), which),
                              len(releases), which != "high", context, pieces(tiers, _bytes)))
    assert fast == plain


def test_only_an_unknown_vllm_release_is_spanned():
    arch = lookup_model(MODELS[0])
    assert spanned_releases(CapacityInput(arch=arch, engine="vllm")) == VLLM_RELEASES
    assert spanned_releases(CapacityInput(arch=arch, engine="vllm", engine_version="0.9.0")) == ()
    assert spanned_releases(CapacityInput(arch=arch, engine="vllm", available_kv_bytes=1e9)) == ()
    assert spanned_releases(CapacityInput(arch=arch, engine="sglang")) == ()
