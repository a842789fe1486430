"""Capacity physics: derive each role's KV pool from the model, the
accelerators and the engine settings (issue #3). Pure functions only."""
from __future__ import annotations

from .accelerators import Accelerator, lookup_accelerator
from .capacity import CapacityInput, CapacityResult, estimate
from .kv import KVBreakdown, kv_breakdown, kv_bytes_per_token_per_gpu
from .models import ModelArch, arch_from_hf_config, lookup_model, with_overrides

__all__ = ["Accelerator", "lookup_accelerator", "CapacityInput", "CapacityResult", "estimate", "KVBreakdown",
           "kv_breakdown", "kv_bytes_per_token_per_gpu", "ModelArch", "arch_from_hf_config", "lookup_model",
           "with_overrides"]
