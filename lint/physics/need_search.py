"""The CTX208 memory search (needs.py) with a few estimates instead of ~15, and exactly its answer.

The search bisects [1, 2048] GiB until the interval is under 0.1 GiB: every point it probes is
on the grid 1 + 2047 k / 2^15, and its answer depends only on whether the role fits at those
points. Where the engine's budget rises with the device memory between known tiers (for vLLM the
batch-default sizes, mem_vllm.memory_tiers; TensorRT-LLM has none), so does every figure the
search reads (pool, longest request, their band, and the least or most of them over vLLM
releases), and within a tier "fits" flips once, at a threshold on the grid. That threshold is
found by interpolating the longest request between two estimates and checking the grid point
found and its neighbour with the real estimate, so each probe of the bisection, which then
runs unchanged, gets the answer the estimate would give. The search is not told where the
estimates come from; anything unexpected (no figure, a figure that is not a whole number, an
exception) falls back to the plain bisection. A caller that can put the threshold from how the
budget rises (`guess`: needs._guess, from lean_probe's budget line) has it tried first; it counts
only when the figures at it and a grid step below it agree.
"""
from __future__ import annotations

import bisect as _bisect
import math
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

from .mem_vllm import memory_tiers
from .models import sglang_state

LOW, HIGH, STEPS = 1.0, 2048.0, 15
CELLS = 1 << STEPS  # the bisection stops at (HIGH - LOW) / 2^15 = 0.0625 GiB, the first width under 0.1


class Fallback(Exception):
    """The fast search cannot answer exactly: run the plain bisection."""


def bisect(fits: Callable[[float], bool]) -> Optional[float]:
    """The least memory per GPU (GiB, to 0.1) at which `fits`, by bisection; None if not even HIGH.
    A `fits` with `at_index` (PiecewiseFits, SpannedFits) is asked by grid index: every mid is grid
    point (lo + hi) / 2 of the indices of its ends (an interval of 2^n cells halved), so no probe
    converts its memory back to an index (_index)."""
    low, high = LOW, HIGH
    at = getattr(fits, "at_index", None)
    if at is not None:
        lo, hi = 0, CELLS
        if not at(hi):
            return None
        while high - low > 0.1:
            mid, k = (low + high) / 2, (lo + hi) >> 1
            if at(k):
                high, hi = mid, k
            else:
                low, lo = mid, k
        return round(high + 0.05, 1)
    if not fits(high):
        return None
    while high - low > 0.1:
        mid = (low + high) / 2
        low, high = (low, mid) if fits(mid) else (mid, high)
    return round(high + 0.05, 1)


def gib_at(k: int) -> float:
    """Grid point k: exact in binary (2047 k < 2^26, divided by a power of two), as the bisection's mids are."""
    return LOW + (HIGH - LOW) * k / CELLS


def _index(gib: float) -> int:
    k = int(round((gib - LOW) * CELLS / (HIGH - LOW)))
    if gib_at(k) != gib:
        raise Fallback(f"{gib!r} is not on the grid")
    return k


def monotone_tiers(engine: Optional[str], settings: Mapping[str, Any], arch: Any = None,
                   search: bool = False) -> Optional[tuple]:
    """Device sizes (bytes) between which the engine's figures rise with the memory, or None when the
    search must probe every point (engines whose budget is not checked to rise: SGLang's automatic
    mem_fraction_static is rounded from a ratio of the memory and can be negative, TGI's reserve
    grows with the memory, llama.cpp's fit also depends on its fixed cells). `arch`: SGLang's hybrid models
    (a linear/Mamba state pool, mamba_sglang.py) take whole requests' states out of the budget first, so the
    KV tokens left drop each time one more request's states fit (Qwen3-Next at TP 1: 1,000,057 tokens at
    205.59 GiB, 999,452 at 205.65): no line through the figures holds, and the plain search decides."""
    if engine == "vllm":
        return memory_tiers(settings)
    if engine == "trtllm":
        # (total - constant terms) x free_gpu_memory_fraction, then min(., max_gpu_total_bytes): rises
        # when the fraction in force is positive. A fraction that is not a plain positive number is left
        # to the plain search rather than to a copy of how budget.py reads it.
        for key in ("kv_cache_free_gpu_memory_fraction", "free_gpu_memory_fraction"):
            value = settings.get(key)
            if value is not None and not _positive(value):
                return None
        return ()
    if engine == "sglang" and _positive(settings.get("mem_fraction_static")) \
            and not sglang_state(arch):
        # (total - CUDA context) x mem_fraction_static - weights (mem_sglang.terms, the fraction as set): rises
        # with the memory; only the automatic fraction reads the device (its size tiers, nvidia-smi's figure)
        return ()
    if search and engine == "sglang" and _automatic(settings.get("mem_fraction_static")) \
            and not sglang_state(arch):
        # The automatic fraction on the searched sizes (`search`: a candidate device has no nvidia-smi figure, so
        # the fraction reads its memory alone; a named device's verdict, which reads that figure, is estimated on
        # the device itself): within these tiers it rises with the memory (SGLANG_AUTO_TIERS), above PLAIN_BELOW
        return SGLANG_AUTO_TIERS
    return None


