"""PyYAML, imported without compiling patterns a check rarely or never uses.

yaml.reader compiles `Reader.NON_PRINTABLE` when imported: a class spanning 1.1 million code
points, ~5 ms, 7% of a one-file check. ctxlint reads through libyaml (CSafeLoader), which checks
printable characters itself, so the pattern is only needed when PyYAML lacks libyaml. The two
timestamp patterns (the resolver's and the constructor's, ~1 ms) serve only scalars that start
with four digits and are not numbers. Each is compiled the first time it is used (PyYAML uses
them through `.match`/`.search` only); every other pattern compiles as usual. ctxlint/__init__.py
imports this module first, so yaml is imported here before any other module asks for it.
"""
from __future__ import annotations

import importlib
import re
import sys
from typing import Any

from ctxlint.lazyre import LazyPattern

_NON_PRINTABLE = "[^\x09\x0A\x0D\x20-\x7E\x85\xA0-\uD7FF\uE000-\uFFFD\U00010000-\U0010ffff]"
_TIMESTAMP = "[0-9][0-9][0-9][0-9]"  # in both timestamp patterns (a year), in no other of PyYAML's


def _deferred(pattern: Any, flags: int) -> bool:
    return isinstance(pattern, str) and ((pattern == _NON_PRINTABLE and flags == 0) or _TIMESTAMP in pattern)


def _import_yaml() -> None:
    if "yaml" in sys.modules:  # imported already (a host program): nothing to save
        return
    compile_now = re.compile

    def compile_later(pattern: Any, flags: int = 0) -> Any:
        if _deferred(pattern, flags):
            return LazyPattern(pattern, flags)
        return compile_now(pattern, flags)

    re.compile = compile_later
    try:
        importlib.import_module("yaml")
    finally:
        re.compile = compile_now


_import_yaml()
