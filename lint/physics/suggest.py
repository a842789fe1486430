"""What to change so context_length fits: each suggestion is computed by
re-running the estimate with one setting changed."""
from __future__ import annotations

import dataclasses
from typing import Any

from .capacity import CapacityInput, CapacityResult, compute

# The memory knob each engine reads, and the highest value we would suggest
# (leaving headroom: vLLM fails at startup when util x total > free memory).
_KNOB = {"vllm": ("gpu_memory_utilization", 0.95), "sglang": ("mem_fraction_static", 0.95),
         "trtllm": ("kv_cache_free_gpu_memory_fraction", 0.95), "lmdeploy": ("cache_max_entry_count", 0.95),
         "tgi": ("cuda_memory_fraction", 1.0)}
# fp8 KV as each engine spells it.
_FP8 = {"vllm": "fp8", "sglang": "fp8_e4m3", "tgi": "fp8_e4m3fn", "trtllm": "fp8", "lmdeploy": "int8",
        "llamacpp": "q8_0"}
_EXPLICIT_POOL = ("num_gpu_blocks_override", "kv_cache_memory_bytes")


def _fits(inp: CapacityInput) -> tuple[bool, CapacityResult]:
    r = compute(inp)
    return bool(r.fits), r


# Engines whose "fits" only turns on as the knob rises: vLLM's budget is total x
# gpu_memory_utilization minus terms the knob does not touch (mem_vllm.terms), and every figure
# follows the budget up, in each release and in their span (releases.py).
_RISING = {"vllm"}


def _least_fitting(inp: CapacityInput, settings: dict, knob: str, steps: range, rising: bool) -> float | None:
    """The first knob value (step / 100) in `steps` at which the estimate fits, None if none: by
    scanning, or, where fitting only turns on as the knob rises, by bisection, which then finds
    the same step with ~6 estimates instead of up to 46."""
    def ok(step: int) -> bool:
        return _fits(dataclasses.replace(inp, settings={**settings, knob: step / 100}))[0]
    if not rising:
        return next((step / 100 for step in steps if ok(step)), None)
    lo, hi = steps.start - 1, steps.stop - 1  # lo: below the range; hi: the last step, fits or not
    if not ok(hi):
        return None
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return hi / 100


def suggestions(inp: CapacityInput, res: CapacityResult) -> list[str]:
    ctx = res.context_length
    out: list[str] = []
    eng = res.engine
    settings: dict[str, Any] = dict(inp.settings or {})
    explicit = inp.available_kv_bytes is not None or any(settings.get(k) for k in _EXPLICIT_POOL)
    if not ctx:
        return ["no KV memory left: lower the model footprint (quantized weights) or use more GPUs"]
    # 1. the engine's memory fraction
    if eng in _KNOB and not explicit:
        knob, hi = _KNOB[eng]
        v = _least_fitting(inp, settings, knob, range(50, int(hi * 100) + 1), eng in _RISING)
        if v is not None:
            cur = settings.get(knob, "default")
            if v > float(cur if isinstance(cur, (int, float)) else 0):
                out.append(f"raise {knob} from {cur} to {v:.2f}")
    # 2. fp8 KV cache
    cur_dtype = (inp.kv_cache_dtype or "auto").lower()
    fp8 = _FP8.get(eng)
    if fp8 and cur_dtype in ("auto", "bf16", "bfloat16", "float16", "fp16", "f16", "half"):
        ok, r = _fits(dataclasses.replace(inp, kv_cache_dtype=fp8))
        if ok:
            out.append(f"set kv_cache_dtype={fp8}: {r.kv_bytes_per_token_per_gpu:,.0f} B/token, "
                       f"longest request {r.max_context_at_concurrency_1:,} tokens")
    # 3. more accelerators (tensor parallel), only when the budget is estimated
    if not explicit and res.weights_bytes_per_gpu is not None:
        tp = max(1, int(inp.tp or 1))
        pp = max(1, int(inp.pp or 1))
        t = tp * 2
        while t <= 64:
            ok, r = _fits(dataclasses.replace(inp, tp=t, accelerator_count=None))
            if ok:
                out.append(f"use tp={t} ({t * pp} accelerators per replica): longest request "
                           f"{r.max_context_at_concurrency_1:,} tokens")
                break
            t *= 2
    # 4. the context length itself
    m = res.max_context_at_concurrency_1
    if m is not None and m > 0:
        out.append(f"lower context_length from {ctx:,} to at most {m:,}")
    elif not out:
        out.append("nothing fits on this configuration: weights or overheads exceed the memory")
    return out
