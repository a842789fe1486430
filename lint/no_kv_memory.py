"""Roles whose accelerators leave no memory for the weights or for one KV block: they will not start.

`starved` gives the verdict (CTX203's weights that do not fit, CTX209's "no KV memory", or a band
that straddles one block) from a role's physics result, and `diagnostics` the capacity stage's
findings for the roles with no KV memory, in words that say what to change. The audit asks
`starved` too. They are apart from capacity.py, which derives the pools, because they judge a
derivation already made.
"""
from __future__ import annotations

from typing import List, Optional

import ctxlint.capacity as _cap  # the physics binding and rule names: read at call time (no import cycle)
from ctxlint.findings import Diagnostic
from ctxlint.model import Deployment, Role

from .pool_caps import GIB


def starved(dep: Deployment, role: Role) -> Optional[str]:
    """"weights" when even the smallest estimate of the weights exceeds the accelerator, "kv" when
    even the most generous estimate of what the engine leaves holds less than one KV block (it will
    not start), "kv?" when the band straddles one block (it may not), else None."""
    if not _cap._PHYSICS:
        _cap._physics()
    cap = role.capacity
    if cap is not None and dep.engine.name is not None and dep.engine.name.value == "llamacpp":
        from ctxlint.llamacpp_cells import off_gpu  # only a llama.cpp role pays for it
        if off_gpu(dep, role, kv=True):  # llama.cpp keeps part of the weights or KV in host memory: nothing sure
            return None
    if cap is not None and cap.kv_bytes_per_token_per_gpu is None and cap.kv_budget_bytes_per_gpu is None:
        # a KV layout not modelled (DeepSeek-V4): weights that cannot load decide alone
        return "weights" if _weights_exceed(dep, role, cap) else None
    if cap is None or cap.kv_budget_bytes_per_gpu is None or not cap.budget_is_estimate:
        return None
    if _weights_exceed(dep, role, cap):
        return "weights"
    block_bytes = (cap.kv_bytes_per_token_per_gpu or 0) * max(1, cap.block_size)
    high = cap.kv_budget_high if cap.kv_budget_high is not None else cap.kv_budget_bytes_per_gpu
    low = cap.kv_budget_low if cap.kv_budget_low is not None else cap.kv_budget_bytes_per_gpu
    if high < block_bytes:
        return "kv"
    return "kv?" if low < block_bytes else None


def diagnostics(dep: Deployment) -> List[Diagnostic]:
    """Roles whose memory leaves no room for one KV block (CTX203 reports weights that do not fit)."""
    out: List[Diagnostic] = []
    for role in dep.roles:
        if starved(dep, role) != "kv":
            continue
        where = role.accelerators.type or role.accelerators.count
        out.append(Diagnostic(_cap.NO_KV_MEMORY, _no_memory_text(dep, role, role.capacity),
                              where.source if where is not None else (role.source or dep.source), dep.display_name))
    return out


def _weights_exceed(dep: Deployment, role: Role, cap) -> bool:
    acc = _cap.lookup_accelerator(str(role.accelerators.type.value), dict(dep.custom_accelerators) or None) \
        if role.accelerators.type is not None else None
    weights = cap.weights_low_per_gpu or cap.weights_bytes_per_gpu
    return acc is not None and bool(weights) and weights > acc.memory_high  # CTX203's test


def _no_memory_text(dep: Deployment, role: Role, cap) -> str:
    from ctxlint.adapters.workload_inputs import how_to_state_pool  # only a role with no KV memory pays for it

    steps = {label: (formula, value) for label, formula, value in cap.steps}
    budget = steps.get("KV budget", ("", cap.kv_budget_bytes_per_gpu))
    band = ""
    if cap.kv_budget_high is not None and cap.kv_budget_high != cap.kv_budget_bytes_per_gpu:
        band = f" (at most {cap.kv_budget_high / GIB:.2f} GiB with every estimated term at its smallest)"
    rule = f"; {cap.rule}" if cap.rule else ""
    return (f"{cap.kv_budget_bytes_per_gpu / GIB:.2f} GiB < one KV block{band}: the {role.label} engine has no "
            f"memory left for the KV cache on {cap.accelerator} ({budget[0]}{rule}), so it will not start. Use "
            "more or larger accelerators, more tensor parallelism, a quantized checkpoint, or a higher memory "
            f"fraction; if the engine does start, state the KV memory it logs ({how_to_state_pool(dep.input_format)})")
