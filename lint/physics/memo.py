"""Exact memoization for the capacity physics' pure functions.

A tree repeats itself: the same model, engine, settings and device appear in many files
(overlays, variants, copies per environment), and the CTX208 memory-need search probes the
same inputs for each of them. The physics is a pure function of its input, so a result can
be reused whenever the input is the same, but "the same" must mean indistinguishable, not
merely equal: 1 == 1.0 == True and 0.0 == -0.0 in Python, yet each prints differently in a
message. `exact_key` therefore keys every scalar by its type and floats by their exact hex
form; anything it cannot key exactly (NaN, an unknown object) raises `Unkeyable`, and the
caller then computes without the cache.
"""
from __future__ import annotations

import itertools
import math
from collections import OrderedDict
from collections.abc import Mapping  # not typing's: its isinstance() goes through an alias, ~3x slower
from typing import Any, Callable, Hashable

from ..records import fields, is_frozen, values_getter

_SCALARS = frozenset((str, int, bool, bytes, type(None)))  # a set: a float or a record misses at once
_MISSING = object()
_TOKENS: dict = {}   # a compound value's key (its kind and its parts' tokens) -> its token
_BY_ID: dict = {}    # id of a frozen dataclass of immutable parts -> (it, its token)
_TABLE_MAX = 8192
_GETTERS: dict = {}  # record class -> a function giving its fields' values, in order
_serial = itertools.count()


class Unkeyable(Exception):
    """The value has no exact key: compute without the cache."""


def exact_key(value: Any) -> Hashable:
    """A hashable key equal for two values only when no pure function can tell them apart."""
    return _token(value)[0]


def _token(value: Any) -> tuple:
    """(key, immutable). A compound value (tuple, list, mapping, dataclass) keys as a small
    token standing for its kind and its parts' keys, so that a memo's keys stay shallow (cheap
    to hash, a few bytes each) however large the model behind them. Tokens are never reused:
    after the table is cleared an equal value gets a new token, a miss and never a false hit."""
    kind = type(value)
    if kind in _SCALARS:
        return (kind, value), True
    if kind is float:
        if math.isnan(value):  # NaN != NaN, and its sign bit is invisible to ==
            raise Unkeyable("NaN")
        return (kind, value.hex()), True
    if kind is tuple or kind is list:
        keys, fixed = _parts(value)
        return _intern(kind, keys), kind is tuple and fixed
    if getattr(kind, "__record_fields__", None) is not None:  # a record (ctxlint.records)
        known = _BY_ID.get(id(value))
        if known is not None and known[0] is value:
            return known[1], True
        getter = _GETTERS.get(kind)
        if getter is None:
            # one attrgetter call: a search keys ~20 inputs a role, each with ~15 fields
            getter = _GETTERS[kind] = values_getter([f.name for f in fields(kind)])
        keys, fixed = _parts(getter(value))
        key = _intern(kind, keys)
        # A frozen model, device or format keys the same for its whole life: the search passes the
        # same objects to every probe, and a model has ~50 fields to key.
        fixed = fixed and is_frozen(kind)
        if fixed:
            if len(_BY_ID) >= _TABLE_MAX:
                _BY_ID.clear()
            _BY_ID[id(value)] = (value, key)  # holding `value` keeps its id from being reused
        return key, fixed
    if isinstance(value, Mapping):  # insertion order kept: a function may iterate it
        keys, _ = _parts([item for pair in value.items() for item in pair])
        return _intern(kind, keys), False
    raise Unkeyable(kind.__name__)


def _parts(values) -> tuple:
    """(the values' keys, whether all are immutable), with the common scalars keyed inline:
    a probe's input is mostly strings and numbers, and a call per scalar was most of the cost."""
    keys = []
    fixed = True
    for item in values:
        kind = type(item)
        if kind in _SCALARS:
            keys.append((kind, item))
        else:
            key, item_fixed = _token(item)
            keys.append(key)
            fixed = fixed and item_fixed
    return tuple(keys), fixed


def _intern(kind: type, parts: tuple) -> tuple:
    full = (kind, parts)
    token = _TOKENS.get(full)
    if token is None:
        if len(_TOKENS) >= _TABLE_MAX:
            _TOKENS.clear()
        token = _TOKENS[full] = ("#", next(_serial))
    return token


class Memo:
    """The most recent `size` results of `fn`, keyed exactly by its one argument.

    Results are shared between callers, so `fn` must return values nobody mutates (the
    physics returns frozen dataclasses). Not for threads: the capacity step runs on one
    thread per process (`--jobs` starts processes, each with its own memo)."""

    def __init__(self, fn: Callable[[Any], Any], size: int) -> None:
        self.fn, self.size = fn, size
        self.results: OrderedDict = OrderedDict()

    def __call__(self, arg: Any) -> Any:
        try:
            key = exact_key(arg)
        except Unkeyable:
            return self.fn(arg)
        return self.keyed(key, arg)

    def keyed(self, key: Hashable, arg: Any, fn: Callable[[Any], Any] | None = None) -> Any:
        """`fn(arg)` for a caller that already holds `arg`'s exact key (or one built from it); `fn`, when
        given, must return what the memo's own function would (it may reuse work the caller holds)."""
        found = self.results.get(key, _MISSING)
        if found is not _MISSING:
            self.results.move_to_end(key)
            return found
        result = self.results[key] = (fn or self.fn)(arg)
        if len(self.results) > self.size:
            self.results.popitem(last=False)
        return result

    def clear(self) -> None:
        self.results.clear()
