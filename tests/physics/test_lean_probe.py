"""Issue 15: the CTX208 search's prepared estimates (lean_probe.py) give exactly compute_lean's figures."""
from __future__ import annotations

import pytest
from conftest import SHARED
from helpers import run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctxlint.physics import capacity, lean_probe, need_estimates, need_search, needs
from ctxlint.physics.accelerators import lookup_accelerator
from ctxlint.physics.capacity import CapacityInput, compute_lean
from ctxlint.physics.device_verdicts import SearchedSizes
from ctxlint.physics.lean_probe import Figures, prepare
from ctxlint.physics.models import lookup_model
from ctxlint.physics.need_search import CELLS, Fallback, bisect, gib_at, monotone_tiers, pieces
from ctxlint.physics.releases import VLLM_RELEASES
from ctxlint.physics.span_search import release_band, release_figure

# dense, grouped-query, MLA, sliding-window, chunked (Llama 4), MXFP4 experts, linear/Mamba hybrids
MODELS = ["meta-llama/Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-70B-Instruct", "deepseek-ai/DeepSeek-V3",
          "deepseek-ai/DeepSeek-V2-Lite", "google/gemma-3-27b-it", "google/gemma-2-9b-it", "openai/gpt-oss-120b",
          "openai/gpt-oss-20b", "meta-llama/Llama-4-Scout-17B-16E-Instruct", "Qwen/Qwen3-Next-80B-A3B-Thinking",
          "Qwen/Qwen3.5-27B", "nvidia/NVIDIA-Nemotron-Nano-12B-v2-Base", "MiniMaxAI/MiniMax-M1-80k",
          "Qwen/Qwen3-235B-A22B", "mistralai/Mistral-7B-Instruct-v0.3"]
VLLM = {
    "gpu_memory_utilization": st.sampled_from([0.5, 0.85, 0.9, 0.95, 1, 0, "0.8", True]),
    "max_num_batched_tokens": st.sampled_from([512, 2048, 8192, 32768, "4096", 0]),
    "max_num_seqs": st.sampled_from([1, 16, 256, 512, -1]),
    "block_size": st.sampled_from([1, 16, 32, 128, "64", 0]),
    "kv_cache_memory_bytes": st.sampled_from([8 << 30, "2e10", 0]),
    "num_gpu_blocks_override": st.sampled_from([2000, 0]),
    "cpu_offload_gb": st.sampled_from([4, 40]),
    "swap_space": st.sampled_from([4, 16]),
    "enforce_eager": st.sampled_from([True, "true"]),
    "VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS": st.sampled_from(["0", "1"]),
    "VLLM_USE_V1": st.sampled_from(["0", "1"]),
    "VLLM_MLA_DISABLE": st.just("1"),
    "enable_chunked_prefill": st.booleans(),
    "kv_transfer_config": st.just({"kv_connector": "x"}),
    "disable_hybrid_kv_cache_manager": st.just(True),
    "distributed_executor_backend": st.just("ray"),
    "nnodes": st.just(2),
    "data_parallel_size": st.sampled_from([2, 8]),
    "enable_expert_parallel": st.just(True),
    # vLLM >= 0.34's extensible KV cache: asked, refused, or left to a KV connector (vllm_extensible.py)
    "enable_extensible_kv_cache": st.booleans(),
    "kv_transfer_config": st.just({"kv_connector": "NixlConnector", "kv_role": "kv_both"}),
}
OPTIONS = {
    "vllm": VLLM,
    "trtllm": {
        "kv_cache_free_gpu_memory_fraction": st.sampled_from([0.5, 0.9, 0, "0.7"]),
        "free_gpu_memory_fraction": st.sampled_from([0.6]),
        "max_num_tokens": st.sampled_from([2048, 16384]),
        "max_batch_size": st.sampled_from([8, 2048]),
        "max_tokens": st.sampled_from([65536, 1_000_000, "4096"]),
        "tokens_per_block": st.sampled_from([16, 64, 0]),
        "block_size": st.sampled_from([16, 64]),
        "max_gpu_total_bytes": st.sampled_from([20 << 30, 200 << 30, "3e10"]),
    },
    "sglang": {"mem_fraction_static": st.sampled_from([0.7, 0.9]), "max_total_tokens": st.sampled_from([4096, 100_000]),
               "page_size": st.sampled_from([1, 64]), "chunked_prefill_size": st.sampled_from([4096, 16384])},
    "llamacpp": {"ctx_size": st.sampled_from([0, 8192, 131072]), "parallel": st.sampled_from([1, 4]),
                 "kv_unified": st.just(True)},
    "tgi": {"cuda_memory_fraction": st.just(0.9), "max_batch_prefill_tokens": st.just(8192)},
}
VERSIONS = {"vllm": [None, "0.5.0", "0.6.3", "0.7.2", "0.10.0", "0.19.0", "0.19.1", *VLLM_RELEASES],
            "sglang": [None, "0.4.7", "0.5.3"], "tgi": [None, "3.1.0"]}


