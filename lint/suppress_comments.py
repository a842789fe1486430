"""Where a YAML text's comments are, for suppression directives (suppress.py reads them).

Comments are found with PyYAML's scanner: a `#` inside a quoted string or a block scalar is text, not a
comment; a text the scanner rejects falls back to a line scan that tracks quotes. `directive_lines` finds
the few lines that can hold a directive first, so a large file without one is never scanned whole.
"""
from __future__ import annotations

import bisect
import re
from typing import Iterator, List, Match, Optional, Tuple

import yaml

from ctxlint.lazyre import lazy_compile
from ctxlint.lines import after_break, line_bounds, line_starts, split_lines

from .records import record

try:
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover - depends on the PyYAML build
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]

_HASH = lazy_compile("#")
_CTXLINT = lazy_compile("ctxlint", re.I)


@record(frozen=True)
class Comment:
    line: int  # 1-based
    col: int  # 1-based column of the '#'
    text: str  # from the '#' to the end of the line
    own_line: bool  # nothing but whitespace before it



def comments(text: str, is_json: bool = False, only: Optional[List[Tuple[int, int]]] = None) -> List[Comment]:
    """Every comment in a YAML text, skipping '#' inside quoted and block scalars.

    only: (begin, end) of the lines to look at (the rest cannot hold what is sought).
    """
    if is_json:
        return []  # JSON has no comments (the loader rejects them)
    try:
        spans = _scalar_spans(text)
    except yaml.YAMLError:
        return _line_scan(text)
    span_starts = [s for s, _ in spans]
    out = []
    lines_at = line_starts(text)
    for match in _hashes(text, only):
        pos = match.start()
        if pos > 0 and text[pos - 1] not in " \t\r\n":
            continue  # `a#b` is text in YAML: a comment needs whitespace before it
        i = bisect.bisect_right(span_starts, pos) - 1
        if i >= 0 and spans[i][0] <= pos < spans[i][1]:
            continue
        line = bisect.bisect_right(lines_at, pos)
        begin = lines_at[line - 1]
        end = lines_at[line] if line < len(lines_at) else len(text)
        if out and out[-1].line == line:
            continue  # '#' inside an earlier comment on the same line
        out.append(Comment(line, pos - begin + 1, text[pos:end].rstrip("\r\n"), not text[begin:pos].strip()))
    return out


def _hashes(text: str, only: Optional[List[Tuple[int, int]]]) -> Iterator[Match[str]]:
    if only is None:
        yield from _HASH.finditer(text)
        return
    for begin, end in only:
        yield from _HASH.finditer(text, begin, end)


def directive_lines(text: str) -> List[Tuple[int, int]]:
    """(begin, end) of each line where `ctxlint` follows a '#' (and blanks), as _DIRECTIVE wants."""
    # A case-insensitive regex walks the text character by character (0.5 s on 50 MB);
    # str.find on the lowered text runs at C speed, when lowering keeps every index.
    lowered = text.lower()
    if len(lowered) == len(text):
        starts: Iterator[int] = _finds(lowered, "ctxlint")
    else:
        starts = (hit.start() for hit in _CTXLINT.finditer(text))
    found: List[Tuple[int, int]] = []
    for start in starts:
        begin, end = line_bounds(text, start)
        if (found and begin < found[-1][1]) or not text[begin:start].rstrip(" \t").endswith("#"):
            continue
        found.append((begin, end))
    return found


def _finds(text: str, word: str) -> Iterator[int]:
    at = text.find(word)
    while at >= 0:
        yield at
        at = text.find(word, at + len(word))


def _scalar_spans(text: str) -> List[Tuple[int, int]]:
    spans = []
    for token in yaml.scan(text, Loader=_Loader):
        if isinstance(token, yaml.ScalarToken):
            start, end = token.start_mark.index, token.end_mark.index
            if token.style in ("|", ">"):
                # The header line (`key: |  # note`) may carry a real comment: the text starts below it.
                newline = line_bounds(text, start)[1]
                start = end if newline == len(text) else after_break(text, newline)
            spans.append((start, max(start, end)))
    return sorted(spans)


def _line_scan(text: str) -> List[Comment]:
    """Fallback for text the scanner rejects: quotes are tracked within each line."""
    out = []
    for number, line in enumerate(split_lines(text), 1):
        quote: Optional[str] = None
        i = 0
        while i < len(line):
            c = line[i]
            if quote == '"' and c == "\\":
                i += 2
                continue
            if quote and c == quote:
                quote = None
            elif not quote and c in "\"'" and (i == 0 or line[i - 1] in " \t[{,:-"):
                quote = c
            elif not quote and c == "#" and (i == 0 or line[i - 1] in " \t"):
                out.append(Comment(number, i + 1, line[i:], not line[:i].strip()))
                break
            i += 1
    return out
