"""CTX208's memory search for SGLang roles whose mem_fraction_static is automatic (issue 15, twenty-second pass).

The automatic fraction reads the device's memory only through its size tiers (need_search.SGLANG_AUTO_TIERS) on the
searched sizes, so between those tiers the seeded search (need_search.PiecewiseFits) answers as the plain bisection
does with fewer estimates; below PLAIN_BELOW the memory before weights can be negative, and times a negative fraction
a positive budget that falls as the memory rises: there every index is estimated, as the plain bisection does.
The oracle is the plain bisection over whole estimates (capacity.compute), at every grid point it probes."""
from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctxlint.physics import needs
from ctxlint.physics.capacity import CapacityInput, compute
from ctxlint.physics.lean_probe import prepare
from ctxlint.physics.models import lookup_model
from ctxlint.physics.need_search import (CELLS, PLAIN_BELOW, SGLANG_AUTO_TIERS, PiecewiseFits, bisect, gib_at,
                                         monotone_tiers, pieces)
from ctxlint.physics.needs import _longest

MODELS = ["Qwen/Qwen2-0.5B-Instruct", "Qwen/Qwen1.5-0.5B-Chat", "meta-llama/Llama-3.1-8B-Instruct",
          "google/gemma-3-27b-it", "deepseek-ai/DeepSeek-V3", "Qwen/Qwen3-235B-A22B", "openai/gpt-oss-120b",
          "meta-llama/Llama-4-Scout-17B-16E-Instruct", "mistralai/Mistral-7B-Instruct-v0.3"]
VERSIONS = [None, None, "0.3.0", "0.4.5", "0.4.7", "0.5.2", "0.5.3", "0.5.5", "0.5.10", "0.5.15", "0.5.20", "0.5.23"]
OPTIONS = {
    "page_size": [1, 16, 64], "max_total_tokens": [65536, 2_000_000], "chunked_prefill_size": [-1, 2048, 8192],
    "cuda_graph_max_bs": [8, 512], "max_running_requests": [4, 64], "disaggregation_mode": ["prefill", "decode"],
    "enable_dp_attention": [True], "dp_size": [2], "disable_cuda_graph": [True], "speculative_algorithm": ["EAGLE"],
    "SGLANG_ENABLE_POST_CAPTURE_KV_SIZING": ["1"], "mem_fraction_static": [None, 0], "language_only": [True],
}


def _roles(rng: random.Random):
    chosen = rng.sample(sorted(OPTIONS), rng.randint(0, 4))
    return dict(arch=lookup_model(rng.choice(MODELS)), engine="sglang", tp=rng.choice([1, 2, 4, 8]),
                pp=rng.choice([1, 1, 2]), kv_cache_dtype=rng.choice(["auto", "fp8_e5m2"]),
                settings={key: rng.choice(OPTIONS[key]) for key in sorted(chosen)},
                context_length=rng.choice([512, 2048, 8192, 32768, 131072, 1_000_000]),
                engine_version=rng.choice(VERSIONS))


def _plain_and_fast(fields, which, line=False):
    """(the plain bisection over whole estimates, the seeded search over the prepared probe as needs.py runs it:
    without a budget line to guess from; `line`: with one, as for the other engines, exact too)."""
    context, end = fields["context_length"], needs._ENDS[which]
    tiers = monotone_tiers("sglang", fields["settings"], fields["arch"], search=True)
    assert tiers == SGLANG_AUTO_TIERS
    ranges = pieces(tiers, needs._size_bytes)
    plain_index = next(a for a, _ in ranges if needs._size_bytes(gib_at(a)) >= PLAIN_BELOW)

    def whole(gib):
        return compute(CapacityInput(accelerator=needs._candidate(gib), **fields))

    plain = bisect(lambda gib: (_longest(whole(gib), which) or 0) >= context)
    probe = prepare(fields, {})
    fast = bisect(PiecewiseFits(lambda k: _longest(probe(needs._candidate(gib_at(k))), which), context, ranges,
                                (lambda first, last: needs._guess(probe, context, end, first, last)) if line else None,
                                plain_index))
    return plain, fast


@given(st.integers(0, 2 ** 32), st.sampled_from(["point", "low", "high"]), st.booleans())
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_the_automatic_fraction_is_searched_as_the_plain_bisection_searches_it(seed, which, line):
    fields = _roles(random.Random(seed))
    plain, fast = _plain_and_fast(fields, which, line)
    assert fast == plain


