"""Issue 15: vLLM's budget terms worked out once per role and release (mem_vllm._Fixed) give exactly
what the whole computation gave. The oracle is mem_vllm.terms as it was before the split."""
from __future__ import annotations

from typing import Any, List, Mapping, Optional

import pytest
from conftest import SHARED
from helpers import run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_need_search import MODELS

from ctxlint.physics import capacity, need_estimates, needs, vllm_extensible, vllm_mm
from ctxlint.physics.accelerators import accelerator_from_mapping, lookup_accelerator
from ctxlint.physics.activation import profile_peak
from ctxlint.physics.capacity import CapacityInput
from ctxlint.physics.mem_vllm import (_CG_DEFAULT, _UTIL_092, _V0_7_0, _V0_9_1, _V0_18_0, _at_least, _between,
                                      _sampler, _v, batch_defaults, is_v0, terms, v0_peak, v0_tokens)
from ctxlint.physics.models import ModelArch, lookup_model
from ctxlint.physics.releases import VLLM_RELEASES
from ctxlint.physics.served import positive_int
from ctxlint.physics.terms import GIB, Term


def _terms_before(arch: ModelArch, total: float, device: str, tp: int, pp: int, settings: Mapping[str, Any],
          version: Optional[str], context: Optional[int], lean: bool = False) -> tuple:
    """(base Term, [subtracted Terms], rule text) for the estimate; `lean`: the base's formula and the
    rule left unwritten ("": the CTX208 search reads only the figures)."""
    v = _v(version)
    v0 = is_v0(version, settings)
    util = settings.get("gpu_memory_utilization")
    if not isinstance(util, (int, float)) or isinstance(util, bool):
        util = 0.92 if _at_least(v, _UTIL_092) else 0.90  # unknown version: the older, smaller default
    base = Term.exact("instance memory", total * float(util), "" if lean else (
        f"{total / GIB:.2f} GiB x gpu_memory_utilization {float(util):g}"
        + ("" if "gpu_memory_utilization" in settings else " (default)")))
    mnbt, seqs = settings.get("max_num_batched_tokens"), settings.get("max_num_seqs")
    out: List[Term] = []
    if v0:
        tokens = int(mnbt) if isinstance(mnbt, int) and mnbt > 0 else v0_tokens(settings, context, version)
        out.append(v0_peak(arch, tokens, tp, version))
        rule = "" if lean else f"vLLM {version} V0: profile of {tokens} tokens"
    else:
        candidates = batch_defaults(total, device, version, v0)
        pick = [(int(mnbt) if isinstance(mnbt, int) and mnbt > 0 else c[0],
                 int(seqs) if isinstance(seqs, int) and seqs > 0 else c[1]) for c in candidates]
        every, entry = _sampler(version)
        peak = profile_peak(arch, pick[0][0], pick[0][1], tp, every, entry)
        mm = vllm_mm.profile(arch, settings, version, context)  # a vision tower's encoder run (vllm_mm.py)
        if mm is not None:
            text = arch.hidden_size or arch.num_attention_heads * arch.head_dim
            peak = mm.peak(peak, pick[0][0], pick[0][1], tp, arch.dtype_bytes, text)
        out.append(peak)
        rule = "" if lean else f"vLLM {version or '(version unknown: most conservative V1 rules)'} V1: profile " \
                               f"of {pick[0][0]} tokens x {pick[0][1]} sequences"
    # data-parallel ranks talk too (expert all-to-all, DP sync): the several-GPU buffers apply
    multi = tp * pp > 1 or positive_int(settings.get("data_parallel_size"), 1) > 1
    # Logged: 0.13-0.35 GiB on one GPU; 0.54-0.55 GiB at TP 2 on one node, ~1.1 GiB across two nodes (Ray),
    # ~2.1 GiB at TP 2-4 in the llm-d planner's table.
    nodes = settings.get("nnodes") if isinstance(settings.get("nnodes"), int) else 1
    across = multi and (str(settings.get("distributed_executor_backend", "")).lower() == "ray" or nodes > 1)
    if across:  # NCCL over the network keeps larger buffers (~1.1 GiB more in the two-node Ray log)
        nt = Term("non-torch", 1.5 * GIB, 1.1 * GIB, 2.5 * GIB, "NCCL across nodes and workspaces")
    elif multi:
        nt = Term("non-torch", 1.0 * GIB, 0.5 * GIB, 2.2 * GIB, "NCCL and workspaces, several GPUs")
    else:
        nt = Term("non-torch", 0.25 * GIB, 0.13 * GIB, 0.6 * GIB, "cuBLAS/attention workspaces, one GPU")
    if not v0 and (_between(v, _V0_7_0, _V0_9_1) or v is None):
        # These versions counted the CUDA context as non-torch (total - free - torch allocated); its size
        # depends on the device, driver and lazy module loading: 0.25-0.6 GiB.
        nt = Term(nt.label, nt.point + 0.45 * GIB, nt.low + 0.25 * GIB, nt.high + 0.6 * GIB,
                  nt.how + " + CUDA context (V1 0.7-0.9.0)")
    out.append(nt)
    eager = settings.get("enforce_eager") is True
    cg_env = str(settings.get("VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS", "")).strip()
    if not eager and not v0:
        subtract_graphs = v is None and cg_env != "0" or _at_least(v, _CG_DEFAULT) and cg_env != "0" or (
            _between(v, _V0_18_0, _CG_DEFAULT) and cg_env == "1")
        if subtract_graphs:
            out.append(Term("CUDA graphs", 0.7 * GIB, 0.3 * GIB, 2.0 * GIB, "estimated before KV sizing (>= 0.20)"
                            + (" (version unknown: counted)" if v is None else "")))
    on = vllm_extensible.mode(version, settings) if not v0 else vllm_extensible.OFF
    if on == vllm_extensible.OFF or not vllm_extensible.on_device(device):
        return base, out, rule
    # vLLM >= 0.34.0's extensible KV cache (vllm_extensible.py), written out whole: utilization 1.0 unless
    # given, the capture measured whatever the estimate's env says, the context and sizing margin beyond
    util_on = float(util) if "gpu_memory_utilization" in settings and isinstance(settings[
        "gpu_memory_utilization"], (int, float)) and not isinstance(settings["gpu_memory_utilization"], bool) else 1.0
    util_base = util_on if on == vllm_extensible.ON else float(util)
    if on == vllm_extensible.ON:
        base = Term.exact("instance memory", total * util_on, "" if lean else (
            f"{total / GIB:.2f} GiB x gpu_memory_utilization {util_on:g}"
            + ("" if "gpu_memory_utilization" in settings else " (default with the extensible KV cache)")))
        if not eager:
            out = [t for t in out if t.label != "CUDA graphs"]
            out.append(Term("CUDA graphs", 0.7 * GIB, 0.3 * GIB, 2.0 * GIB, "measured after capture (>= 0.34)"))
    out.append(vllm_extensible.margin_term(total, device, util_on, util_base, out[0], on, lean))
    if not lean:
        rule += "; KV cache sized after warmup and CUDA-graph capture (extensible KV cache" + (
            ", if the KV connector allows it)" if on == vllm_extensible.MAYBE else ")")
    return base, out, rule



