"""The audit's capacity verdict of one deployment: does every role hold one request of what it is promised?

Apart from the audit's rows (audit.py) because it judges the physics (capacity, stated pools, llama.cpp's
cells, memory needs) while the rows only lay out what it says.
"""
from __future__ import annotations

from typing import Optional, Tuple

from ctxlint.model import Deployment, Role


def int_value(val) -> Optional[int]:
    """A Val's value when it is an int (not a bool), else None: the audit's rows read their numbers so too."""
    value = None if val is None else val.value
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def verdict_of(dep: Deployment) -> Tuple[str, str]:
    """The capacity verdict: does every role hold one request of what it is promised?

    "fits" / "exceeds" need a pool and a promise for every role: "fits" when the promise is at
    or below the band of what one request can hold of the pool (the pool less the engine's
    reserve: vLLM's null block), "exceeds" above its top, "within band" between. A role whose
    memory has no room for the KV cache, or not even for its weights, is a verdict too (the
    engine will not start). A role whose device is not stated gets the memory per GPU it needs
    ("needs >= N GiB/GPU"), a verdict conditional on the device. A stated pool above what the device could
    hold with all of its memory is judged by what the engine does with it (ctxlint.stated_pools): one the
    engine allocates as told will not start ("KV does not fit"), one a person declared is held against
    that ceiling ("exceeds" above it, else "within band"), and a cap is judged by the pool the engine
    profiles, which the capacity stage derived. Anything else is "unknown",
    with what is missing, unless another role is sure not to hold its promise (that decides)."""
    if not dep.roles:
        return "unknown", "no serving role"
    order = ("fits", "needs", "within band", "no KV memory", "KV does not fit", "weights do not fit", "exceeds")
    worst, need_text, unknown = "fits", "", ""
    window = int_value(dep.advertised.context_window)
    from ctxlint.capacity import weights_of
    from ctxlint.no_kv_memory import starved
    llamacpp = dep.engine.name is not None and dep.engine.name.value == "llamacpp"
    if llamacpp:
        from ctxlint.llamacpp_cells import shortfall
    lmdeploy = dep.engine.name is not None and dep.engine.name.value == "lmdeploy"
    from ctxlint.stated_pools import ALLOCATES, STATED, overreach
    from ctxlint.physics.needs import memory_need

    def worse(verdict: str) -> None:
        nonlocal worst
        if order.index(verdict) > order.index(worst):
            worst = verdict

    for role in dep.roles:
        short = starved(dep, role)
        if short in ("weights", "kv"):  # "kv?": the band straddles one block, judged as any band below
            worse("weights do not fit" if short == "weights" else "no KV memory")
            continue
        if llamacpp and shortfall(dep, role) is not None:  # its -c cells cannot be allocated: it will not start
            worse("KV does not fit")
            continue
        # a stated pool above what the device could hold (CTX202): by what the engine does with it (stated_pools)
        over = overreach(dep, role) if role.kv_pool_tokens is not None or lmdeploy else None
        if over is not None and over.kind == ALLOCATES:  # allocated as told: out of memory at startup
            worse("KV does not fit")
            continue
        promise = window or int_value(role.context_length)
        if not window and role.pool is not None and role.context_default is not None \
                and role.context_default.follows_pool:  # the engine sizes its context to the pool it has
            worse("within band" if role.pool.request_floor == 0 and role.pool.banded else "fits")
            continue
        if over is not None and over.kind == STATED and promise:  # fiction: the real pool is below the ceiling
            worse("exceeds" if promise > over.ceiling else "within band")
            continue
        if role.pool is None:
            missing = _missing(dep, role)
            need = memory_need(dep, role, dep.arch, weights_of(dep, role, dep.resolution)) \
                if missing == "no accelerator type" and promise else None
            if need is None or need.point is None:
                unknown = unknown or missing  # a role sure not to hold its promise still decides (below)
                continue
            gib = max(need.point, float(need_text or 0))
            need_text = f"{gib:g}"
            worse("needs")
            continue
        if not promise:
            unknown = unknown or f"{role.label}: no context length or window to hold"
            continue
        # held against what one request can hold (the pool less the engine's reserve), as the rules do
        if promise > role.pool.request_ceiling:
            worse("exceeds")
        elif promise > role.pool.request_floor:
            worse("within band")
    if worst in ("no KV memory", "KV does not fit", "weights do not fit", "exceeds"):
        return worst, ""  # whatever the other roles hold: this one is sure not to
    if unknown:
        return "unknown", unknown
    if worst == "needs":
        return f"needs >= {need_text} GiB/GPU", ""
    return worst, ""


# what the budget says with a device and no parameter count (physics/budget._missing)
WEIGHTS_UNKNOWN = "weights per GPU unknown (no parameter count): give total_params_b or available_kv_gib"


def _missing(dep: Deployment, role: Role) -> str:
    from ctxlint.capacity import DERIVABLE_ENGINES
    if dep.arch is None:
        from ctxlint.capacity_notes import router_mode  # a llama-server router names no model of its own
        return "llama-server router: its models are not read" if router_mode(dep) else "model not resolved"
    if (dep.engine.name.value if dep.engine.name is not None else None) not in DERIVABLE_ENGINES:
        from ctxlint.adapters.nim_backend import headline  # a NIM says which of its facts is missing
        return headline(dep.engine.name.raw) or "engine not supported for derivation"  # a device would not help
    if role.accelerator_withheld is not None:  # stated, but what one device holds depends on an unknown TP
        return "parallel size not known"
    if role.cpu_build is not None and role.available_kv_gib is None:
        return "CPU engine: KV memory not stated"
    from ctxlint.capacity_notes import unknown_split
    if role.accelerators.type is None and unknown_split(dep.engine.name.value if dep.engine.name else None, role,
                                                                 dep.arch):
        return "parallel size not known"  # what one GPU needs depends on it: no per-GPU verdict
    if role.accelerators.type is None and role.available_kv_gib is None:
        if dep.arch.total_params_b is None:  # no device would derive the pool: say what would
            return WEIGHTS_UNKNOWN
        return "no accelerator type"
    if role.capacity is not None and role.capacity.errors:
        return role.capacity.errors[0]
    return "engine not supported for derivation"
