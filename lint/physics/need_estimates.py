"""One role's lean estimate on a searched device: the figures the searches for its least memory (needs.py,
span_search.py) read, at ~50 devices a role.

Apart from needs.py, which searches and words the need: what does not read the device is prepared here once per
role and release (lean_probe.prepare) and reused across the devices in a row (_probe's `_LAST`); the devices
themselves are candidates of the search's memory grid (_candidate), one immutable record a size."""
from __future__ import annotations

from functools import lru_cache
from typing import Any, Dict, Optional

from ctxlint.model import Deployment, Role

# At module level, not in the functions: _estimate runs ~40 times a searched role, and an import
# statement there cost ~5% of a search. This module is imported only when a role has no device (needs.py).
from .accelerators import accelerator_from_mapping
from .lean_probe import prepare as prepare_probe
from .mtp import draft_layers


def _estimate(dep: Deployment, role: Role, arch, weights, accelerator: Any, context: int,
              release: Optional[str] = None):
    """The role's lean estimate on `accelerator` (under vLLM `release`, when given): its figures only
    (capacity.compute_lean's, or the same figures from lean_probe.py), never remembered, since the
    search keeps what it asks for. A role is estimated on ~40 devices in a row (the search's sizes,
    the common devices): what does not read the device is prepared once per role and release
    (lean_probe.prepare), with one dict for the work the estimates share (the model side, vLLM's
    device-free terms)."""
    return _probe(dep, role, arch, weights, context, release)(accelerator)


def _probe(dep: Deployment, role: Role, arch, weights, context: int, release: Optional[str] = None):
    """_estimate's prepared estimate of the role under `release` (None: its own), for a device."""
    global _LAST
    last = _LAST
    if last is None or not (last[0] is dep and last[1] is role and last[2] is arch and last[3] is weights
                            and last[4] == context and type(last[4]) is type(context)):
        # the objects are held, so `is` above never matches a new object at a reused address; the
        # inputs built from the fields differ only in accelerator and release: one dict for model_side
        last = _LAST = (dep, role, arch, weights, context, _fields(dep, role, arch, weights, context), {}, {})
    probe = last[7].get(release)  # None: the role's own release (a release is a string)
    if probe is None:
        probe = last[7][release] = prepare_probe(
            last[5] if release is None else dict(last[5], engine_version=release), last[6])
    return probe


_LAST: Optional[tuple] = None  # (dep, role, arch, weights, context, the other fields, the estimates' shared dict,
#                                  the prepared estimate under each release)


def _fields(dep: Deployment, role: Role, arch, weights, context: int) -> Dict[str, Any]:
    """The role's CapacityInput fields but the accelerator."""
    par = role.parallelism
    settings: Dict[str, Any] = {key: val.value for key, val in role.engine_args}
    if str(dep.engine.name.value) == "trtllm":
        from .trt_warmup import mark_unknown  # only a TensorRT-LLM role pays for it
        mark_unknown(role, settings)
    return dict(
        arch=arch, engine=str(dep.engine.name.value), tp=par.tp, pp=par.pp, dp=par.dp,
        kv_cache_dtype=role.kv_cache_dtype.value if role.kv_cache_dtype else "auto", settings=settings,
        context_length=context, draft_layers=draft_layers(arch, dep.engine.name.value, role.draft_layers),
        weights=weights,
        engine_version=str(dep.engine.version.value) if dep.engine.version is not None else None,
        engine_build=str(dep.engine.build.value) if dep.engine.version is None and dep.engine.build else None)


def _longest(result, which: str) -> Optional[int]:
    """The longest single request the estimate holds: at its point, or at its band's low or high end."""
    point = result.max_context_at_concurrency_1
    # llama.cpp reserves a fixed ctx_size of cells and reports a shortfall only as an error: the
    # request counts only when this end's KV budget holds every cell.
    if point is not None and result.engine == "llamacpp":
        budget = {"point": result.kv_budget_bytes_per_gpu, "low": result.kv_budget_low,
                  "high": result.kv_budget_high}[which]
        if budget is None or budget < (result.pool_tokens or 0) * (result.kv_bytes_per_token_per_gpu or 0):
            return None
    if which == "point" or point is None:
        return point
    value = result.max_context_low if which == "low" else result.max_context_high
    return point if value is None else value



@lru_cache(maxsize=4096)
def _candidate(gib: float):
    """The device a search probes at `gib` (an immutable record: the searches of every role probe the same grid)."""
    return accelerator_from_mapping("candidate", {"memory_gib": gib})


def _size_bytes(gib: float) -> float:
    """A searched size's device memory, as its estimate had it."""
    return float(_candidate(gib).memory_bytes)
