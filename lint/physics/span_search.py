"""The CTX208 memory search for a vLLM role of unknown version, release by release.

An estimate of an unknown vLLM release is up to seven estimates, one per release whose memory
rules differ that can load the model, folded (releases.py): the longest request it gives is the
least any counted release gives (a release counts when it has a pool), the band's low end the
least of theirs, its high end the most. So the folded figure fits at a grid point when every
counted release fits there (the point, the low end) or when any does (the high end). Within each
memory tier every release's figure rises with the memory (need_search.py), so each release fits
from a threshold on, and the fold from the greatest of their thresholds (the least, for the high
end).

need_search.PiecewiseFits finds the fold's threshold from folded estimates, up to seven estimates
each. Here one release's threshold is found, and each other release needs one estimate at it
to show that its own threshold does not move the fold's; only a release that says otherwise
is searched further. Every probe of the bisection gets the answer the folded estimate would
give; anything unexpected (a figure that is not a whole number, a release counted at one size
and not at another, a band end missing) raises Fallback and the plain bisection decides.
"""
from __future__ import annotations

import bisect as _bisect
import math
from typing import Any, Callable, Dict, Iterable, List, Optional, Tuple

from .need_search import Fallback, _index


_READ_ALIKE = ("vllm", "trtllm", "sglang")


def release_figure(result: Any, which: str) -> Optional[int]:
    """One release's figure as the fold reads it: its longest request ("point"), or its band's low
    or high end; None when the release does not count (no pool). The fold takes the band's ends
    only over counted releases and needs.py reads the point where an end is missing: for the
    fold to be the least or the most of these figures, a counted release must have both ends.
    Also a TensorRT-LLM or SGLang estimate's figure (device_verdicts.py), which needs._longest reads
    the same way (llama.cpp's figure also asks whether its budget holds every cell)."""
    point = result.max_context_at_concurrency_1
    if result.engine not in _READ_ALIKE or (result.pool_tokens is None) != (point is None):
        raise Fallback(f"{result.engine} result with pool {result.pool_tokens!r}, longest {point!r}")
    if point is None:
        return None
    if result.max_context_low is None or result.max_context_high is None:
        raise Fallback("a band end is missing")
    return point if which == "point" else result.max_context_low if which == "low" else result.max_context_high


def release_band(result: Any) -> Tuple[Optional[int], Optional[int]]:
    """(release_figure(result, "low"), release_figure(result, "high")), read once (device_verdicts.py)."""
    point = result.max_context_at_concurrency_1
    if result.engine not in _READ_ALIKE or (result.pool_tokens is None) != (point is None):
        raise Fallback(f"{result.engine} result with pool {result.pool_tokens!r}, longest {point!r}")
    if point is None:
        return None, None
    low, high = result.max_context_low, result.max_context_high
    if low is None or high is None:
        raise Fallback("a band end is missing")
    return low, high