def _size_bytes(gib: float) -> float:
    return float(needs._candidate(gib).memory_bytes)


# the search's grid: random points, and each side of every tier's edge (where vLLM's batch defaults change)
EDGES = sorted({first + d for first, _ in pieces(monotone_tiers("vllm", {}), _size_bytes) for d in (-1, 0)
                if 1 <= first + d})
SIZES = st.one_of(st.integers(1, CELLS).map(gib_at), st.sampled_from(EDGES).map(gib_at),
                  st.sampled_from([16.0, 24.0, 80.0, 140.0, 2048.0]))
NAMES = ["L4", "A10G", "L40S", "A100-40GB", "A100-80GB", "H100", "H200", "B200", "MI300X", "GB10", "TPU-v6e", "nonesuch"]
# the search's sizes; the common devices as the verdicts ask them (vLLM's batch rule reads some by name), and by name
DEVICES = st.one_of(SIZES.map(needs._candidate), st.sampled_from(NAMES[:-1]).map(lookup_accelerator),
                    st.sampled_from(NAMES))


@st.composite
def roles(draw):
    engine = draw(st.sampled_from(["vllm", "vllm", "vllm", "vllm", "trtllm", "trtllm", "sglang", "llamacpp", "tgi"]))
    options = OPTIONS[engine]
    chosen = draw(st.sets(st.sampled_from(sorted(options)), max_size=5))
    return dict(
        arch=lookup_model(draw(st.sampled_from(MODELS))), engine=engine,
        tp=draw(st.sampled_from([1, 2, 4, 8])), pp=draw(st.sampled_from([1, 1, 2])), dp=draw(st.sampled_from([1, 2])),
        kv_cache_dtype=draw(st.sampled_from(["auto", "auto", "fp8", "fp8_e5m2"])),
        settings={key: draw(options[key]) for key in sorted(chosen)},
        context_length=draw(st.sampled_from([None, 2048, 32768, 131072, 1_000_000])),
        draft_layers=draw(st.sampled_from([0, 0, 1])),
        engine_version=draw(st.sampled_from(VERSIONS.get(engine, [None]))))


def _read(result) -> str:
    """What the search reads of an estimate, exactly (repr: -0.0 and 0.0, 1 and 1.0 differ)."""
    return repr(tuple(getattr(result, name) for name in Figures.__slots__))


@given(roles(), st.lists(st.tuples(st.sampled_from([None, *VLLM_RELEASES, "0.19.0"]), DEVICES), min_size=1,
                         max_size=6))
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_a_prepared_probe_gives_compute_leans_figures(fields, probes):
    # as the search asks: one shared dict for the role, a probe per release, several devices in a row
    shared: dict = {}
    prepared: dict = {}
    for release, device in probes:
        one = fields if release is None or fields["engine"] != "vllm" else dict(fields, engine_version=release)
        probe = prepared.get(release)
        if probe is None:
            probe = prepared[release] = prepare(one, shared)
        expected = compute_lean(CapacityInput(accelerator=device, **one), {})
        assert _read(probe(device)) == _read(expected)