SETTINGS = {
    "gpu_memory_utilization": [0.5, 0.9, 1, 0, True, "0.8"],
    "max_num_batched_tokens": [512, 8192, 0, True, "4096"],
    "max_num_seqs": [16, 512, -1],
    "enforce_eager": [True, "true"],
    "VLLM_USE_V1": ["0", "1"],
    "enable_chunked_prefill": [True, False],
    "distributed_executor_backend": ["ray", "mp"],
    "nnodes": [1, 2],
    "data_parallel_size": [1, 4],
    "VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS": ["0", "1"],
    "enable_extensible_kv_cache": [True, False],
    "kv_transfer_config": [{"kv_connector": "NixlConnector", "kv_role": "kv_both"}],
}
DEVICES = ["L4", "A100-80GB", "A100-40GB", "H100", "H200", "B200", "MI300X"]
NAMED = st.one_of(st.sampled_from(DEVICES).map(lookup_accelerator),  # names the batch rules read, any size
                  st.sampled_from(["GB10", "A100-custom", "h200x"]).flatmap(lambda name: st.integers(2, 800).map(
                      lambda n: accelerator_from_mapping(name, {"memory_gib": n / 2}))))


@st.composite
def roles(draw):
    """A role (model, layout, settings, context) and the (device, release) pairs it is estimated at."""
    chosen = draw(st.sets(st.sampled_from(sorted(SETTINGS)), max_size=5))
    role = dict(arch=lookup_model(draw(st.sampled_from(MODELS))), tp=draw(st.sampled_from([1, 2, 8])),
                pp=draw(st.sampled_from([1, 2])), settings={k: draw(st.sampled_from(SETTINGS[k])) for k in sorted(chosen)},
                context=draw(st.sampled_from([None, 2048, 65536, 1_000_000])))
    device = st.one_of(NAMED, st.integers(2, 800).map(
        lambda n: accelerator_from_mapping("candidate", {"memory_gib": n / 2})))
    release = st.sampled_from([None, "0.5.0", "0.6.3", "0.7.2", "0.9.0", *VLLM_RELEASES])
    return role, draw(st.lists(st.tuples(device, release), min_size=1, max_size=12))


