"""CTX208's common-device verdicts for a vLLM role, from the memory search's own estimates where
they decide them.

A role without a device is searched for the least memory per GPU it needs (needs.py): three
bisections, each size a lean estimate (seven for a vLLM role of unknown version, one per release).
The message then says, for nine common devices, whether one request surely fits, may fit or does
not: nine more estimates, 63 for an unknown release, about 40% of the search's cost.

Most of those answers are known already. Between vLLM's memory tiers every release's figures rise
with the device memory (mem_vllm.memory_tiers, the premise the search itself runs on), so a
searched size at or below the device's, in its tier, where a release holds the request decides
that the release holds it on the device; a size at or above it where the release does not decides
that it does not. A device is the same as a searched size of its memory when vLLM's one rule that
reads the device name (mem_vllm.batch_defaults) gives it what it gives any other name. A release
left undecided, or whose rule reads the device's name, is estimated on the device itself. The verdict is then read as needs.py reads the
folded estimate: the request surely fits when every counted release's band floor holds it, and may
fit when some counted release's band top does.
"""
from __future__ import annotations

import bisect
import math
from functools import lru_cache
from typing import Any, Callable, Dict, List, Optional, Tuple

from .mem_vllm import batch_defaults
from .need_search import Fallback
from .span_search import release_band

Figures = Tuple[Optional[int], Optional[int]]  # a release's band floor and top (None: it does not count)


class SearchedSizes:
    """The search's estimates of one vLLM role, as what they decide about a device of any size.

    `seen`: what needs.min_memory_gib left, keyed by memory (GiB) for a known release or (release, GiB)
    for an unknown one (`spanned`); `releases`: the releases folded, or the role's own; `tiers`: the
    device sizes between which the figures rise; `size_bytes`: a searched size's device memory;
    `context`: the request the search was for; `by_name`: vLLM's batch rule reads the device's name (a
    TensorRT-LLM estimate, or SGLang's with mem_fraction_static set, reads only its memory)."""

    def __init__(self, seen: Dict[Any, Any], releases: Tuple[Optional[str], ...], spanned: bool, tiers: tuple,
                 size_bytes: Callable[[float], float], context: int, by_name: bool = True) -> None:
        self.releases, self.spanned, self.tiers, self.by_name = releases, spanned, tuple(sorted(tiers)), by_name
        self.counts: Dict[Optional[str], set] = {release: set() for release in releases}
        # (release, end, tier) -> [the least size where the figure holds the request, the most where it does not]
        self.edges: Dict[Tuple[Optional[str], int, int], List[float]] = {}
        placed: Dict[float, Tuple[float, int]] = {}  # a searched size -> (its memory, its tier): the releases share it
        counts, edges = self.counts, self.edges
        for key, result in seen.items():
            if spanned != isinstance(key, tuple):
                continue  # a known release's search leaves no per-release key; an unknown one's fallback, folded ones
            release, gib = key if spanned else (releases[0], key)
            counted = counts.get(release)
            if counted is None:
                continue
            figures = release_band(result)
            counted.add(figures[0] is not None)
            where = placed.get(gib)
            if where is None:
                size = size_bytes(gib)
                where = placed[gib] = size, self._tier(size)
            size, tier = where
            for end in (0, 1):
                value = figures[end]
                if value is not None:
                    edge = edges.get((release, end, tier))
                    if edge is None:
                        edge = edges[release, end, tier] = [math.inf, -math.inf]
                    if value >= context:
                        if size < edge[0]:
                            edge[0] = size
                    elif size > edge[1]:
                        edge[1] = size
        # whether each release counts, as counted() says: asked for each release of each device's verdict
        self.counted_by = {release: next(iter(seen)) if len(seen) == 1 else None for release, seen in counts.items()}

    def _tier(self, total: float) -> int:
        return bisect.bisect_right(self.tiers, total)  # a device at a tier's size is in the tier above

    def decided(self, release: Optional[str], end: int, total: float, tier: Optional[int] = None) -> Optional[bool]:
        """Whether the release's band floor (end 0) or top (1) holds the request on a device of `total`
        bytes, when a searched size in its tier decides it; None otherwise. `tier`: _tier(total), when known."""
        edge = self.edges.get((release, end, self._tier(total) if tier is None else tier))
        if edge is None:
            return None
        if edge[0] <= total:  # it holds at a size at or below the device's
            return True
        if edge[1] >= total:  # it fails at a size at or above it
            return False
        return None

    def held_at(self, release: Optional[str], end: int, total: float, batch: tuple) -> Optional[bool]:
        """True when the release's band floor (end 0) or top (1) holds the request at a searched size at or
        below `total` bytes whose batch rule gives `batch` (a device that vLLM's rule reads by name, an A100
        given the small batch at 80 GiB): with its batch fixed, a release's figures rise with the memory (the
        batch is the one rule of mem_vllm.terms that reads the device); None otherwise."""
        for tier in range(len(self.tiers) + 1):
            edge = self.edges.get((release, end, tier))
            if edge is not None and edge[0] <= total and batch_defaults(edge[0], "candidate", release, False) == batch:
                return True
        return None

    def counted(self, release: Optional[str]) -> Optional[bool]:
        """Whether the release counts in the fold, as its searched sizes all say; None if they do not agree
        or there are none (counting does not depend on the memory: releases.py, span_search.release_figure)."""
        return self.counted_by[release]