def test_the_prepared_path_is_taken_where_it_is_exact_and_only_there():
    arch = lookup_model("meta-llama/Llama-3.1-8B-Instruct")
    prepared = [dict(engine="vllm", engine_version="0.9.0"), dict(engine="trtllm"),
                dict(engine="vllm", engine_version="0.20.0", settings={"block_size": 32, "max_num_seqs": 8}),
                dict(engine="sglang", settings={"mem_fraction_static": 0.8}), dict(engine="sglang")]
    others = [dict(engine="vllm"), dict(engine="sglang", arch=lookup_model("Qwen/Qwen3.5-27B")),  # a fold; Mamba
              dict(engine="llamacpp"), dict(engine="tgi"),
              dict(engine="vllm", engine_version="0.12.0", settings={"kv_cache_memory_bytes": 8 << 30}),
              dict(engine="vllm", engine_version="0.12.0", settings={"num_gpu_blocks_override": 100}),
              dict(engine="vllm", engine_version="0.12.0", available_kv_bytes=8 << 30)]
    for fields, expected in [(f, True) for f in prepared] + [(f, False) for f in others]:
        probe = prepare(dict(dict(arch=arch, context_length=8192), **fields), {})
        assert (type(probe(needs._candidate(40.0))) is Figures) == expected, fields
        assert type(probe("H100")) is not Figures  # a device given by name: compute_lean resolves it


@pytest.mark.skipif(not (SHARED / "corpus" / "real").is_dir(), reason="../shared/corpus/real is not beside the repo")
def test_every_probe_of_the_corpus_gives_compute_leans_figures(monkeypatch):
    # Every estimate the corpus's CTX208 searches ask is also made by compute_lean on its own and compared (a
    # difference is recorded, not raised: the search would take an exception for a fallback).
    compared, differ = [], []

    def checked(fields, shared):
        probe = lean_probe.prepare(fields, shared)

        def compare(acc):
            found = probe(acc)
            compared.append((fields["engine"], type(found) is Figures))
            if _read(found) != _read(compute_lean(CapacityInput(accelerator=acc, **fields), {})):
                differ.append((fields, acc))
            return found
        return compare
    monkeypatch.setattr(need_estimates, "prepare_probe", checked)
    capacity._MEMO.clear()
    needs._NEEDS.clear()  # roles searched by earlier tests are searched again
    need_estimates._LAST = None
    run(["check", str(SHARED / "corpus" / "real"), "--fail-on", "never", "--select", "CTX208"])
    capacity._MEMO.clear()
    needs._NEEDS.clear()
    need_estimates._LAST = None
    assert differ == []
    assert len(compared) > 1000
    assert {("vllm", True), ("trtllm", True), ("sglang", True), ("llamacpp", False)} <= set(compared)


# -- the verdicts' index of the search's estimates (device_verdicts.SearchedSizes), read once per estimate ----------

def _index_before(seen, releases, spanned, tiers, size_bytes, context):
    """SearchedSizes' edges and counts as they were built: each figure read on its own, each size placed anew."""
    import bisect
    import math

    tiers = tuple(sorted(tiers))
    counts, edges = {release: set() for release in releases}, {}
    for key, result in seen.items():
        if spanned != isinstance(key, tuple):
            continue
        release, gib = key if spanned else (releases[0], key)
        if release not in counts:
            continue
        figures = release_figure(result, "low"), release_figure(result, "high")
        counts[release].add(figures[0] is not None)
        size = size_bytes(gib)
        tier = bisect.bisect_right(tiers, size)
        for end, value in enumerate(figures):
            if value is not None:
                edge = edges.setdefault((release, end, tier), [math.inf, -math.inf])
                if value >= context:
                    edge[0] = min(edge[0], size)
                else:
                    edge[1] = max(edge[1], size)
    return edges, {release: next(iter(seen)) if len(seen) == 1 else None for release, seen in counts.items()}


def _made_up(floor, top, engine="vllm", pool=True):
    from types import SimpleNamespace
    return SimpleNamespace(engine=engine, pool_tokens=10**6 if pool else None, max_context_at_concurrency_1=floor,
                           max_context_low=floor, max_context_high=top)


FIGURE = st.one_of(st.none(), st.integers(0, 20_000))
RESULTS = st.one_of(st.builds(_made_up, FIGURE, FIGURE), st.builds(lambda: _made_up(None, None, pool=False)),
                    st.builds(_made_up, FIGURE, FIGURE, st.sampled_from(["vllm", "llamacpp"]), st.booleans()))


@given(st.dictionaries(st.one_of(st.tuples(st.sampled_from(["a", "b", "c", "z"]), st.integers(1, 64).map(float)),
                                 st.integers(1, 64).map(float)), RESULTS, max_size=40),
       st.booleans(), st.lists(st.integers(1, 64).map(float), max_size=3), st.integers(0, 20_000))
