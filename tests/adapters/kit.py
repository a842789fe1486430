"""Helpers for adapter tests: adapt a YAML text and read back what a Source points at."""
from __future__ import annotations

import textwrap

from ctxlint.adapters import adapt_file
from ctxlint.adapters.base import AdaptResult
from ctxlint.loader import parse_text
from ctxlint.model import Source


def adapt(text: str, name: str = "deploy.yaml") -> AdaptResult:
    return adapt_file(parse_text(textwrap.dedent(text), name))


def at(text: str, source: Source) -> str:
    """The text a Source covers (line:col to end_line:end_col) in the dedented text."""
    lines = textwrap.dedent(text).split("\n")
    if source.end_line == source.line and source.end_col:
        return lines[source.line - 1][source.col - 1:source.end_col - 1]
    return lines[source.line - 1][source.col - 1:]


def arg(role, name):
    val = role.arg(name)
    assert val is not None, f"{name} not in {[k for k, _ in role.engine_args]}"
    return val