def test_check_searches_the_automatic_fraction_as_the_plain_bisection_does(monkeypatch):
    # end to end, every SGLang role of the samples and the real corpus (and every other role: unchanged) against the
    # plain search of the same roles (monotone_tiers None for SGLang's automatic fraction, as before)
    import json

    from conftest import SHARED
    from helpers import run

    from ctxlint.physics import need_search

    paths = [str(SHARED / "corpus" / "real")] if (SHARED / "corpus" / "real").is_dir() else []
    args = ["check", "samples", *paths, "--format", "json", "--fail-on", "never", "--select", "CTX208"]
    tiers, asked = need_search.monotone_tiers, []

    def without(engine, settings_, arch=None, search=False):
        found = tiers(engine, settings_, arch, search)
        asked.append(found is SGLANG_AUTO_TIERS)
        return None if found is SGLANG_AUTO_TIERS else found
    needs._NEEDS.clear()
    fast = json.loads(run(args).out)
    monkeypatch.setattr(needs, "monotone_tiers", without)
    needs._NEEDS.clear()
    try:
        plain = json.loads(run(args).out)
    finally:
        needs._NEEDS.clear()
    # SGLang roles of automatic fraction were searched plainly (fewer in the samples alone, without ../shared)
    assert plain == fast and sum(asked) > (10 if paths else 3)
    assert sum("needs >=" in f["message"] for f in fast["findings"]) > (50 if paths else 2)


def test_the_figures_rise_between_the_tiers_above_plain_below():
    # The premise, at every 64th grid index and both sides of every tier, for roles of every kind: each figure the
    # search reads is at least the one a grid step below it in the same range (PiecewiseFits relies on it)
    rng = random.Random(15)
    ranges = pieces(SGLANG_AUTO_TIERS, needs._size_bytes)
    starts = {a for a, _ in ranges}
    points = sorted({k for a, b in ranges for k in (a, a + 1, b - 1, b)} | set(range(1, CELLS + 1, 64)))
    for _ in range(25):
        fields = _roles(rng)
        probe = prepare(fields, {})
        for which in ("point", "low", "high"):
            before = None
            for k in points:
                if needs._size_bytes(gib_at(k)) < PLAIN_BELOW:
                    continue
                value = _longest(probe(needs._candidate(gib_at(k))), which)
                if before is not None and k not in starts and not any(before[0] < a <= k for a in starts):
                    assert value >= before[1], (fields, which, k)
                before = (k, value)


def test_below_plain_below_the_figures_can_fall_as_the_memory_rises():
    # Why PLAIN_BELOW: a 0.5B model at TP 2 has memory before weights below 0 under 2.8 GiB and a negative automatic
    # fraction, so the band's low end holds more at 1 GiB than at 2.5 GiB; those indices are searched one by one
    fields = dict(arch=lookup_model("Qwen/Qwen2-0.5B-Instruct"), engine="sglang", tp=2, pp=1, kv_cache_dtype="auto",
                  settings={}, context_length=2048, engine_version=None)
    low = [compute(CapacityInput(accelerator=needs._candidate(gib), **fields)).max_context_low for gib in (1.0, 2.5)]
    assert low[0] > low[1]
    for which in ("point", "low", "high"):
        plain, fast = _plain_and_fast(fields, which)
        assert fast == plain


def test_only_the_search_reads_the_automatic_fraction_by_tier():
    # a named device's verdict reads its nvidia-smi figure (mem_sglang.terms): needs._searched_sizes asks without
    # `search` and estimates such devices on themselves
    assert monotone_tiers("sglang", {}) is None
    assert monotone_tiers("sglang", {}, search=True) == SGLANG_AUTO_TIERS
    for value in (None, 0, 0.0, "0.85", True, False):  # mem_sglang.terms sets the fraction itself for these
        assert monotone_tiers("sglang", {"mem_fraction_static": value}, search=True) == SGLANG_AUTO_TIERS
    for value in (-0.5, float("nan")):  # set as it is, not a positive number: the plain search
        assert monotone_tiers("sglang", {"mem_fraction_static": value}, search=True) is None
    assert monotone_tiers("sglang", {"mem_fraction_static": 0.85}, search=True) == ()
    assert monotone_tiers("sglang", {}, lookup_model("Qwen/Qwen3-Next-80B-A3B-Thinking"), search=True) is None


def test_a_role_of_automatic_fraction_is_searched_with_fewer_estimates(monkeypatch):
    fields = dict(arch=lookup_model("meta-llama/Llama-3.1-8B-Instruct"), engine="sglang", tp=1, pp=1,
                  kv_cache_dtype="auto", settings={}, context_length=131072, engine_version=None)
    counts = {}
    for tiers in (None, SGLANG_AUTO_TIERS):
        probe, asked = prepare(fields, {}), []

        def counted(acc, probe=probe, asked=asked):
            asked.append(acc)
            return probe(acc)
        if tiers is None:
            found = bisect(lambda gib: (_longest(counted(needs._candidate(gib)), "point") or 0) >= 131072)
        else:
            ranges = pieces(tiers, needs._size_bytes)
            found = bisect(PiecewiseFits(lambda k: _longest(counted(needs._candidate(gib_at(k))), "point"), 131072,
                                         ranges, None, next(a for a, _ in ranges
                                                            if needs._size_bytes(gib_at(a)) >= PLAIN_BELOW)))
        counts[tiers] = (found, len(asked))
    # Llama-3.1-8B at TP 1, 131,072 tokens: 41.3 GiB either way, 16 estimates plainly, 10 by tier
    assert counts == {None: (41.3, 16), SGLANG_AUTO_TIERS: (41.3, 10)}
