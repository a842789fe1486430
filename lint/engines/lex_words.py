"""What the shell lexer (lexer.py) cuts a script into: words, each of parts that keep where every character
came from, and operators. The splitter (shellwords.py) and the readers of shell constructs take these.
"""
from __future__ import annotations

from typing import Optional

from ..records import field, record

Span = tuple[int, int]


@record
class Part:
    """A piece of a word: literal characters, a variable, or a command substitution."""

    kind: str  # "lit" | "var" | "cmd"
    # (text, starts, ends): text[k] came from source span (starts[k], ends[k]). A run of literals is
    # one entry, its offsets built in C, not a tuple per character that the splitter then unzipped.
    runs: list[tuple[str, tuple[int, ...], tuple[int, ...]]] = field(default_factory=list)
    quoted: bool = False
    name: str = ""
    # var: "shell" | "k8s" | "go" (a Go template action's value) | "go-if" (the word is inside `{{ if }}`:
    # it renders no text of its own); cmd: "command"
    style: str = ""
    default: Optional[str] = None


@record
class Word:
    parts: list[Part] = field(default_factory=list)
    had_quotes: bool = False
    local_start: int = 0
    src_span: Span = (0, 0)  # the whole word as typed, quotes included
    array: Optional[list[Word]] = None  # `NAME=(a b c)` (or `NAME+=(...)`): this word is `NAME=`, these the elements
    dq: bool = False  # holds a double-quoted string (an `sh -c "..."` script its shell expands first)

    def span(self) -> Span:
        return self.src_span


@record
class Op:
    text: str
    start: int
    end: int