@given(roles(), st.booleans())
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_terms_with_one_cache_for_a_role_are_the_terms_computed_whole(case, lean):
    role, probes = case
    cache: dict = {}
    for acc, release in probes:
        args = (role["arch"], float(acc.memory_bytes), acc.name, role["tp"], role["pp"], role["settings"], release,
                role["context"], lean)
        assert terms(*args, cache=cache) == _terms_before(*args), (acc.name, release)


@st.composite
def inputs(draw):
    (role, probes) = draw(roles())
    return [CapacityInput(arch=role["arch"], engine="vllm", accelerator=acc, tp=role["tp"], pp=role["pp"],
                          settings=role["settings"], context_length=role["context"], engine_version=release)
            for acc, release in probes]


@given(inputs(), st.booleans())
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_estimates_sharing_a_role_dict_are_the_estimates_made_alone(inps, lean):
    shared: dict = {}
    for inp in inps:
        assert capacity._compute_one(inp, shared, lean) == capacity._compute_one(inp, None, lean)


@pytest.mark.skipif(not (SHARED / "corpus" / "real").is_dir(), reason="../shared/corpus/real is not beside the repo")
def test_every_estimate_of_the_corpus_made_with_a_role_dict_is_the_estimate_made_alone(monkeypatch):
    one, compared, differ = capacity._compute_one, [], []

    def checked(inp, shared=None, lean=False):
        result = one(inp, shared, lean)
        if shared is not None and inp.engine == "vllm":
            compared.append(inp.engine_version)
            if result != one(inp, None, lean):
                differ.append(inp)
        return result
    monkeypatch.setattr(capacity, "_compute_one", checked)
    # the searches' estimates as compute_lean makes them (test_lean_probe: its prepared probes give the same)
    monkeypatch.setattr(need_estimates, "prepare_probe", lambda fields, shared: lambda acc: capacity.compute_lean(
        CapacityInput(accelerator=acc, **fields), shared))
    capacity._MEMO.clear()
    needs._NEEDS.clear()  # roles searched by earlier tests are searched again
    run(["check", str(SHARED / "corpus" / "real"), "--fail-on", "never"])
    capacity._MEMO.clear()  # nothing made under the check stays for other tests
    assert differ == []
    assert len(compared) > 1000 and set(VLLM_RELEASES) <= set(compared)


def test_releases_that_profile_alike_share_one_peak(monkeypatch):
    from ctxlint.physics import mem_vllm

    made = []
    monkeypatch.setattr(mem_vllm, "profile_peak", lambda *a: made.append(a[1:]) or profile_peak(*a))
    arch, acc, cache = lookup_model("meta-llama/Llama-3.1-8B-Instruct"), lookup_accelerator("H100"), {}
    releases = [None, *VLLM_RELEASES]
    for release in releases:
        args = (arch, float(acc.memory_bytes), acc.name, 1, 1, {}, release, 8192)
        assert terms(*args, cache=cache) == _terms_before(*args)
    samplers = {_sampler(release) for release in releases if not is_v0(release, {})}
    assert len(made) == len(set(made)) <= len(samplers) * 2 < len(releases)
