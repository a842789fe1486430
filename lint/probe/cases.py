"""The limits a probe tests (window, pool, gateway cap) and the boundary cases built from them.

A case is sized by its TOTAL, prompt tokens plus `max_tokens`: the sum engines
check against their context length (vLLM: "you requested N tokens (P in the
messages, M in the completion)") and that the KV pool must hold. The gateway cap
limits the prompt alone. A case within every limit must get a completion; a case
past any of them must get a 4xx.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

from ctxlint.model import Source, fmt

from ..records import record

ACCEPT, REFUSE = "completion", "4xx"
# In the order they run: cases within the limits first, so a stack that breaks on an
# over-long prompt has answered the others before it does.
CASE_NAMES = ("window-1", "window", "pool", "cap", "output-at-window",
              "window+1", "pool+1", "cap+1", "output-past-window")
# The largest prompt the probe builds: 16Mi filler words are ~64 MB of request body. Larger
# windows exist only on paper; a case past this is reported as not run, never half-sized.
MAX_PROMPT = 16 * 2**20
LIMIT_OF = {name: "pool" if name.startswith("pool") else "prompt cap" if name.startswith("cap") else "window"
            for name in CASE_NAMES}


@record(frozen=True)
class Boundaries:
    """The limits a probe holds the stack to, and where each was read."""

    window: Optional[int] = None  # the advertised context window (prompt + output)
    pool: Optional[int] = None  # the smallest KV pool of a role that holds prompts (a band's floor)
    pool_high: Optional[int] = None  # top of a derived pool's band (None: exact)
    prompt_cap: Optional[int] = None  # the gateway's prompt cap
    window_source: Optional[Source] = None
    pool_source: Optional[Source] = None
    cap_source: Optional[Source] = None
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
        if self.prompt_cap is not None:
            parts.append(f"prompt cap {fmt(self.prompt_cap)}")
        return ", ".join(parts) + f" from {self.origin}"


@record(frozen=True)
class Case:
    """One boundary request: its total size, split into prompt and max_tokens."""

    name: str
    total: int
    max_tokens: int
    above_window: bool
    above_pool: bool
    above_cap: bool

    @property
    def prompt_tokens(self) -> int:
        return self.total - self.max_tokens

    @property
    def expect(self) -> str:
        return REFUSE if self.above_window or self.above_pool or self.above_cap else ACCEPT


def plan_cases(limits: Boundaries, short_prompt: int,
               wanted: Sequence[str] = CASE_NAMES) -> Tuple[List[Case], List[Tuple[str, str]]]:
    """The cases to send, in order, and (name, reason) for each one left out.

    `short_prompt` is the prompt size of the output cases (they vary max_tokens).
    """
    sizes, skipped = _sizes(limits, short_prompt)
    cases = []
    for name in CASE_NAMES:
        if name not in wanted or name in skipped:
            continue
        if name not in sizes:
            if tuple(wanted) != CASE_NAMES:  # asked for by name: say why it did not run
                skipped[name] = f"no {LIMIT_OF[name]} given"
            continue
        total, max_tokens = sizes[name]
        if max_tokens < 1 or total - max_tokens < 1:
            skipped[name] = f"a total of {fmt(total)} leaves no room for a prompt and an output"
            continue
        if total - max_tokens > MAX_PROMPT:
            skipped[name] = f"a prompt of {fmt(total - max_tokens)} tokens is over the probe's largest, " \
                            f"{fmt(MAX_PROMPT)}"
            continue
        cases.append(Case(name, total, max_tokens,
                          above_window=limits.window is not None and total > limits.window,
                          above_pool=limits.pool_ceiling is not None and total > limits.pool_ceiling,
                          above_cap=limits.prompt_cap is not None and total - max_tokens > limits.prompt_cap))
    return cases, [(name, why) for name, why in skipped.items() if name in wanted]


def _sizes(limits: Boundaries, short_prompt: int) -> Tuple[Dict[str, Tuple[int, int]], Dict[str, str]]:
    """(total, max_tokens) of each case the limits define; reasons for those they make pointless."""
    window, pool, ceiling, cap = limits.window, limits.pool, limits.pool_ceiling, limits.prompt_cap
    sizes: Dict[str, Tuple[int, int]] = {}
    skipped: Dict[str, str] = {}
    if window is not None:
        sizes.update({"window-1": (window - 1, 1), "window": (window, 1), "window+1": (window + 1, 1),
                      "output-at-window": (window, window - short_prompt),
                      "output-past-window": (window + 1, window + 1 - short_prompt)})
    if pool is not None and ceiling is not None:
        if window is not None and pool > window:
            skipped.update({name: f"the pool ({fmt(pool)}) is above the window: window+1 is refused first"
                            for name in ("pool", "pool+1")})
        else:
            sizes.update({"pool": (pool, 1), "pool+1": (ceiling + 1, 1)})
    if cap is not None:
        if window is not None and cap >= window:
            skipped.update({name: f"the prompt cap ({fmt(cap)}) is not below the window: the window cases test it"
                            for name in ("cap", "cap+1")})
        else:
            sizes.update({"cap": (cap + 1, 1), "cap+1": (cap + 2, 1)})  # prompts of cap and cap+1 tokens
    return sizes, skipped
