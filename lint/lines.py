r"""What a line is, in one place: the lines editors, GitHub and SARIF viewers number.

A line ends at "\n", "\r\n" or a lone "\r". libyaml also ends lines at NEL, LINE SEPARATOR
and PARAGRAPH SEPARATOR (the loader renumbers nodes when a file holds one), and
`str.splitlines()` at those and at "\x0b", "\x0c" and "\x1c"-"\x1e" too: positions,
suppression comments, snippets, fixes and baselines all count lines here instead, so a
finding's line, the comment that silences it and the text shown for it agree.
"""
from __future__ import annotations

import bisect
from itertools import accumulate
from typing import Any, List, Tuple

from ctxlint.lazyre import lazy_compile

_PLUS_ONE = (1).__add__


def line_starts(text: str) -> List[int]:
    """Index of the first character of every line (one more than the breaks: the last line may be empty)."""
    if "\r" in text and text.count("\r") != text.count("\r\n"):
        return _starts_with_lone_cr(text)
    # Each line's length + 1, summed from 0, all in C (str.split, map, accumulate): a Python loop
    # over str.find was ~2x slower. The last sum is the end of the text: not a line start. ("\r\n"
    # needs nothing more: its "\r" ends the line before the "\n" does.)
    starts = list(accumulate(map(_PLUS_ONE, map(len, text.split("\n"))), initial=0))
    starts.pop()
    return starts


def _starts_with_lone_cr(text: str) -> List[int]:
    r"""line_starts for text in which some "\r" is not followed by "\n" (old Mac line ends, or a mix)."""
    return [0, *(match.end() for match in _BREAK.finditer(text))]


_BREAK = lazy_compile(r"\r\n?|\n")


def split_lines(text: str, keepends: bool = False) -> List[str]:
    r"""The text's lines as line_starts numbers them (with their breaks when `keepends`): like
    `str.splitlines()`, but only "\n", "\r\n" and "\r" end a line."""
    starts = line_starts(text)
    if starts[-1] == len(text):  # ends with a break, or is empty: no empty line after it, as splitlines()
        starts.pop()
    lines = [text[a:b] for a, b in zip(starts, starts[1:] + [len(text)])]
    return lines if keepends else [line.rstrip("\r\n") for line in lines]


def line_bounds(text: str, index: int) -> Tuple[int, int]:
    """(its first index, the index of its break or the text's end) of the line holding the character
    at `index`, which is not a line break."""
    begin = max(text.rfind("\n", 0, index), text.rfind("\r", 0, index)) + 1
    ends = [at for at in (text.find("\n", index), text.find("\r", index)) if at >= 0]
    return begin, min(ends) if ends else len(text)


def after_break(text: str, at: int) -> int:
    """The first index of the line after the break at `at` (a "\r\n" is one break)."""
    return at + (2 if text.startswith("\r\n", at) else 1)


def line_col(text: str, index: int) -> Tuple[int, int]:
    """1-based (line, column) of the character at `index`."""
    starts = line_starts(text)
    line = bisect.bisect_right(starts, index) - 1
    return line + 1, index - starts[line] + 1


def has_other_breaks(text: str) -> bool:
    """Whether the text holds a character libyaml ends a line at and editors do not: a NEL, LINE
    SEPARATOR or PARAGRAPH SEPARATOR (in a quoted value, say), which shifts libyaml's line numbers."""
    # `in` is a C scan (~1 us on a 10 KB file); a character-class regex took ~40 us, 1% of a tree run
    return not text.isascii() and any(c in text for c in _OTHER_BREAKS)


_OTHER_BREAKS = ("\x85", "\u2028", "\u2029")


def mark_line_col(text: str, mark: Any) -> Tuple[int, int]:
    """1-based (line, column) of a libyaml or PyYAML mark (or (1, 1) for None), counted as here."""
    if mark is None:
        return 1, 1
    if not has_other_breaks(text):
        return mark.line + 1, mark.column + 1  # the same count: "\n", "\r\n" and "\r" end a line in both
    return line_col(text, mark.index)