@lru_cache(maxsize=1024)
def _alike(total: float, name: str, release: Optional[str]) -> bool:
    """Whether vLLM's batch rule gives the device what it gives a searched size of its memory."""
    return batch_defaults(total, name, release, False) == batch_defaults(total, "candidate", release, False)


def _figures(result: Any) -> Figures:
    return release_band(result)


def verdict(sizes: SearchedSizes, name: str, total: float, context: int,
            estimate: Callable[[Optional[str]], Any], high: Optional[float] = None) -> Optional[Tuple[bool, bool]]:
    """(surely fits, may fit) on a device `name` of `total` bytes, or None when the caller must estimate
    the device as before. `estimate(release)`: the device's lean estimate under that release (the role's
    own when it is not spanned). An estimate this cannot read sends the caller back to its own path.
    `high`: the top of an estimated device's memory band (Accelerator.memory_high): the estimate's band
    top is its budget there (capacity._memory_band), so "may fit" is read at that size."""
    try:
        own: Dict[Optional[str], Figures] = {}
        sizes_at = (total, total if high is None or high < total else high)  # the floor's and the top's device
        tiers = (sizes._tier(sizes_at[0]), sizes._tier(sizes_at[1]))  # the device's tier, for every release

        def figure(release: Optional[str], end: int) -> Optional[bool]:
            if release not in own:
                own[release] = _figures(estimate(release))
            value = own[release][end]
            return None if value is None else value >= context

        counted_by, by_name, edges = sizes.counted_by, sizes.by_name, sizes.edges

        def holds(release: Optional[str], end: int) -> Optional[bool]:
            """None: the release does not count."""
            counted = counted_by[release]  # sizes.counted(release)
            total, tier = sizes_at[end], tiers[end]
            if by_name and not _alike(total, name, release):  # a name vLLM's batch rule reads (A100...)
                found = sizes.held_at(release, end, total, batch_defaults(total, name, release, False)) \
                    if counted else None
                return figure(release, end) if found is None else found
            if counted is False:
                return None
            if counted:  # sizes.decided(release, end, total, tier), read here
                edge = edges.get((release, end, tier))
                if edge is not None:
                    if edge[0] <= total:
                        return True
                    if edge[1] >= total:
                        return False
            return figure(release, end)

        # the folded floor is the least counted one, its top the most (releases.py)
        sure = None
        for release in sizes.releases:
            floor = holds(release, 0)
            if floor is not None:
                sure = floor
                if not floor:
                    break
        for release in sizes.releases:  # any(...): the first that may hold it decides
            if holds(release, 1):
                return bool(sure), True
        return bool(sure), False
    except Fallback:
        return None
