"""Issue 15: the shortcuts that make an estimate cheaper give exactly what they replace."""
from __future__ import annotations

import re

import pytest
from conftest import REPO, SHARED
from helpers import run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_device_verdicts import MANIFEST
from test_need_search import MODELS

from ctxlint.physics import capacity, mem_vllm, mem_vllm_v0, need_estimates, needs, vllm_batch
from ctxlint.physics.accelerators import accelerator_from_mapping
from ctxlint.physics.capacity import CapacityInput
from ctxlint.physics.models import lookup_model
from ctxlint.physics.releases import VLLM_RELEASES, releases_for, span_vllm_releases
from ctxlint.records import replace
from ctxlint.versions import parse_version


def test_the_release_bounds_parsed_once_are_the_releases_their_names_say():
    named = {name: value for module in (mem_vllm, vllm_batch) for name, value in vars(module).items()
             if re.fullmatch(r"_V\d+(_\d+)+", name)}
    assert len(named) >= 10
    for name, value in named.items():
        assert value == parse_version(name[2:].replace("_", ".")), name
    for text in ("V0_END", "V1_DEFAULT", "UTIL_092", "CG_DEFAULT"):
        assert getattr(mem_vllm, "_" + text) == parse_version(getattr(mem_vllm, text)), text
    assert vllm_batch._BIG_TIER == parse_version(vllm_batch.BIG_TIER)
    assert mem_vllm._OLD_MULTI_GPU == tuple(parse_version(t) for t in mem_vllm.OLD_MULTI_GPU)
    assert vars(mem_vllm_v0)["_V0_5_3"] == parse_version("0.5.3") and mem_vllm_v0._V0_6_6 == parse_version("0.6.6")


# -- lean estimates (capacity._compute_one `lean`): the CTX208 search's probes -----------------------------

DESCRIPTION = dict(steps=(), assumptions=(), errors=(), terms=(), rule="")


def _figures(result):
    """The result without its description: what a lean estimate must give exactly."""
    return replace(result, **DESCRIPTION)


@st.composite
def any_estimate(draw):
    engine = draw(st.sampled_from(["vllm", "vllm", "vllm", "sglang", "trtllm", "tgi", "lmdeploy", "llamacpp"]))
    options = {
        "gpu_memory_utilization": st.sampled_from([0.5, 0.9, 0.95, 0]),
        "max_num_batched_tokens": st.sampled_from([512, 8192, 32768]),
        "max_num_seqs": st.sampled_from([16, 512]),
        "enforce_eager": st.just(True),
        "VLLM_USE_V1": st.just("0"),
        "enable_chunked_prefill": st.booleans(),
        "kv_transfer_config": st.just({"kv_connector": "x"}),
        "distributed_executor_backend": st.just("ray"),
        "block_size": st.sampled_from([16, 32]),
        "num_gpu_blocks_override": st.just(2000),
        "VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS": st.sampled_from(["0", "1"]),
        "mem_fraction_static": st.sampled_from([0.7, 0.9]),
        "max_total_tokens": st.just(100_000),
        "kv_cache_free_gpu_memory_fraction": st.sampled_from([0.5, 0.9]),
        "max_gpu_total_bytes": st.sampled_from([20 << 30, 200 << 30]),
        "cuda_memory_fraction": st.just(0.9),
        "cache_max_entry_count": st.sampled_from([0.5, 0.8]),
        "ctx_size": st.sampled_from([0, 8192, 131072]),
    }
    chosen = draw(st.sets(st.sampled_from(sorted(options)), max_size=4))
    versions = {"vllm": [None, "0.5.0", "0.6.3", "0.7.2", *VLLM_RELEASES], "sglang": [None, "0.4.7", "0.5.3"],
                "tgi": [None, "2.4.0", "3.1.0"]}.get(engine, [None])
    device = draw(st.one_of(st.sampled_from(["L4", "A100-80GB", "H100", "H200", "MI300X", "nonesuch"]),
                            st.integers(2, 4096).map(lambda n: accelerator_from_mapping("candidate",
                                                                                        {"memory_gib": n / 2}))))
    return CapacityInput(
        arch=lookup_model(draw(st.sampled_from(MODELS))), engine=engine, accelerator=device,
        tp=draw(st.sampled_from([1, 2, 4, 8])), pp=draw(st.sampled_from([1, 1, 2])),
        kv_cache_dtype=draw(st.sampled_from(["auto", "fp8"])),
        settings={key: draw(options[key]) for key in sorted(chosen)},
        context_length=draw(st.sampled_from([None, 2048, 32768, 131072, 1_000_000])),
        engine_version=draw(st.sampled_from(versions)))


