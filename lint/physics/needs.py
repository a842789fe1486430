"""What a role needs when its file does not say which accelerator it runs on.

`nvidia.com/gpu: 1` and nothing else is common in real manifests. Rather than skip the
role silently, ctxlint says how much memory per GPU one request of the role's context
needs at its parallelism, and which common devices meet it: the user can then state the
device (a node selector, or `default-accelerator` in .ctxlint.yaml) and get a verdict.
The search's estimate of the role on one device is made in need_estimates.py.
"""
from __future__ import annotations

import math
from typing import Any, Dict, List, Optional, Tuple

from ctxlint.model import Deployment, Role, fmt

from ..records import record
from .accelerators import lookup_accelerator
from .capacity import CapacityInput, compute, spanned_releases
from .device_verdicts import SearchedSizes
from .gaudi import unmodelled as unmodelled_on_gaudi
from .kv import normalize_engine
from .memo import Unkeyable, exact_key
from .need_advice import COMMON, _AMD, _NVIDIA, _advice, _vendor_devices  # noqa: F401  (re-exported)
from .need_estimates import _candidate, _estimate, _fields, _longest, _probe, _size_bytes
from .need_search import CELLS, HIGH, LOW, PLAIN_BELOW, PiecewiseFits, bisect, gib_at, monotone_tiers, pieces
from .span_search import SpannedFits, release_figure


def min_memory_gib(dep: Deployment, role: Role, arch, weights, context: int, which: str = "point",
                   estimates: Optional[Dict[float, Any]] = None) -> Optional[float]:
    """The least memory per GPU (GiB, to 0.1) at which one request of `context` tokens fits.

    `which` picks the estimate: "point", "low" (the band's floor: surely fits from here) or
    "high" (the band's top: surely does not fit below this). `estimates` (memory, or (vLLM release,
    memory) -> estimate) lets the three searches of one role share the estimates they all probe: the bisections
    start alike, and an estimate of an unknown vLLM release is seven estimates."""
    seen: Dict[float, Any] = {} if estimates is None else estimates

    def result_at(gib: float):
        result = seen.get(gib)
        if result is None:
            # the searches read only figures (_longest, release_figure): a lean estimate, kept in `seen`
            result = seen[gib] = _estimate(dep, role, arch, weights, _candidate(gib), context)
        return result

    def fits(gib: float) -> bool:
        longest = _longest(result_at(gib), which)
        return longest is not None and longest >= context

    end = _ENDS[which]
    settings = {key: val.value for key, val in role.engine_args}
    tiers = monotone_tiers(normalize_engine(str(dep.engine.name.value)), settings, arch, search=True)
    if tiers is not None:
        # The same bisection, its probes answered from a few estimates (need_search.py); exactly its result.
        try:
            found = _RANGES.get(tiers)
            if found is None:
                ranges = pieces(tiers, _size_bytes)
                # SGLang's automatic fraction does not rise below PLAIN_BELOW: those indices are estimated one by one
                plain = next((a for a, _ in ranges if _size_bytes(gib_at(a)) >= PLAIN_BELOW), CELLS + 1) \
                    if PLAIN_BELOW in tiers else 0
                found = _RANGES[tiers] = ranges, plain
            ranges, plain = found
            releases = spanned_releases(CapacityInput(**_fields(dep, role, arch, weights, context)))
            if releases:
                # The folded estimate's figure fits where every release's does (or any, for the band's top):
                # searched release by release (span_search.py), each estimate a seventh of a folded one.
                probes: List[Any] = [None] * len(releases)  # each release's prepared estimate (_probe)

                def figure(i: int, k: int) -> Optional[int]:
                    gib = LOW + (HIGH - LOW) * k / CELLS  # gib_at(k), the expression itself
                    result = seen.get((releases[i], gib))
                    if result is None:
                        probe = probes[i]
                        if probe is None:
                            probe = probes[i] = _probe(dep, role, arch, weights, context, releases[i])
                        result = seen[releases[i], gib] = probe(_candidate(gib))
                    return release_figure(result, which)
                def guess(i: int, first: int, last: int) -> Optional[int]:
                    probe = probes[i]
                    if probe is None:
                        probe = probes[i] = _probe(dep, role, arch, weights, context, releases[i])
                    return _guess(probe, context, end, first, last)
                return bisect(SpannedFits(figure, len(releases), which != "high", context, ranges,
                                          lambda i, k: (releases[i], LOW + (HIGH - LOW) * k / CELLS) in seen, guess))
            own = _probe(dep, role, arch, weights, context)
            # No budget line for SGLang's automatic fraction (`plain`): drawn through a tier's ends it costs two budgets
            # a tier and the fraction's steps (three places) put it off; the figures' own slope does better (the 270
            # files' SGLang budgets in the search: 242 with the line, 208 without, 268 searched plainly)
            guess = None if plain else lambda first, last: _guess(own, context, end, first, last)
            return bisect(PiecewiseFits(lambda k: _longest(result_at(gib_at(k)), which), context, ranges, guess, plain))
        except Exception:  # Fallback, or an estimate that raises: the plain search decides, as before
            pass
    return bisect(fits)


