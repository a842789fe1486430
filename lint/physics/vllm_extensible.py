"""vLLM 0.34's extensible KV cache: sized from the memory measured after warmup and CUDA-graph capture.

Read in the 0.34.0 wheel (vllm-0.34.0, no release commit at hand):
- `CacheConfig.gpu_memory_utilization` defaults to None, resolved to 1.0 with the extensible KV cache and
  to 0.92 without it (vllm/config/cache.py:216-227, `resolved_gpu_memory_utilization` :495-501).
- `enable_extensible_kv_cache` (None by default, flag `--enable-extensible-kv-cache`, arg_utils.py:1413)
  is turned on by `VllmConfig._resolve_extensible_kv_cache` (vllm/config/vllm.py:3180-3269) unless the
  platform is not CUDA or ROCm, kv_cache_memory_bytes or num_gpu_blocks_override is set, elastic EP is on,
  or a KV connector shares the cache through legacy CUDA IPC, a custom memory pool, RDMA on ROCm, or FABRIC
  handles without an IMEX channel (NIXL within a host): which a connector needs, the config does not say.
- The requested memory is ceil(total x utilization) (vllm/v1/worker/utils.py:742-743), never refused for
  exceeding the free memory when the cache is extensible ("the budget is only a cap").
- `measure_kv_cache_bytes` (vllm/v1/worker/extensible_kv_cache.py:592-618) runs after warmup and capture:
      non_kv = init_free - free - committed        (weights, non-torch, the captured CUDA graphs)
      KV = min(requested - non_kv, init_free - non_kv - margin) - max(peak, torch reserve growth)
  margin = max(1 GiB (3 GiB on ROCm), 0.75 x peak) (:64-65), peak the profile run's activation peak
  (gpu_worker.py:942-945) or a larger warmup transient; the CUDA-graph estimate is not taken
  (gpu/model_runner.py:1121-1125: the capture is measured). init_free is the total less the CUDA context.
So with the default 1.0, KV = total - CUDA context - margin - weights - peak - non-torch - CUDA graphs;
an explicit utilization u caps it at total x u as before, and the margin counts only where the device's
(1 - u) share does not already cover it.
"""
from __future__ import annotations

from typing import Any, Mapping, Optional

from ctxlint.versions import parse_version

from .terms import GIB, Term

EXTENSIBLE_SINCE = "0.34.0"
_SINCE = parse_version(EXTENSIBLE_SINCE)
ON, OFF, MAYBE = "on", "off", "maybe"
MARGIN_FRACTION = 0.75
# total - init_free: the CUDA context and allocator slack (budget.CONTEXT's band)
CONTEXT = (0.5 * GIB, 0.3 * GIB, 0.8 * GIB)
# Platforms vLLM does not run the extensible cache on (`current_platform.is_cuda_alike()` is False)
_NOT_CUDA = ("tpu", "gaudi", "hpu", "trainium", "inferentia", "neuron", "xpu", "cpu")
_ROCM = ("amd", "instinct", "mi2", "mi3", "radeon")


def mode(version: Optional[str], settings: Mapping[str, Any]) -> str:
    """ON, OFF, or MAYBE (a KV connector's needs decide) for this release and these settings; the device's
    platform is read later (on_device). An unknown release is folded over releases (releases.py): OFF here."""
    if not version:
        return OFF
    v = parse_version(version)
    if v is None or v < _SINCE:
        return OFF
    asked = settings.get("enable_extensible_kv_cache")
    if asked is False:
        return OFF
    if settings.get("kv_cache_memory_bytes") is not None or settings.get("num_gpu_blocks_override") is not None:
        return OFF  # "it sizes the KV cache from measured memory, which ... overrides" (an error if asked)
    if settings.get("enable_elastic_ep") is True:
        return OFF
    if asked is None and settings.get("kv_transfer_config"):
        return MAYBE  # legacy IPC, custom pools, NIXL without IMEX: the connector and host decide
    return ON


def on_device(device: str) -> bool:
    name = device.lower()
    return not any(word in name for word in _NOT_CUDA)


def margin_term(total: float, device: str, util_on: float, util_base: float, peak: Term, how_mode: str,
                lean: bool = False) -> Term:
    """What the extensible sizing takes beyond total x util_base - the usual terms: the CUDA context and the
    sizing margin where (1 - util_on) of the device does not cover them, less (total x (util_on - util_base))
    when the base was taken at the estimate-based default (MAYBE: the band runs to whichever leaves more)."""
    floor = (3 if any(word in device.lower() for word in _ROCM) else 1) * GIB
    margins = (max(floor, MARGIN_FRACTION * peak.point), max(floor, MARGIN_FRACTION * peak.low),
               max(floor, MARGIN_FRACTION * peak.high))
    spare = total * (1.0 - util_on)
    gain = total * (util_on - util_base)
    point, low, high = (max(0.0, c + m - spare) - gain for c, m in zip(CONTEXT, margins))
    if how_mode == MAYBE:  # the point and the band's floor stay at the estimate-based sizing's
        point, low, high = max(point, 0.0), min(low, 0.0), max(high, 0.0)
    how = "" if lean else (
        f"extensible KV cache (vLLM >= {EXTENSIBLE_SINCE}): CUDA context + max({floor / GIB:g} GiB, "
        f"{MARGIN_FRACTION:g} x activation peak) kept free" + (
            f", beyond (1 - {util_on:g}) of the device" if util_on < 1 else "")
        + (" (a KV connector decides whether it is on)" if how_mode == MAYBE else ""))
    return Term("CUDA context + sizing margin", point, low, high, how)
