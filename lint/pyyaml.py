"""PyYAML, imported without compiling the pure-Python reader's character class.

yaml.reader compiles `Reader.NON_PRINTABLE` when imported: a class spanning 1.1 million code
points, ~5 ms, 7% of a one-file check. ctxlint reads through libyaml (CSafeLoader), which checks
printable characters itself, so the pattern is only needed when PyYAML lacks libyaml; it is then
compiled the first time it is used. Every other pattern compiles as usual. ctxlint/__init__.py
imports this module first, so yaml is imported here before any other module asks for it.
"""
from __future__ import annotations

import importlib
import re
import sys
from typing import Any

_NON_PRINTABLE = "[^\x09\x0A\x0D\x20-\x7E\x85\xA0-\uD7FF\uE000-\uFFFD\U00010000-\U0010ffff]"


class LazyPattern:
    """A compiled pattern that compiles on first use."""

    def __init__(self, pattern: str, flags: int) -> None:
        self._args = (pattern, flags)
        self._compiled: Any = None

    def __getattr__(self, name: str) -> Any:
        if self._compiled is None:
            self._compiled = re.compile(*self._args)
        return getattr(self._compiled, name)


def _import_yaml() -> None:
    if "yaml" in sys.modules:  # imported already (a host program): nothing to save
        return
    compile_now = re.compile

    def compile_later(pattern: Any, flags: int = 0) -> Any:
        if pattern == _NON_PRINTABLE and flags == 0:
            return LazyPattern(pattern, flags)
        return compile_now(pattern, flags)

    re.compile = compile_later
    try:
        importlib.import_module("yaml")
    finally:
        re.compile = compile_now


_import_yaml()
