"""`Pool`: the KV-cache capacity of one replica of a role, in tokens, with its band and what one request of it
holds. Apart from ctxlint.model, which re-exports it."""
from __future__ import annotations

from typing import Any, Optional

from .records import record
from .vals import Source, fmt


@record(frozen=True)
class Pool:
    """The KV-cache capacity of one replica of a role, in tokens.

    `origin` is "declared" when the deployment states it, "derived" when the
    capacity physics computed it; `explanation` carries the arithmetic.
    """

    tokens: int
    source: Source
    origin: str = "declared"
    explanation: str = ""  # for derived pools: the arithmetic, one line
    low: Optional[int] = None  # derived pools: the band of the estimate (None: exact)
    high: Optional[int] = None
    # What ONE request can hold: the pool less what the engine keeps back from every request (vLLM's
    # null block; for a derived pool also the window layers and per-request state the physics counts).
    # None: the whole pool. `held_low`/`held_high`: the same at the band's ends. Promises are held
    # against these; messages show the pool as the engine logs it and `reserve` says what is kept back.
    held: Optional[int] = None
    held_low: Optional[int] = None
    held_high: Optional[int] = None
    reserve: str = ""  # e.g. "one 16-token block is vLLM's null block"
    # A derived pool: the pool `reserve` is taken from (held + reserve), when it is not `tokens`: an unknown vLLM
    # release's fold takes its point pool and its longest request from different releases (physics/releases.py)
    reserve_of: Optional[int] = None
    # A logged vLLM figure of a model with window layers, read as its release logs it
    # (ctxlint.physics.logged.Reading): held/held_low/held_high come from it, and messages say how it was read.
    logged: Any = None

    @property
    def banded(self) -> bool:
        return self.low is not None and self.high is not None and self.low != self.high

    @property
    def ceiling(self) -> int:
        """The most this pool can plausibly be: an error needs a promise above it."""
        return self.high if self.high is not None else self.tokens

    @property
    def floor(self) -> int:
        """The least it can be: a promise at or below it fits whatever the estimate's error."""
        return self.low if self.low is not None else self.tokens

    @property
    def request(self) -> int:
        """The most one request can hold at the estimate's point (the pool less the engine's reserve)."""
        return self.tokens if self.held is None else self.held

    @property
    def request_ceiling(self) -> int:
        """The most one request can hold at the band's top: a promise above it is an error."""
        if self.held is None:
            return self.ceiling
        return self.held_high if (self.banded or self.logged is not None) and self.held_high is not None else self.held

    @property
    def request_floor(self) -> int:
        """The most one request can hold at the band's low end: a promise at or below it fits."""
        if self.held is None:
            return self.floor
        return self.held_low if (self.banded or self.logged is not None) and self.held_low is not None else self.held

    def request_band(self) -> str:
        low, high = self.request_floor, self.request_ceiling
        return f"{fmt(low)}-{fmt(high)}" if low != high else fmt(high)

    def holds(self) -> str:
        """', which holds at most N tokens for one request (why)' when the engine keeps part of the pool
        back, else '': said wherever a promise is held against the smaller figure."""
        if self.logged is not None:  # a logged figure one request may hold more of than it says
            held = self.request_band() if self.request_floor != self.request_ceiling else fmt(self.request_ceiling)
            return f", which holds {'at most ' if '-' not in held else ''}{held} tokens for one request " \
                   f"({self.logged.text})"
        if self.held is None or self.request_ceiling >= self.ceiling:
            return ""
        if self.request_floor != self.request_ceiling:  # `reserve` is what the point keeps back: its own sum
            why = f" ({self.reserve_text()})" if self.reserve else ""
            return f", which holds {fmt(self.request)} tokens for one request at the estimate's point{why} and " \
                   f"at most {fmt(self.request_ceiling)} at the top of its band"
        why = f" ({self.reserve})" if self.reserve else ""
        return f", which holds at most {fmt(self.request_ceiling)} tokens for one request{why}"

    def reserve_text(self) -> str:
        """`reserve` with the pool it is taken from, so that its figures add up to it with `request`."""
        base = self.tokens if self.reserve_of is None else self.reserve_of
        if self.request <= 0:  # a point that holds nothing: what is kept back exceeds it, no sum to state
            return self.reserve
        whose = "its " if base == self.tokens else ""
        other = "" if base == self.tokens else ", the pool of the release the longest request follows"
        return f"of {whose}{fmt(base)}{other}: {self.reserve}"

    @property
    def unsure(self) -> bool:
        """What one request holds is a band: a derived pool's estimate, or a logged figure whose reading
        depends on what is not known (the vLLM release, the device's default batch, rounding)."""
        return self.banded or (self.logged is not None and self.request_floor != self.request_ceiling)

    def band(self) -> str:
        return f"{fmt(self.floor)}-{fmt(self.ceiling)}" if self.banded else fmt(self.tokens)

    def describe(self) -> str:
        if self.origin == "derived" and self.explanation:
            band = f"; band {self.band()}" if self.banded else ""
            return f"{fmt(self.tokens)} ({self.explanation}{band})"
        return f"{fmt(self.tokens)} ({self.origin})"
