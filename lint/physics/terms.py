"""Terms of a memory budget, each with a band: the point estimate and how low and high it can be.

A derived KV budget is a base (device memory, a fraction of it) minus terms (weights,
activation peak, NCCL, CUDA graphs...). Each estimated term carries the range its
uncertainty allows; the budget's band follows: its low bound subtracts every term's high
value, its high bound every term's low value. A term known exactly has low == high.
"""
from __future__ import annotations

from operator import attrgetter
from typing import Iterable, Tuple

from ..records import record

GIB = 1 << 30
MIB = 1 << 20


@record(frozen=True)
class Term:
    label: str
    point: float  # bytes
    low: float
    high: float
    how: str  # the arithmetic, or the rule it follows
    source: str = ""  # where the rule comes from (engine code, boot logs)

    @classmethod
    def exact(cls, label: str, value: float, how: str, source: str = "") -> "Term":
        return cls(label, value, value, value, how, source)

    def scaled(self, factor: float) -> "Term":
        return Term(self.label, self.point * factor, self.low * factor, self.high * factor, self.how, self.source)

    def show(self) -> str:
        if self.low == self.high:
            return f"{self.point / GIB:.2f} GiB"
        return f"{self.point / GIB:.2f} GiB ({self.low / GIB:.2f}-{self.high / GIB:.2f})"


def subtract(base: Term, terms: Iterable[Term]) -> Tuple[float, float, float]:
    """(point, low, high) of base minus the terms: the low bound takes every term at its highest."""
    terms = tuple(terms)  # sum() itself (Python 3.12 sums floats with compensation), fed by C-level maps
    return (base.point - sum(map(_POINT, terms)), base.low - sum(map(_HIGH, terms)),
            base.high - sum(map(_LOW, terms)))


_POINT, _LOW, _HIGH = attrgetter("point"), attrgetter("low"), attrgetter("high")


def gib(x: float | None) -> str:
    return "?" if x is None else f"{x / GIB:.2f} GiB"