@given(any_estimate())
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_a_lean_estimate_has_exactly_the_figures_of_the_whole_one(inp):
    whole, lean = capacity._compute(inp), capacity._compute(inp, None, True)
    assert _figures(lean) == _figures(whole)
    if whole.pool_tokens is not None:  # and lean is lean
        assert whole.steps and not lean.steps and not lean.terms


@given(any_estimate().map(lambda inp: replace(inp, engine="vllm", engine_version=None)))
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_an_unknown_releases_fold_from_lean_figures_is_the_fold_of_whole_estimates(inp):
    # The fold keeps the text of one or two releases; the others are estimated lean.
    shared: dict = {}
    folded = span_vllm_releases(inp, lambda one: capacity._compute_one(one, shared, False))
    assert capacity._compute(inp) == folded and capacity._compute(inp, {}) == folded


def test_an_unknown_release_makes_at_most_two_whole_estimates(monkeypatch):
    one, whole = capacity._compute_one, []

    def counted(inp, shared=None, lean=False):
        if not lean:
            whole.append(inp.engine_version)
        return one(inp, shared, lean)
    monkeypatch.setattr(capacity, "_compute_one", counted)
    for model in MODELS[:4]:
        for device in ("L4", "H100", "MI300X"):
            del whole[:]
            inp = CapacityInput(arch=lookup_model(model), engine="vllm", accelerator=device, context_length=32768)
            assert capacity._compute(inp).steps
            assert 1 <= len(whole) <= 2 and set(whole) <= set(releases_for(inp.arch)[0])


def test_a_lean_estimate_is_never_remembered_nor_given_for_a_whole_one():
    inp = CapacityInput(arch=lookup_model(MODELS[0]), engine="vllm", accelerator="L4", engine_version="0.9.0",
                        context_length=8192)
    capacity._MEMO.clear()
    lean = capacity.compute_lean(inp, {})
    assert not capacity._MEMO.results and not lean.steps
    whole = capacity.compute_keyed(("test", "lean or whole"), inp, {})
    assert whole == capacity.compute(inp) and whole.steps and _figures(whole) == _figures(lean)
    capacity._MEMO.clear()


def test_no_search_asks_for_the_same_lean_estimate_twice(monkeypatch, tmp_path):
    # Why lean estimates are not remembered: each search keeps its own, and needs._NEEDS its answer.
    from ctxlint.engine import lint_paths
    from ctxlint.physics import memo
    from ctxlint.physics.memo import exact_key

    one, prepare, asked, probing = capacity._compute_one, need_estimates.prepare_probe, [], []

    def counted(inp, shared=None, lean=False):
        if lean and not probing:
            asked.append(exact_key(inp))
        return one(inp, shared, lean)

    def prepared(fields, shared):  # a prepared probe (lean_probe.py) is an estimate too, whichever path it takes
        probe = prepare(fields, shared)

        def counted_probe(acc):
            asked.append(exact_key(CapacityInput(accelerator=acc, **fields)))
            probing.append(acc)
            try:
                return probe(acc)
            finally:
                probing.pop()
        return counted_probe
    monkeypatch.setattr(capacity, "_compute_one", counted)
    monkeypatch.setattr(need_estimates, "prepare_probe", prepared)
    needs._NEEDS.clear()
    # The keys' tables start again at memo._TABLE_MAX entries (a miss, never a wrong hit): start them empty, as a run
    # does, not as the tests this worker ran before left them. (This test failed twice under pytest-xdist in one
    # branch's runs, 4,188 asks and 4,181 distinct, and passed on reruns; tables near their cap were not proven the
    # cause: filling either one to 20 short of it before this test did not make it fail.)
    memo._TOKENS.clear()
    memo._BY_ID.clear()
    folder = tmp_path / "device-less"
    folder.mkdir()
    for n, (tag, model, window) in enumerate([("latest", MODELS[0], 131072), ("v0.9.0", MODELS[0], 8192),
                                              ("latest", MODELS[1], 32768), ("v0.12.0", MODELS[2], 4096)]):
        (folder / f"d{n}.yaml").write_text(MANIFEST.format(tag=tag, args=f'"--model", "{model}", '
                                                                         f'"--max-model-len", "{window}"',
                                                           env="", gpus=1))
    paths = [str(folder)] + [str(p) for p in sorted((REPO / "samples").rglob("*.yaml"))]
    if (SHARED / "corpus" / "real").is_dir():
        paths.append(str(SHARED / "corpus" / "real"))
    lint_paths(paths + paths)  # the second time, every search's answer is remembered
    needs._NEEDS.clear()
    assert len(asked) > 50 and len(set(asked)) == len(asked)