def _automatic(value: Any) -> bool:
    """mem_sglang.terms sets the fraction itself: mem_fraction_static is not a number other than 0 (nor a bool)."""
    return not (isinstance(value, (int, float)) and not isinstance(value, bool) and value)


GIB_BYTES = 1 << 30
# The device sizes (bytes) at which SGLang's automatic mem_fraction_static (mem_sglang.auto_fraction; a candidate's
# memory in MiB is its bytes / 2^20, so these compare exactly) changes rule: reserve_sglang.defaults' tiers (g < 20,
# 35, 60, 160 GiB), auto_formula's 10 GiB floor above 60 GiB (`gpu_mib > 60 * 1024`: from one byte above), 0.4.8-0.5.2's
# reserved tiers (mem_sglang._tiers: g < 35, 90, 160) and 0.4.6-0.4.7's 80 GiB (`gpu_mib > 81920`). Within a tier
# every rule is round((gpu - reserved) / gpu, 3) with reserved > 0 fixed, or a constant (the TP table, the post-capture
# top, the vision factor's floor, least and most of them: none falls as the memory rises), so the fraction does not
# fall, and with the memory before weights >= 0 neither does the budget (memory before weights x fraction -
# weights), nor, once it is positive, its pool (a budget <= 0 holds nothing: pool.search_figures).
# PLAIN_BELOW: under it the memory before weights (minus up to 2.8 GiB of CUDA context and NCCL, mem_sglang.terms) can
# be negative, and times a negative fraction a positive budget that falls as the memory rises: searched point by point.
PLAIN_BELOW = 3 * GIB_BYTES
SGLANG_AUTO_TIERS = (PLAIN_BELOW, 20 * GIB_BYTES, 35 * GIB_BYTES, 60 * GIB_BYTES, 60 * GIB_BYTES + 1,
                     80 * GIB_BYTES + 1, 90 * GIB_BYTES, 160 * GIB_BYTES)


def _positive(value: Any) -> bool:
    """A plain positive finite number (not a bool, a string or NaN)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value < float("inf")


def pieces(tiers: tuple, memory_bytes: Callable[[float], float]) -> List[Tuple[int, int]]:
    """The grid's index ranges [first, last] between tiers, by the device memory each point stands for."""
    starts = [1]
    for tier in sorted(tiers):
        lo, hi = 1, CELLS + 1  # the first index whose memory reaches the tier (CELLS + 1: none)
        while lo < hi:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if memory_bytes(gib_at(mid)) >= tier else (mid + 1, hi)
        starts.append(lo)
    bounds = sorted(set(starts)) + [CELLS + 1]
    return [(a, b - 1) for a, b in zip(bounds, bounds[1:]) if a <= CELLS]


