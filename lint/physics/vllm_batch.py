"""The V1 profile run's batch when the settings give none: the OpenAI server's defaults
(`get_batch_defaults`), by release and device (mem_vllm.py reads them; split out of it).

8192 tokens and 1024 sequences on devices with >= 70 GiB (A100 excluded from 0.9.0, PR #17885),
16384 on >= 160 GiB from 0.28.0, else 2048 and 256; before 0.8.5 a device-name rule (H100, H200);
GB10 (DGX Spark) 2048 and 256 in every release.
"""
from __future__ import annotations

from typing import Any, List, Mapping, Optional, Tuple

from ctxlint.versions import parse_version

from .terms import GIB

BIG_TIER = "0.28.0"
# The device memory from which the OpenAI server's batch defaults grow (8192 tokens, then 16384 from 0.28.0):
# the only places where the budget depends on the memory other than through total x utilization.
LARGE_BATCH_BYTES, BIG_TIER_BYTES = 70 * GIB, 160 * GIB
_BIG_TIER, _V0_8_5, _V0_9_0 = parse_version(BIG_TIER), parse_version("0.8.5"), parse_version("0.9.0")


def _v(version: Optional[str]):
    return parse_version(version) if version else None


def batch_defaults(total: float, device: str, version: Optional[str], v0: bool,
                   llm_class: bool = False) -> Tuple[tuple, ...]:
    """Candidate (max_num_batched_tokens, max_num_seqs) defaults; one unless the version is unknown.
    Remembered: the device's memory counts only by the two sizes it is compared with, and every
    estimate asks (~40 for each role a CTX208 search probes). `llm_class`: the engine is vLLM's offline
    LLM class (TRL's vllm-serve builds one), whose defaults are larger (_LLM_CLASS)."""
    key = (total >= LARGE_BATCH_BYTES, total >= BIG_TIER_BYTES, device, version, v0, llm_class)
    found = _BATCHES.get(key)
    if found is None:
        found = tuple(_batch_defaults(total, device, version, v0))
        if llm_class:
            found = tuple(_LLM_CLASS.get(pick, pick) for pick in found)
        if len(_BATCHES) < 4096:
            _BATCHES[key] = found
    return found


# UsageContext.LLM_CLASS beside the OpenAI server's tier, in every release's get_batch_defaults: 16384 tokens where
# the server takes 8192 (>= 70 GiB, A100 excluded from 0.9.0; before 0.8.5 H100/H200 by name) and where it takes
# 16384 (>= 160 GiB from 0.28.0), 8192 where it takes 2048; 1024 or 256 sequences as the server's (vLLM's
# tests/engine/test_arg_utils.py test_defaults_with_usage_context; vllm/engine/arg_utils.py at v0.28.0, where the
# >= 160 GiB tier is {LLM_CLASS: 16384, OPENAI_API_SERVER: 16384}, engines.md §1.1 Scheduler). V0 ((None, 256))
# is left as it is.
_LLM_CLASS = {(2048, 256): (8192, 256), (8192, 1024): (16384, 1024), (16384, 1024): (16384, 1024)}


_BATCHES: dict = {}  # (memory >= each size, device, version, v0) -> batch_defaults
# GB10 (DGX Spark, 121.63 GiB of unified memory) profiles the small batch in every release. From 0.33.0
# get_batch_defaults keeps it there by compute capability (12, 1) (vllm-0.33.0 wheel:
# vllm/engine/arg_utils.py:2961-2986); before, its total came from NVML, which GB10 does not implement
# (vllm-0.33.0 wheel: vllm/platforms/cuda.py:807-814 says so where it adds the fallback), and the failed query
# set the device memory to 0 (vllm-0.32.0 wheel: vllm/engine/arg_utils.py:2912-2918): the small tier too.


def _batch_defaults(total: float, device: str, version: Optional[str], v0: bool) -> List[tuple]:
    if v0:
        return [(None, 256)]  # V0: tokens follow max_model_len (see v0_tokens)
    v = _v(version)
    name = device.lower()
    big = total >= LARGE_BATCH_BYTES

    def rule(ver) -> tuple:
        if "gb10" in name:  # DGX Spark: the small batch in every release (above)
            return 2048, 256
        if ver >= _BIG_TIER and total >= BIG_TIER_BYTES:
            return 16384, 1024
        if ver < _V0_8_5:  # a device-name rule before the memory rule
            large = "h100" in name or "h200" in name
        else:
            large = big and ("a100" not in name or ver < _V0_9_0)
        return (8192, 1024) if large else (2048, 256)
    if v is not None:
        return [rule(v)]
    return [max({rule(x) for x in (_V0_8_5, _V0_9_0, _BIG_TIER)})]  # the largest profile


def memory_tiers(settings: Mapping[str, Any]) -> Optional[tuple]:
    """The device sizes (bytes) between which every release's budget rises with the memory, or None
    when it may not (a gpu_memory_utilization that is not positive makes it fall): the CTX208 search
    (need_search.py) relies on it. Between tiers the rules are fixed, the terms subtracted are
    constants and total x utilization rises; a budget scaled for old releases is scaled by positive
    factors; the tokens follow the budget (pool.tokens_for)."""
    util = settings.get("gpu_memory_utilization")
    if isinstance(util, (int, float)) and not isinstance(util, bool) and not util > 0:
        return None
    return LARGE_BATCH_BYTES, BIG_TIER_BYTES
