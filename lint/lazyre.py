"""Regular expressions compiled the first time they are used.

ctxlint's modules define ~70 patterns at module level; compiling them all costs ~7 ms, and a
one-file check (what pre-commit runs) uses about half: those of the adapters, engine tables and
rules its file reaches. `lazy_compile` returns a stand-in that compiles on first use and then
keeps the compiled pattern's methods on itself, so later calls cost what a compiled pattern's
do. Use it only where the pattern is used through its methods and attributes (`.match(...)`,
`.sub(...)`, `.pattern`): the module-level `re` functions accept compiled patterns and strings
only, not a stand-in (tests/test_lazyre.py scans ctxlint's source for such a call).
"""
from __future__ import annotations

import re
from typing import Any

_KEPT = ("match", "search", "fullmatch", "finditer", "findall", "sub", "subn", "split", "scanner",
         "pattern", "flags", "groups", "groupindex")


class LazyPattern:
    """A compiled pattern, compiled on first use."""

    def __init__(self, pattern: Any, flags: int = 0) -> None:
        self._args = (pattern, flags)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # copy/pickle probing for special methods: not a use
            raise AttributeError(name)
        compiled = re.compile(*self._args)
        for kept in _KEPT:  # found on the instance from now on: __getattr__ is not asked again
            setattr(self, kept, getattr(compiled, kept))
        return getattr(compiled, name)

    def __reduce__(self) -> tuple:  # pickled (to a --jobs worker) as the call that made it
        return (lazy_compile, self._args)

    def __repr__(self) -> str:
        return f"lazy_compile({self._args[0]!r}, {self._args[1]!r})"


def lazy_compile(pattern: Any, flags: int = 0) -> LazyPattern:
    return LazyPattern(pattern, flags)
