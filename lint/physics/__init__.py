"""Capacity physics: derive each role's KV pool from the model, the
accelerators and the engine settings (issue #3). Pure functions only.

The package-level names are loaded on first use (PEP 562): a check whose files hold
no deployment should not pay for importing the whole package.
"""
from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "Accelerator": "accelerators", "lookup_accelerator": "accelerators",
    "CapacityInput": "capacity", "CapacityResult": "capacity", "estimate": "capacity",
    "KVBreakdown": "kv", "kv_breakdown": "kv", "kv_bytes_per_token_per_gpu": "kv",
    "ModelArch": "models", "arch_from_hf_config": "models", "lookup_model": "models", "with_overrides": "models",
}
__all__ = list(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(list(globals()) + __all__)