class PiecewiseFits:
    """fits(gib) for the bisection, for figures that rise with the memory within each index range.

    A probe is answered from the figures already estimated in its range when they decide it (a
    fitting point at or below it, or a failing one at or above it). Otherwise, once a slope is
    known, the range's threshold is found: a line through known figures guesses it, and a guess
    counts only when the real figures at it and at its neighbour bracket it; without a slope the
    probe is estimated, as the plain bisection would."""

    def __init__(self, longest: Callable[[int], Any], context: int, ranges: List[Tuple[int, int]],
                 guess: Optional[Callable[[int, int], Optional[int]]] = None, plain: int = 0) -> None:
        if type(context) is not int:
            raise Fallback(f"context {context!r}")
        self.longest, self.context, self.ranges = longest, context, ranges
        self.plain = plain  # indices below it are estimated one by one, as the plain bisection does (no rise there)
        # (first, last): the range's first fitting index as its budget's line puts it (lean_probe.least_total),
        # last + 1 for none, None when unknown; it counts only when the figures at it and below it agree
        self.guess = guess
        self.starts = [a for a, _ in ranges]
        self.values: Dict[int, int] = {}  # index -> its figure, in the order estimated
        self.cut: Dict[int, int] = {}     # range -> its first fitting index (last + 1: none)

    def value(self, k: int) -> int:
        v = self.values.get(k)
        if v is None:
            v = self.longest(k)
            if type(v) is not int:
                raise Fallback(f"longest request {v!r}")
            self.values[k] = v
        return v

    def __call__(self, gib: float) -> bool:
        return self.at_index(_index(gib))

    def at_index(self, k: int) -> bool:
        if k < self.plain:
            return self.value(k) >= self.context
        p = _bisect.bisect_right(self.starts, k) - 1
        if p < 0:
            raise Fallback(f"index {k} below the grid")
        if p not in self.cut:
            first, last = self.ranges[p]
            lo, hi = self._bracket(first, last)
            if lo < k < hi and self.guess is not None:
                found = self._guessed(first, last, lo, hi)
                if found is not None:
                    self.cut[p] = found
                    return k >= found
                lo, hi = self._bracket(first, last)
            if lo < k < hi:
                if self._slope(first, last) is None:
                    return self.value(k) >= self.context
                self.cut[p] = self._threshold(first, last, lo, hi)
            elif hi - lo == 1:
                self.cut[p] = hi
            else:
                return k >= hi
        return k >= self.cut[p]

    def _guessed(self, first: int, last: int, lo: int, hi: int) -> Optional[int]:
        """The range's first fitting index when the guess and the figure a grid step below it (or a step
        above, a guess put low by rounding) say so; None otherwise (what it estimated stays known)."""
        guessed = self.guess(first, last)
        if guessed is None:
            return None
        context, value = self.context, self.value
        guess = min(max(guessed, lo + 1), hi)
        if value(guess - 1) >= context if guess - 1 > lo else False:
            return None
        if guess == hi or value(guess) >= context:
            return guess
        return guess + 1 if guess + 1 == hi or value(guess + 1) >= context else None

    def _bracket(self, first: int, last: int) -> Tuple[int, int]:
        """(the last index known not to fit, the first known to fit) in the range, virtual ends outside it."""
        lo, hi = first - 1, last + 1
        for j, v in self.values.items():
            if first <= j <= last:
                if v >= self.context:
                    hi = min(hi, j)
                else:
                    lo = max(lo, j)
        return lo, hi

    def _slope(self, first: int, last: int) -> Optional[Tuple[float, bool]]:
        """(figure per index, from this range?) through the latest two positive figures of this range,
        else of another range (tiers shift the figures, they barely tilt them); None: no positive
        figure in this range, or no two in any range."""
        positive = [(j, v) for j, v in self.values.items() if v > 0]
        if not any(first <= j <= last for j, _ in positive):
            return None
        own = [(j, v) for j, v in positive if first <= j <= last]
        ranges = [(first, last)] + [r for r in self.ranges if r != (first, last)]
        for a, b in ranges:
            points = own if a == first else [(j, v) for j, v in positive if a <= j <= b]
            if len(points) >= 2:
                (j1, v1), (j2, v2) = points[-2:]
                if j1 != j2 and (v2 - v1) / (j2 - j1) > 0:
                    return (v2 - v1) / (j2 - j1), a == first
        return None

    def _threshold(self, first: int, last: int, lo: int, hi: int) -> int:
        """The range's first fitting index, between lo (fails or is first - 1) and hi (fits or is last + 1)."""
        context = self.context
        guesses, side = 0, None
        while hi - lo > 1:
            # A line guesses (figures floor to blocks, vLLM releases take turns as the least, the clamp at
            # 0: it can be off); two guesses on the same side, or many, and the bracket is halved instead.
            found = self._slope(first, last) if side != "twice" and guesses < 6 else None
            if found is None:
                guess, near = (lo + hi) // 2, False
            else:
                guesses += 1
                slope, near = found
                j, v = [(j, v) for j, v in self.values.items() if v > 0 and first <= j <= last][-1]
                guess = j + math.ceil((context - v) / slope)
                guess = min(max(guess, lo + 1), hi - 1)
            fit = self.value(guess) >= context
            if fit:
                hi = guess
                if near and guess - 1 > lo:  # a line through this range's own figures: its neighbour settles it
                    if self.value(guess - 1) < context:
                        return guess
                    hi = guess - 1
            else:
                lo = guess
                if near and guess + 1 < hi:
                    if self.value(guess + 1) >= context:
                        return guess + 1
                    lo = guess + 1
            side = None if found is None else "twice" if side == fit else fit
        return hi
