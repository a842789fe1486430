"""Issue 15: CTX208's memory search seeded by each prepared estimate's budget line (lean_probe.least_total,
needs._guess) gives exactly what the plain bisection gives, whatever the guess: a guess counts only when the
figures at it and a grid step below it agree, else the search goes on as before."""
from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_lean_probe import EDGES, MODELS, VLLM
from test_need_search import _bytes
from test_span_search import _plain, folds
from test_need_search import rising_by_tier

from ctxlint.physics import need_search, needs
from ctxlint.physics.capacity import CapacityInput, compute, spanned_releases
from ctxlint.physics.lean_probe import prepare
from ctxlint.physics.models import lookup_model
from ctxlint.physics.need_search import CELLS, PiecewiseFits, bisect, gib_at, monotone_tiers, pieces
from ctxlint.physics.needs import _longest
from ctxlint.physics.span_search import SpannedFits, release_figure

# a guess as the line gives it (0), off by a few grid steps either way, far off, outside the range, or none
OFFSETS = st.sampled_from([0, 0, 0, -1, 1, -2, 2, -7, 40, -5_000, 5_000, None])


def _threshold(series, context, first, last):
    """The first index in [first, last] where `series` (rising there) holds `context`; last + 1 for none."""
    lo, hi = first - 1, last + 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        value = series(mid)
        lo, hi = (lo, mid) if value is not None and value >= context else (mid, hi)
    return hi


def _guesser(series, context, offset):
    def guess(first, last):
        return None if offset is None else _threshold(series, context, first, last) + offset
    return guess


@given(rising_by_tier(), OFFSETS)
@settings(max_examples=400, deadline=None)
def test_any_guess_leaves_the_bisections_answer(case, offset):
    longest, ranges, context = case
    plain = bisect(lambda gib: longest(need_search._index(gib)) >= context)
    assert bisect(PiecewiseFits(longest, context, ranges, _guesser(longest, context, offset))) == plain


@given(folds(), st.lists(OFFSETS, min_size=7, max_size=7))
@settings(max_examples=400, deadline=None)
def test_any_guess_leaves_the_folds_answer(case, offsets):
    series, ranges, context, every = case
    guesses = [_guesser(s, context, o) for s, o in zip(series, offsets)]
    fast = bisect(SpannedFits(lambda i, k: series[i](k), len(series), every, context, ranges, lambda *a: None,
                              lambda i, first, last: guesses[i](first, last)))
    assert fast == _plain(series, every, context)


def test_a_right_guess_costs_two_figures_a_range():
    # one range, figures 30 per index: the guess and the index below it settle the threshold
    series = lambda k: max(0, 30 * k - 4_000)  # noqa: E731
    read = []

    def longest(k):
        read.append(k)
        return series(k)
    fits = PiecewiseFits(longest, 60_000, [(1, CELLS)], _guesser(series, 60_000, 0))
    assert bisect(fits) == bisect(lambda gib: series(need_search._index(gib)) >= 60_000) and len(set(read)) == 2


SEARCHED = {key: VLLM[key] for key in ("gpu_memory_utilization", "max_num_batched_tokens", "max_num_seqs",
                                       "block_size", "enforce_eager", "VLLM_USE_V1", "kv_transfer_config",
                                       "distributed_executor_backend", "cpu_offload_gb")}
OTHERS = {"trtllm": {"kv_cache_free_gpu_memory_fraction": st.sampled_from([0.5, 0.9]),
                     "max_tokens": st.sampled_from([65536, 1_000_000]), "tokens_per_block": st.sampled_from([16, 64]),
                     "max_gpu_total_bytes": st.sampled_from([20 << 30, 200 << 30])},
          "sglang": {"max_total_tokens": st.sampled_from([4096, 100_000]), "page_size": st.sampled_from([1, 64])}}


@st.composite
def searched_roles(draw):
    """Roles the search seeds: vLLM of a known or unknown release (a fold), TensorRT-LLM, SGLang with its fraction
    set; dense, MLA, sliding-window, chunked, MXFP4 and hybrid models; requests around the memory tiers' edges."""
    engine = draw(st.sampled_from(["vllm", "vllm", "vllm", "trtllm", "sglang"]))
    options = SEARCHED if engine == "vllm" else OTHERS[engine]
    chosen = draw(st.sets(st.sampled_from(sorted(options)), max_size=4))
    settings_ = {key: draw(options[key]) for key in sorted(chosen)}
    if engine == "sglang":
        settings_["mem_fraction_static"] = draw(st.sampled_from([0.7, 0.85, 0.93]))
    version = draw(st.sampled_from({"vllm": [None, None, None, "0.6.3", "0.10.0", "0.19.0", "0.12.0"],
                                    "sglang": [None, "0.4.7", "0.5.3"]}.get(engine, [None])))
    return dict(arch=lookup_model(draw(st.sampled_from(MODELS))), engine=engine,
                tp=draw(st.sampled_from([1, 2, 4, 8])), pp=draw(st.sampled_from([1, 1, 2])),
                kv_cache_dtype=draw(st.sampled_from(["auto", "fp8"])), settings=settings_,
                context_length=draw(st.sampled_from([2048, 32768, 131072, 1_000_000])), engine_version=version)


