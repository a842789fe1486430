"""What to change so context_length fits: each suggestion is computed by
re-running the estimate with one setting changed."""
from __future__ import annotations

from typing import Any, Optional

from ..records import replace
from .capacity import CapacityInput, CapacityResult, compute_lean, remembered
from .memo import Memo, Unkeyable, exact_key

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
    try:
        key = exact_key(inp)
    except Unkeyable:
        r = compute_lean(inp)
        return bool(r.fits), r
    # the role's own settings were estimated whole (capacity.compute) before its suggestions: the same figures
    r = remembered(key) or _LEAN.keyed(key, inp)
    return bool(r.fits), r


# A suggestion reads only an estimate's figures (fits, bytes per token, longest request), which a lean estimate
# gives equal to the whole one's (capacity.compute_lean, test_cheaper_estimates) without writing the steps,
# assumptions and terms a whole one formats and a suggestion throws away (~10 estimates a failing role, each a fold
# of up to nine releases for a vLLM role of unknown version). Remembered exactly by the input, as compute() is: a
# tree's copies of a file ask for the same ones again. Its own memo: a lean result is never a whole estimate's.
_LEAN = Memo(compute_lean, 2048)


def _least_fraction(inp: CapacityInput, settings: dict, knob: str, low: int, high: int) -> Optional[float]:
    """The least knob value in low/100 .. high/100 (steps of 0.01) at which the window fits.

    The KV budget grows with the engine's memory fraction (total or free memory x fraction, minus
    fixed terms), so whether a window fits is monotone in it: bisection finds the first step the
    scan of every step would find, in ~7 estimates instead of up to 46."""
    def fits(step: int) -> bool:
        return _fits(replace(inp, settings={**settings, knob: step / 100}))[0]

    if not fits(high):
        return None
    while low < high:
        mid = (low + high) // 2
        low, high = (low, mid) if fits(mid) else (mid + 1, high)
    return high / 100


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
        v = _least_fraction(inp, settings, knob, 50, int(hi * 100))
        if v is not None:
            cur = settings.get(knob, "default")
            if v > float(cur if isinstance(cur, (int, float)) else 0):
                out.append(f"raise {knob} from {cur} to {v:.2f}")
    # 2. Llama 4's chunked layers bounded by their chunk again, where the release honours the variable
    if eng == "vllm" and getattr(inp.arch, "attention_chunk_size", None):
        from .vllm_chunked import ENV, chunked_whole
        on = {**settings, ENV: "1"}
        if chunked_whole(inp.engine_version, settings, bool(inp.draft_layers)) and \
                not chunked_whole(inp.engine_version, on, bool(inp.draft_layers)):
            ok, r = _fits(replace(inp, settings=on))
            if ok:
                out.append(f"set {ENV}=1 (vLLM's hybrid KV cache manager for the chunked layers, at some latency): "
                           f"longest request {r.max_context_at_concurrency_1:,} tokens")
    # 3. fp8 KV cache
    cur_dtype = (inp.kv_cache_dtype or "auto").lower()
    fp8 = _FP8.get(eng)
    if fp8 and cur_dtype in ("auto", "bf16", "bfloat16", "float16", "fp16", "f16", "half"):
        ok, r = _fits(replace(inp, kv_cache_dtype=fp8))
        if ok:
            out.append(f"set kv_cache_dtype={fp8}: {r.kv_bytes_per_token_per_gpu:,.0f} B/token, "
                       f"longest request {r.max_context_at_concurrency_1:,} tokens")
    # 4. more accelerators (tensor parallel), only when the budget is estimated
    if not explicit and res.weights_bytes_per_gpu is not None:
        tp = max(1, int(inp.tp or 1))
        pp = max(1, int(inp.pp or 1))
        t = tp * 2
        while t <= 64:
            ok, r = _fits(replace(inp, tp=t, accelerator_count=None))
            if ok:
                out.append(f"use tp={t} ({t * pp} accelerators per replica): longest request "
                           f"{r.max_context_at_concurrency_1:,} tokens")
                break
            t *= 2
    # 5. the context length itself
    m = res.max_context_at_concurrency_1
    if m is not None and m > 0:
        out.append(f"lower context_length from {ctx:,} to at most {m:,}")
    elif not out:
        out.append("nothing fits on this configuration: weights or overheads exceed the memory")
    return out