@pytest.mark.skipif(not (SHARED / "corpus" / "real").is_dir(), reason="../shared/corpus/real is not beside the repo")
def test_every_lean_estimate_of_the_corpus_has_the_figures_of_the_whole_one(monkeypatch):
    # Every estimate the corpus's CTX208 searches make lean is made whole too, and compared (a
    # difference is recorded, not raised: the search would take an exception for a fallback).
    one, compared, differ = capacity._compute_one, [], []

    def checked(inp, shared=None, lean=False):
        result = one(inp, shared, lean)
        if lean:
            compared.append(inp.engine)
            if _figures(result) != _figures(one(inp)):
                differ.append(inp)
        return result
    monkeypatch.setattr(capacity, "_compute_one", checked)
    # the searches' estimates as compute_lean makes them (test_lean_probe: its prepared probes give the same)
    monkeypatch.setattr(need_estimates, "prepare_probe", lambda fields, shared: lambda acc: capacity.compute_lean(
        CapacityInput(accelerator=acc, **fields), shared))
    capacity._MEMO.clear()
    needs._NEEDS.clear()  # roles searched by earlier tests are searched again
    run(["check", str(SHARED / "corpus" / "real"), "--fail-on", "never", "--select", "CTX208"])
    capacity._MEMO.clear()  # nothing made under the check stays for other tests
    assert differ == []
    assert len(compared) > 1000 and {"vllm", "sglang", "trtllm"} <= set(compared)


def test_accelerator_name_keys_are_remembered_as_they_were_computed():
    from ctxlint.physics import accelerators

    names = ["NVIDIA-A100-SXM4-80GB", "nvidia h100 80G", "Tesla-T4", "a10g", "H100_HBM3", "MI300X", "gpu", " L4 "]
    for name in names:
        first = accelerators._keys(name)
        assert accelerators._keys(name) is first and isinstance(first, tuple)  # remembered, immutable
        accelerators._keys.cache_clear()
        assert accelerators._keys(name) == first  # what a fresh computation gives
        norm = accelerators._norm(name)
        assert first[0] == norm and first[1:] in ((), ("-".join(t for t in norm.split("-")
                                                                 if t not in accelerators._NOISE),))
    assert accelerators.lookup_accelerator("nvidia h100 80G").name == accelerators.lookup_accelerator("H100").name


def test_a_record_is_keyed_from_its_fields_in_order_whatever_their_number():
    from ctxlint.physics import memo
    from ctxlint.records import fields, record, values_getter

    @record(frozen=True)
    class One:
        a: object

    @record(frozen=True)
    class Two:
        a: object
        b: object = 1.0

    @record(frozen=True)
    class Nothing:
        pass

    for value in (One(1), One(1.0), One(True), Two("x", 1), Two("x"), Two(1.0, "x"), Nothing(),
                  CapacityInput(arch=lookup_model(MODELS[0]), engine="vllm", settings={"a": 1})):
        getter = values_getter([f.name for f in fields(type(value))])  # what memo keys a record's fields by
        assert getter(value) == tuple(getattr(value, f.name) for f in fields(value))
    assert len({memo.exact_key(v) for v in (One(1), One(1.0), One(True), Two(1), Two(1, 1.0), Two(1, 1))}) == 5
    assert memo.exact_key(Two(1, 1)) != memo.exact_key(Two(1, 1.0))


def test_remembered_batch_defaults_are_what_each_device_size_computes():
    # batch_defaults is remembered by (memory >= 70 GiB, memory >= 160 GiB, device, version, v0): for
    # every size of one tier the remembered answer must be the one computed for that size.
    gib = float(1 << 30)
    sizes = [1 * gib, 24 * gib, 69.99 * gib, 70 * gib, 80 * gib, 159.9 * gib, 160 * gib, 192 * gib, 2048 * gib,
             float("nan")]
    devices = ["candidate", "A100-SXM4-80GB", "NVIDIA H100 80GB HBM3", "H200", "GB10", "nvidia-gb10-x", ""]
    versions = [None, "0.6.3", "0.8.4", "0.8.5", "0.9.0", "0.12.0", "0.28.0", "0.30.1", "latest"]
    mem_vllm._BATCHES.clear()
    for version in versions:
        for device in devices:
            for v0 in (False, True):
                for total in sizes:
                    assert mem_vllm.batch_defaults(total, device, version, v0) == \
                        tuple(mem_vllm._batch_defaults(total, device, version, v0)), (total, device, version, v0)
    assert 0 < len(mem_vllm._BATCHES) < len(sizes) * len(devices) * len(versions) * 2  # answers were shared