_RANGES: Dict[tuple, tuple] = {}  # memory tiers -> (the grid's index ranges between them, the first index searched
#                                   by range: a few tier sets)
_ENDS = {"point": 0, "low": 1, "high": 2}  # a lean_probe budget's figure for each searched figure


def _guess(probe: Any, context: int, end: int, first: int, last: int) -> Optional[int]:
    """The first grid index in [first, last] (one memory tier) where the prepared estimate's figure holds `context`,
    as the line of its budget in the memory puts it (lean_probe.least_total), last + 1 for none; None when the
    estimate is not a prepared one. Only a guess: the search checks it against the figures themselves."""
    least_total = getattr(probe, "least_total", None)
    if least_total is None:
        return None
    low, high = _candidate(gib_at(first)), _candidate(gib_at(last))
    total = least_total(context, end, low, high)
    if total is None:
        return None
    t1, t2 = float(low.memory_bytes), float(high.memory_bytes)
    if total <= t1:
        return first
    if total > t2:
        return last + 1
    return first + math.ceil((total - t1) * (last - first) / (t2 - t1))


@record(frozen=True)
class MemoryNeed:
    """Memory per GPU one request of `context` tokens needs: from `least` (below it, surely not) to
    `most` (from it, surely yes; None when even 2 TiB is not sure), with the point estimate."""
    context: int
    least: Optional[float]
    point: Optional[float]
    most: Optional[float]
    layout: str
    unmodelled: str = ""  # why no size holds it: the model's KV cache is not modelled (not a shortfall)
    device_helps: bool = False  # an unmodelled need whose device, once stated, still gets its verdict

    def text(self) -> str:
        if self.unmodelled:
            return f"no memory need can be given for {fmt(self.context)} tokens: {self.unmodelled}"
        if self.point is None and self.least is None:
            return f"one request of {fmt(self.context)} tokens does not fit even 2 TiB per GPU at {self.layout}"
        if self.point is None:  # the point estimate does not fit 2 TiB, the optimistic end does
            band = f"{self.least:g} (the estimate itself does not fit even 2 TiB)"
        elif self.least == self.most or self.most is None and self.least is None:
            band = f"{self.point:g}"
        else:
            band = f"{self.point:g} (band {self.least:g}-{self.most:g})" if self.most is not None else \
                f"{self.point:g} (band {self.least:g}-?)"
        return f"holding one request of {fmt(self.context)} tokens needs >= {band} GiB per GPU at {self.layout}"


def memory_need(dep: Deployment, role: Role, arch, weights) -> Optional[MemoryNeed]:
    """What one request of the role's promise needs per GPU, when its device is not stated."""
    return _need_and_verdicts(dep, role, arch, weights)[0]


def _need_and_verdicts(dep: Deployment, role: Role, arch, weights) -> Tuple[Optional[MemoryNeed], Tuple[str, ...]]:
    """memory_need and the common devices' verdicts, remembered by the role's device-free estimate
    input (its exact key: model, engine, release, layout, settings, weights, context). A fleet runs
    the same model the same way in many files (replicas, environments, overlays); each search is
    ~50 estimates, and answering a repeat from the estimates' memo still cost ~1 ms a role."""
    context = role.context_length.value if role.context_length is not None else (
        dep.advertised.context_window.value if dep.advertised.context_window is not None else None)
    if not context or arch is None or arch.total_params_b is None:
        return None, ()
    window = dep.advertised.context_window
    if window is not None and isinstance(window.value, int) and window.value > context:
        context = window.value
    engine = dep.engine.name.value if dep.engine.name is not None else None
    gaudi = unmodelled_on_gaudi(role, engine)
    if gaudi:  # the CUDA arithmetic below would be no need on an HPU (physics/gaudi.py)
        return MemoryNeed(context, None, None, None, "", gaudi), ()
    if engine == "llamacpp":
        from .llamacpp_host import unmodelled as on_host  # only a llama.cpp role pays for the import

        # a model known to have no experts (none counted, no expert weights): the MoE flags move nothing
        dense = not arch.num_experts and arch.expert_params_b == 0
        held = on_host(role, engine, arch.num_layers, dense)
        if held:  # part of the model in host memory: the whole model's need would be too high
            return MemoryNeed(context, None, None, None, "", held, device_helps=True), ()
    try:
        key = exact_key(CapacityInput(accelerator=None, **_fields(dep, role, arch, weights, context)))
    except Unkeyable:
        key = None
    devices = _vendor_devices(role)[0]
    # an NVIDIA pod's verdicts are the common devices' without the AMD one: one search serves both, so a role
    # with an nvidia.com/gpu count and one of no stated resource share it (no estimate is made twice)
    searched = COMMON if devices == _NVIDIA else devices
    key = (key, searched) if key is not None else None
    found = _NEEDS.get(key) if key is not None else None
    if found is None:
        found = _search(dep, role, arch, weights, context, searched)
        if key is not None:
            if len(_NEEDS) >= 1024:  # bounded: drop the oldest
                del _NEEDS[next(iter(_NEEDS))]
            _NEEDS[key] = found
    if searched is not devices:
        found = found[0], tuple(v for v in found[1] if v.split(" ", 1)[0] not in _AMD)
    return found