@settings(max_examples=400, deadline=None)
def test_the_searched_sizes_are_indexed_as_before(seen, spanned, tiers, context):
    releases = ("a", "b", "c")
    for result in seen.values():  # one band read raises where either figure did
        try:
            before = release_figure(result, "low"), release_figure(result, "high")
        except Fallback:
            before = Fallback
        try:
            assert release_band(result) == before
        except Fallback:
            assert before is Fallback
    try:
        expected = _index_before(seen, releases, spanned, tiers, lambda gib: gib * 1.5, context)
    except Fallback:
        with pytest.raises(Fallback):
            SearchedSizes(seen, releases, spanned, tuple(tiers), lambda gib: gib * 1.5, context)
        return
    sizes = SearchedSizes(seen, releases, spanned, tuple(tiers), lambda gib: gib * 1.5, context)
    assert (sizes.edges, {release: sizes.counted(release) for release in releases}) == expected
    for total in (1.0, 30.0, 60.0, 96.0, 200.0):
        for release in releases:
            for end in (0, 1):
                assert sizes.decided(release, end, total, sizes._tier(total)) == sizes.decided(release, end, total)


# -- the bisection asked by grid index (need_search.bisect with `at_index`) ------------------------------------------

class _ByIndex:
    """A fits that answers only by grid index (no __call__): the bisection must ask it so."""

    def __init__(self, fits):
        self.fits, self.asked = fits, []

    def at_index(self, k):
        self.asked.append(k)
        return self.fits(k)


@given(st.lists(st.integers(1, CELLS), min_size=1, max_size=6), st.integers(0, 7))
@settings(max_examples=300, deadline=None)
def test_the_bisection_by_index_probes_and_answers_as_by_memory(cuts, flips):
    # fits that flip at several cuts (not monotone: tiers can lower a figure), some fitting nowhere
    def fits(k):
        return (sum(k >= cut for cut in cuts) + flips) % 2 == 1
    by_memory: list = []

    def plain(gib):
        by_memory.append(need_search._index(gib))
        return fits(by_memory[-1])
    by_index = _ByIndex(fits)
    assert bisect(by_index) == bisect(plain) and by_index.asked == by_memory


def _verdict_before(sizes, name, total, context, estimate):
    """device_verdicts.verdict as it was: SearchedSizes asked through its methods, release by release."""
    from ctxlint.physics.device_verdicts import _alike, batch_defaults
    try:
        own = {}

        def figure(release, end):
            if release not in own:
                own[release] = release_band(estimate(release))
            value = own[release][end]
            return None if value is None else value >= context

        def holds(release, end):
            counted = sizes.counted(release)
            if sizes.by_name and not _alike(total, name, release):
                found = sizes.held_at(release, end, total, batch_defaults(total, name, release, False)) \
                    if counted else None
                return figure(release, end) if found is None else found
            if counted is False:
                return None
            found = sizes.decided(release, end, total) if counted else None
            return figure(release, end) if found is None else found
        sure = None
        for release in sizes.releases:
            floor = holds(release, 0)
            if floor is not None:
                sure = floor
                if not floor:
                    break
        return bool(sure), any(holds(release, 1) for release in sizes.releases)
    except Fallback:
        return None


@given(st.dictionaries(st.tuples(st.sampled_from(["0.8.5", "0.9.0", "0.28.0"]), st.integers(1, 250).map(float)),
                       RESULTS, max_size=40),
       st.booleans(), st.sampled_from(["candidate", "A100-SXM4-80GB", "H100-SXM-80GB", "L4"]),
       st.integers(1, 250).map(float), st.integers(0, 20_000), st.dictionaries(st.sampled_from(["0.8.5", "0.9.0",
                                                                                                "0.28.0"]), RESULTS))
@settings(max_examples=400, deadline=None)
def test_a_verdict_reads_the_index_as_its_methods_do(seen, by_name, name, gib, context, own):
    from ctxlint.physics.device_verdicts import verdict
    releases = ("0.8.5", "0.9.0", "0.28.0")
    try:
        sizes = SearchedSizes(seen, releases, True, (70 * 2**30, 160 * 2**30), lambda g: g * 2**30, context, by_name)
    except Fallback:
        return
    asked: tuple = ([], [])

    def estimate(which):
        def one(release):
            asked[which].append(release)
            return own.get(release, _made_up(None, None, pool=False))
        return one
    total = gib * 2**30
    assert verdict(sizes, name, total, context, estimate(0)) == _verdict_before(sizes, name, total, context,
                                                                                 estimate(1))
    assert asked[0] == asked[1]