def _context_at_an_edge(fields, draw_edge):
    """A request that the point estimate just holds on one side of a tier's edge (the grid's tier edges)."""
    k = EDGES[draw_edge % len(EDGES)]
    found = _longest(compute(CapacityInput(accelerator=needs._candidate(gib_at(k)), **fields)), "point")
    return found if isinstance(found, int) and found > 0 else fields["context_length"]


@given(searched_roles(), st.sampled_from(["point", "low", "high"]), st.none() | st.integers(0, 100))
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_the_seeded_search_equals_the_plain_bisection_on_the_physics(fields, which, edge):
    if edge is not None:
        fields = dict(fields, context_length=_context_at_an_edge(fields, edge))
    tiers = monotone_tiers(fields["engine"], fields["settings"], fields["arch"])
    if tiers is None:
        return
    context, end = fields["context_length"], needs._ENDS[which]
    ranges = pieces(tiers, _bytes)

    def estimate(gib, release=None):
        one = fields if release is None else dict(fields, engine_version=release)
        return compute(CapacityInput(accelerator=needs._candidate(gib), **one))

    plain = bisect(lambda gib: (_longest(estimate(gib), which) or 0) >= context)
    releases = spanned_releases(CapacityInput(**fields))
    shared: dict = {}
    if releases:
        probes = [prepare(dict(fields, engine_version=release), shared) for release in releases]
        fast = bisect(SpannedFits(lambda i, k: release_figure(probes[i](needs._candidate(gib_at(k))), which),
                                  len(releases), which != "high", context, ranges, lambda i, k: False,
                                  lambda i, first, last: needs._guess(probes[i], context, end, first, last)))
    else:
        probe = prepare(fields, shared)
        fast = bisect(PiecewiseFits(lambda k: _longest(probe(needs._candidate(gib_at(k))), which), context, ranges,
                                    lambda first, last: needs._guess(probe, context, end, first, last)))
    assert fast == plain


def test_a_searched_roles_model_side_is_not_remembered():
    # needs.py remembers a role's search by the same arguments the model side is keyed by: a key per release was
    # pure cost (none was found on the benchmark trees) and its entries pushed whole estimates' sides out
    from ctxlint.physics import model_side

    model_side._MEMO.clear()
    fields = dict(arch=lookup_model("meta-llama/Llama-3.1-8B-Instruct"), engine="vllm", context_length=8192)
    shared: dict = {}
    probes = [prepare(dict(fields, engine_version=release), shared)
              for release in spanned_releases(CapacityInput(**fields))]
    figures = [probe(needs._candidate(40.0)) for probe in probes]
    assert len(probes) > 1 and not model_side._MEMO.results
    model_side._MEMO.clear()
    for release, found in zip(spanned_releases(CapacityInput(**fields)), figures):  # the same figures as a whole one
        whole = compute(CapacityInput(accelerator=needs._candidate(40.0), **dict(fields, engine_version=release)))
        assert found.max_context_at_concurrency_1 == whole.max_context_at_concurrency_1


def test_an_sglang_hybrid_model_is_searched_plainly():
    # perfF: the KV tokens SGLang leaves a hybrid model drop each time one more request's states fit (1,000,057
    # at 205.59 GiB, 999,452 at 205.65), so a line through the figures misplaced the threshold: the seeded search
    # said 205.6 GiB where the plain bisection says 205.8. Found by hypothesis once; pinned here.
    from test_seeded_search import test_the_seeded_search_equals_the_plain_bisection_on_the_physics as seeded

    arch = lookup_model("Qwen/Qwen3-Next-80B-A3B-Thinking")
    assert monotone_tiers("sglang", {"mem_fraction_static": 0.93}, arch) is None
    assert monotone_tiers("sglang", {"mem_fraction_static": 0.93}, lookup_model("Qwen/Qwen3-8B")) == ()
    fields = dict(arch=arch, engine="sglang", tp=1, pp=1, kv_cache_dtype="auto",
                  settings={"mem_fraction_static": 0.93}, context_length=1_000_000, engine_version=None)
    seeded.hypothesis.inner_test(fields, "high", None)
