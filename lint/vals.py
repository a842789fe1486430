"""Values that remember where they were read from: `Source` (file, line, column, logical path) and `Val` (a value
and its Source), with `fmt`, the number format of every message. Apart from ctxlint.model, which re-exports them,
so that the deployment model's module holds the deployment's own classes."""
from __future__ import annotations

from typing import Any, Callable, Generic, Optional, TypeVar

from .records import record

T = TypeVar("T")


@record(frozen=True, order=True)
class Source:
    """Where a value sits: 1-based line and column of its first character."""

    file: str
    line: int
    col: int
    path: str = ""  # logical path, e.g. spec.serving.roles[0].kv_pool_tokens
    end_line: int = 0
    end_col: int = 0  # exclusive; 0 when unknown


@record(frozen=True)
class Val(Generic[T]):
    """A value together with the place it was read from."""

    value: T
    source: Source
    raw: str = ""  # the text as written, when it differs from str(value) (e.g. "1Mi")

    def show(self) -> str:
        """The value as a user wrote it, for messages."""
        if self.raw == "default":  # filled in from the engine's own default (ctxlint.capacity)
            return f"{fmt(self.value)} (the engine's default)"
        if self.raw and self.raw != str(self.value):
            return f"{self.raw} (= {fmt(self.value)})"
        return fmt(self.value)


class _PlacedOnRead:
    """`Val.source` of a Val made by `Val.later`: its place is found on the first read, then kept as a plain field.
    A run states ~7 engine settings a role and reports on few of them, and finding each one's place (aligning
    its characters in a list item or a script) was ~4% of a tree run. Non-data: a Val made by __init__ holds its
    source in its own dict, which Python reads first."""

    __slots__ = ()

    def __get__(self, val: Any, cls: Any = None) -> Any:
        if val is None:
            return self
        place = val.__dict__
        try:
            found = place.pop("_place")
        except KeyError:
            raise AttributeError("source") from None
        source = place["source"] = found()
        return source


Val.source = _PlacedOnRead()  # type: ignore[assignment,misc]  # after @record, which took the annotations


def placed_later(value: T, place: Callable[[], Source], raw: str = "") -> Val[T]:
    """Val(value, place(), raw), `place()` called only when the Val's source is first read (by a rule that
    reports the value, a comparison, a hash, a copy or a pickle). `place` must give the same Source whenever it
    is called: it may be called after its caller's state has moved on."""
    val = object.__new__(Val)
    fields_ = val.__dict__
    fields_["value"], fields_["_place"], fields_["raw"] = value, place, raw
    return val


def _state(val: Val) -> dict:
    """What pickles and copies a Val: its fields, its place found first (the function finding it may not pickle)."""
    return {"value": val.value, "source": val.source, "raw": val.raw}


Val.__getstate__ = _state  # type: ignore[attr-defined]


def fmt(value: object) -> str:
    """Format token counts with thousands separators, everything else as is."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def value_of(val: Optional[Val[T]]) -> Optional[T]:
    return None if val is None else val.value