class SpannedFits:
    """fits(gib) for the bisection, for the least (`every`) or the most of `count` figures, each
    rising within each index range; figure(i, k) is figure i at grid index k (None: i does not count).
    A range's threshold is found at the first probe in it, whole (the bisection needs it there)."""

    def __init__(self, figure: Callable[[int, int], Optional[int]], count: int, every: bool, context: int,
                 ranges: List[Tuple[int, int]], free: Callable[[int, int], bool] = lambda i, k: False,
                 guess: Optional[Callable[[int, int, int], Optional[int]]] = None) -> None:
        if type(context) is not int:
            raise Fallback(f"context {context!r}")
        self.figure, self.count, self.every, self.context, self.ranges = figure, count, every, context, ranges
        self.free = free  # (i, k): is figure(i, k) at hand without an estimate? (it only orders the work)
        # (i, first, last): figure i's first fitting index in the range as worked out from its budget's line
        # (lean_probe.least_total), last + 1 for none, None when unknown: checked with the figures like any guess
        self.guess = guess
        self.starts = [a for a, _ in ranges]
        self.values: List[Dict[int, Optional[int]]] = [{} for _ in range(count)]  # in the order estimated
        self.counted: Dict[int, bool] = {}
        self.cut: Dict[int, int] = {}  # range -> the fold's first fitting index (last + 1: none)

    def value(self, i: int, k: int) -> Optional[int]:
        seen = self.values[i]
        if k in seen:
            return seen[k]
        v = self.figure(i, k)
        if v is not None and type(v) is not int:
            raise Fallback(f"figure {v!r}")
        if self.counted.setdefault(i, v is not None) != (v is not None):
            raise Fallback(f"figure {i} counted at one size and not at another")
        seen[k] = v
        return v

    def fits(self, i: int, k: int) -> Optional[bool]:
        v = self.value(i, k)
        return None if v is None else v >= self.context

    def __call__(self, gib: float) -> bool:
        return self.at_index(_index(gib))

    def at_index(self, k: int) -> bool:
        """fits at grid index k (need_search.bisect asks this way)."""
        p = _bisect.bisect_right(self.starts, k) - 1
        if p < 0:
            raise Fallback(f"index {k} below the grid")
        cut = self.cut.get(p)
        if cut is None:
            cut = self.cut[p] = self._cut(*self.ranges[p])
        return k >= cut

    def _cut(self, first: int, last: int) -> int:
        """The range's first index where the fold fits (last + 1: none)."""
        edge: Optional[int] = None  # the fold's threshold over the figures searched so far
        for i in self._order(first, last):
            if edge is None:
                own = self._threshold(i, first, last, first - 1, last + 1)
                if own is None:  # does not count
                    continue
            elif self.every:
                if self.fits(i, edge) is not False:  # fits from edge or earlier, or does not count
                    continue
                own = self._threshold(i, first, last, edge, last + 1)
            else:
                if edge == first:  # the fold fits from the range's start: no figure can lower it
                    break
                if not self.fits(i, edge - 1):  # fits only from edge or later, or does not count
                    continue
                own = self._threshold(i, first, last, first - 1, edge - 1)
            edge = own
            if self.every and edge > last:  # one counted figure never fits here: nor does the fold
                break
        return last + 1 if edge is None else edge

    def _order(self, first: int, last: int) -> Iterable[int]:
        """The figures, the likeliest to decide the fold first (the least for `every`, else the most)
        at the index nearest the range where all are known or free (`free`: estimated already, for
        another search): the others then likely need one estimate each."""
        values, free, count = self.values, self.free, self.count
        common = []
        for k in set().union(*values):  # every index estimated, for any figure
            for i in range(count):
                if k not in values[i] and not free(i, k):
                    break
            else:
                common.append(k)
        if not common:
            return range(self.count)
        k = min(common, key=lambda k: (first - k if k < first else k - last if k > last else 0, -k))
        at = [self.value(i, k) for i in range(self.count)]
        sign = 1 if self.every else -1
        return sorted(range(self.count), key=lambda i: (at[i] is None, sign * (at[i] or 0)))

    def _threshold(self, i: int, first: int, last: int, lo: int, hi: int) -> Optional[int]:
        """Figure i's first fitting index in the range [first, last], between lo (fails, or first - 1)
        and hi (fits, or last + 1); None when it does not count."""
        for j, v in self.values[i].items():
            if v is not None and lo < j < hi:
                if v >= self.context:
                    hi = j
                else:
                    lo = j
        guessed = self.guess(i, first, last) if self.guess is not None and hi - lo > 1 else None
        if guessed is not None:
            # the guess and its neighbour below settle it (a range's ends: one figure); else the search goes on
            guess = min(max(guessed, lo + 1), hi)
            if guess == hi:  # no fit at or below hi - 1: hi's the answer when hi - 1 fails
                fit = self.fits(i, hi - 1)
                if fit is None:
                    return None
                if not fit:
                    return hi
                hi -= 1
            else:
                fit = self.fits(i, guess)
                if fit is None:
                    return None
                if fit:
                    hi = guess
                    if guess - 1 == lo:
                        return guess
                    if not self.fits(i, guess - 1):
                        return guess
                    hi = guess - 1
                else:
                    lo = guess
                    if guess + 1 < hi:  # rounding can put the line a grid step low
                        if self.fits(i, guess + 1):
                            return guess + 1
                        lo = guess + 1
        if lo < first and hi > last:
            # Nothing known: a range the figure fits from its start, or never fits in, costs one or two
            # estimates. The grid's first range (from 1 GiB) rarely fits from its start: only its end.
            for end in ((last,) if first == 1 else (first, last)):
                fit = self.fits(i, end)
                if fit is None:
                    return None
                if fit and end == first:
                    return first
                if not fit and end == last:
                    return last + 1
                lo, hi = (lo, end) if fit else (end, hi)
        guesses = 0
        while hi - lo > 1:
            # A line through known figures guesses the threshold (blocks floor the figures: it can be off
            # by one); a guess and its neighbour settle it. After a few guesses the bracket is halved.
            slope = self._slope(i, first, last) if guesses < 4 else None
            if slope is None:
                guess = (lo + hi) // 2
            else:
                guesses += 1
                j, v = slope[1]
                guess = min(max(j + math.ceil((self.context - v) / slope[0]), lo + 1), hi - 1)
            if self.fits(i, guess):
                hi = guess
                if slope is not None and guess - 1 > lo:
                    if not self.fits(i, guess - 1):
                        return guess
                    hi = guess - 1
            else:
                lo = guess
                if slope is not None and guess + 1 < hi:
                    if self.fits(i, guess + 1):
                        return guess + 1
                    lo = guess + 1
        return hi

    def _slope(self, i: int, first: int, last: int) -> Optional[Tuple[float, Tuple[int, int]]]:
        """(figure per index, a point of figure i to draw the line from) in this range: through figure
        i's two positive points furthest apart, else the slope of another figure's (the releases
        differ by constant terms: nearly parallel) from figure i's latest positive point; None when
        neither is known."""
        own = [(j, v) for j, v in self.values[i].items() if v and first <= j <= last]
        for n in [i] + [n for n in range(self.count) if n != i]:
            points = own if n == i else [(j, v) for j, v in self.values[n].items() if v and first <= j <= last]
            if len(points) >= 2 and own:
                (j1, v1), (j2, v2) = min(points), max(points)
                if j1 != j2 and v2 > v1:
                    return (v2 - v1) / (j2 - j1), own[-1]
        return None