_NEEDS: Dict[Any, Tuple[Optional[MemoryNeed], Tuple[str, ...]]] = {}


def _search(dep: Deployment, role: Role, arch, weights, context: int,
            devices: Tuple[str, ...] = COMMON) -> Tuple[MemoryNeed, Tuple[str, ...]]:
    from .device_verdicts import verdict as device_verdict  # at each search: tests replace it

    par = role.parallelism
    layout = f"TP {par.tp}" + (f" x PP {par.pp}" if par.pp > 1 else "")
    estimates: Dict[float, Any] = {}
    point = min_memory_gib(dep, role, arch, weights, context, estimates=estimates)
    least = min_memory_gib(dep, role, arch, weights, context, "high", estimates)
    most = min_memory_gib(dep, role, arch, weights, context, "low", estimates)
    if point is None and least is None:
        # Not even 2 TiB: a real shortfall, or an estimate that cannot be made at all (a model side ctxlint
        # does not model, e.g. DeepSeek-V4's compressed attention), which must not read as "does not fit"
        probe = compute(CapacityInput(accelerator=_candidate(2048.0), **_fields(dep, role, arch, weights, context)))
        if probe.kv_bytes_per_token_per_gpu is None and probe.errors:
            return MemoryNeed(context, None, None, None, layout, "; ".join(probe.errors)), ()
    need = MemoryNeed(context, least, point, most, layout)
    verdicts = []
    if point is not None:
        sizes = _searched_sizes(dep, role, arch, weights, context, estimates)
        for name in devices:
            acc = lookup_accelerator(name)
            if acc is None:
                continue
            # SGLang reads a PCIe card's name above TP 2 (mem_sglang.pcie_group): estimated on the device itself
            found = None if sizes is None or _pcie_sglang(dep, role, acc.name) else device_verdict(
                sizes, acc.name, float(acc.memory_bytes), context,
                lambda release: _estimate(dep, role, arch, weights, acc, context,
                                          release if sizes.spanned else None), float(acc.memory_high))
            if found is None:  # only _longest reads these estimates: lean ones
                result = _estimate(dep, role, arch, weights, acc, context)
                found = (_longest(result, "low") or 0) >= context, (_longest(result, "high") or 0) >= context
            sure, maybe = found
            verdicts.append(f"{acc.name} {'yes' if sure else 'maybe' if maybe else 'no'}")
    return need, tuple(verdicts)


def _pcie_sglang(dep: Deployment, role: Role, name: str) -> bool:
    if normalize_engine(str(dep.engine.name.value)) != "sglang":
        return False
    from .mem_sglang import pcie_group  # bound: an SGLang estimate imported it
    return pcie_group(name, role.parallelism.tp)


def _searched_sizes(dep: Deployment, role: Role, arch, weights, context: int, estimates: Dict[Any, Any]):
    """The search's estimates of a role whose figures rise between tiers (device_verdicts.py), or None: vLLM,
    TensorRT-LLM and SGLang with mem_fraction_static set (need_search.monotone_tiers), whose estimates read a
    device by its memory alone but for vLLM's batch rule (device_verdicts reads it)."""
    engine = normalize_engine(str(dep.engine.name.value))
    tiers = monotone_tiers(engine, {key: val.value for key, val in role.engine_args}, arch)
    if tiers is None:
        return None
    fields = _fields(dep, role, arch, weights, context)
    releases = spanned_releases(CapacityInput(**fields))
    return SearchedSizes(estimates, releases or (fields["engine_version"],), bool(releases), tiers, _size_bytes,
                         context, engine == "vllm")


def needs_text(dep: Deployment, role: Role, arch, weights) -> str:
    """The CTX208 reason for a role without an accelerator type."""
    count = f" ({role.accelerators.count.value} per replica, type unknown)" if role.accelerators.count else ""
    base = f"no accelerator type (or available_kv_gib) is given{count}" if role.device_vm is None else \
        f"the VM size {role.device_vm.value} names no device ctxlint records{count}"
    need, verdicts = _need_and_verdicts(dep, role, arch, weights)
    if need is None and arch is not None and arch.total_params_b is None:
        # a device would not derive the pool either (budget._missing): say so, not only "state the device"
        return f"{base}, and the model's parameter count is not known, so no device would derive its weights " \
               "per GPU: give total_params_b (under `models:` in .ctxlint.yaml) or available_kv_gib"
    if need is None:
        return f"{base}; {_advice(dep, role)}"
    if need.unmodelled:  # a device would not help (the engine's own figure would), but where it still decides
        return f"{base}; {need.text()}; {_advice(dep, role)}" if need.device_helps else f"{base}; {need.text()}"
    fix = _advice(dep, role)
    if need.point is None:
        return f"{base}; {need.text()}; {fix}"
    listed = f" ({', '.join(verdicts)})" if verdicts else ""
    return f"{base}; {need.text()}{listed}; {fix}"
