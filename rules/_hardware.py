"""Helpers for the CTX2xx rules: accelerator memory and engine memory knobs."""
from __future__ import annotations

from typing import Optional

from ctxlint.model import Deployment, Role
from ctxlint.physics.accelerators import Accelerator, lookup_accelerator

# Each engine's memory knob, and what its fraction is a fraction of (engines.md §0).
FRACTION_KNOBS = {
    "gpu_memory_utilization": ("vllm", "of total GPU memory for weights, activations and KV together"),
    "mem_fraction_static": ("sglang", "of total GPU memory for weights plus the KV pool"),
    "cuda_memory_fraction": ("tgi", "of total GPU memory (then x0.90 wiggle room)"),
    "kv_cache_free_gpu_memory_fraction": ("trtllm", "of the memory still free after weights, for KV only"),
    "cache_max_entry_count": ("lmdeploy", "of the memory free after weights, for KV (>= 1 means blocks)"),
}


def accelerator(dep: Deployment, role: Role) -> Optional[Accelerator]:
    if role.accelerators.type is None:
        return None
    return lookup_accelerator(role.accelerators.type.value, dict(dep.custom_accelerators) or None)


def engine_name(dep: Deployment) -> Optional[str]:
    return dep.engine.name.value if dep.engine.name is not None else None
