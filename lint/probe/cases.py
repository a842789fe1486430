"""The limits a probe tests (window, pool) and the boundary cases built from them.

Every case is sized by its TOTAL: prompt tokens plus `max_tokens`, the sum engines
check against their context length (vLLM: "you requested N tokens (P in the
messages, M in the completion)") and that the KV pool must hold. A case at or
below both limits must get a completion; a case above either must get a 4xx.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

from ctxlint.model import Source, fmt

ACCEPT, REFUSE = "completion", "4xx"
# In the order they run: inside-limit cases first, so a stack that breaks on an
# over-long prompt has answered the others before it does.
CASE_NAMES = ("window-1", "window", "pool", "output-at-window",
              "window+1", "pool+1", "output-past-window")


@dataclass(frozen=True)
class Boundaries:
    """The limits a probe holds the stack to, and where each was read."""

    window: Optional[int] = None  # the advertised context window (prompt + output)
    pool: Optional[int] = None  # the smallest KV pool of a role that holds prompts
    pool_high: Optional[int] = None  # top of a derived pool's band (None: exact)
    window_source: Optional[Source] = None
    pool_source: Optional[Source] = None
    origin: str = "command line"  # "command line" or the manifest (and deployment) read

    @property
    def pool_ceiling(self) -> Optional[int]:
        return self.pool_high if self.pool_high is not None else self.pool

    def describe(self) -> str:
        parts = []
        if self.window is not None:
            parts.append(f"window {fmt(self.window)}")
        if self.pool is not None:
            band = f" (band to {fmt(self.pool_high)})" if self.pool_high not in (None, self.pool) else ""
            parts.append(f"pool {fmt(self.pool)}{band}")
        return ", ".join(parts) + f" from {self.origin}"


@dataclass(frozen=True)
class Case:
    """One boundary request: its total size, split into prompt and max_tokens."""

    name: str
    total: int
    max_tokens: int
    above_window: bool
    above_pool: bool

    @property
    def prompt_tokens(self) -> int:
        return self.total - self.max_tokens

    @property
    def expect(self) -> str:
        return REFUSE if self.above_window or self.above_pool else ACCEPT


def plan_cases(limits: Boundaries, short_prompt: int,
               wanted: Sequence[str] = CASE_NAMES) -> Tuple[List[Case], List[Tuple[str, str]]]:
    """The cases to send, in order, and (name, reason) for each one left out.

    `short_prompt` is the prompt size of the output cases (they vary max_tokens).
    """
    window, pool, ceiling = limits.window, limits.pool, limits.pool_ceiling
    totals = {}
    skipped: List[Tuple[str, str]] = []
    if window is not None:
        totals.update({"window-1": (window - 1, 1), "window": (window, 1), "window+1": (window + 1, 1),
                       "output-at-window": (window, window - short_prompt),
                       "output-past-window": (window + 1, window + 1 - short_prompt)})
    if pool is not None and ceiling is not None:
        if window is not None and pool > window:
            for name in ("pool", "pool+1"):
                skipped.append((name, f"the pool ({fmt(pool)}) is above the window: window+1 is refused first"))
        else:
            totals.update({"pool": (pool, 1), "pool+1": (ceiling + 1, 1)})
    for name in CASE_NAMES:
        if name not in wanted or any(s[0] == name for s in skipped):
            continue
        if name not in totals:
            skipped.append((name, "no " + ("pool" if name.startswith("pool") else "window") + " given"))
        elif min(totals[name][1], totals[name][0] - totals[name][1]) < 1:
            skipped.append((name, f"a total of {fmt(totals[name][0])} leaves no room for a prompt and an output"))
    cases = []
    for name in CASE_NAMES:
        if name in wanted and name in totals and not any(s[0] == name for s in skipped):
            total, max_tokens = totals[name]
            cases.append(Case(name, total, max_tokens,
                              above_window=window is not None and total > window,
                              above_pool=ceiling is not None and total > ceiling))
    return cases, [s for s in skipped if s[0] in wanted]
