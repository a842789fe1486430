"""Align a scalar's decoded value with the raw text it was typed as: the file index of every decoded
character (scalar_spans.ScalarSpans.offsets caches them per node).

Quotes, `''` and backslash escapes, folded line breaks and block indentation are skipped; a `|` block typed
as decoded is matched a line at a time (_literal_lines), anything else a character run at a time
(_by_character). None when the alignment fails (an exotic escape, a non-string scalar whose text differs
from its value): the caller then uses the scalar's own start, never a guess.
"""
from __future__ import annotations

import bisect
from typing import List, Optional, Sequence

from ctxlint.lazyre import lazy_compile
from ctxlint.lines import after_break, line_bounds
from ctxlint.nodes import Node

_ESCAPE_LEN = {"x": 4, "u": 6, "U": 10}
_NOT_WHITE = lazy_compile(r"[^ \t\r\n]")
_SPACES = lazy_compile(r" *")


def _content_start(text: str, node: Node) -> Optional[int]:
    start, style = node.start_index, node.style
    if style in ("'", '"'):
        return start + 1 if text[start:start + 1] == style else None
    if style in ("|", ">"):  # the text starts on the line below the header
        newline = line_bounds(text, start)[1]
        return None if newline >= node.end_index else after_break(text, newline)
    return start


def align(text: str, node: Node, decoded: str) -> Optional[Sequence[int]]:
    begin = _content_start(text, node)
    if begin is None:
        return None
    end = node.end_index - (1 if node.style in ("'", '"') else 0)
    style = node.style
    if begin + len(decoded) <= end and text.startswith(decoded, begin) and not (
            style == '"' and "\\" in decoded or style == "'" and "'" in decoded):
        # Typed as decoded (most list items and one-line values): _by_character would match each
        # character at the next index, since only escapes are tried before equality.
        return range(begin, begin + len(decoded))
    if style == "|":
        found = _literal_lines(text, begin, end, decoded)
        if found is not None:
            return found
    return _by_character(text, begin, end, style, decoded)


def _literal_lines(text: str, begin: int, end: int, decoded: str) -> Optional[Offsets]:
    """A `|` block whose every line is typed as decoded after the block's indentation (an empty line empty):
    _by_character's runs, found a line at a time. That matches a line's characters in one run from its
    first non-blank one through its line break; the spaces a decoded line starts with (a script's
    continuation lines, a nested YAML document) it matches to the first columns of the line, as the run of
    the line before goes on through them. None when a line is typed otherwise (blanks on an empty line,
    a line break of "\r\n", deeper indentation): _by_character aligns it then. A `|` script's per-character
    loop was ~2% of a tree run."""
    lines = decoded.split("\n")
    first = next((line for line in lines if line), None)
    if first is None:
        return None
    typed = text[begin:end]
    at = lines.index(first)
    rows = typed.split("\n", at + 1)
    if len(rows) <= at:
        return None
    row = rows[at]
    lead = len(first) - len(first.lstrip(" "))
    indent = len(row) - len(row.lstrip(" ")) - lead
    if indent < 0:
        return None
    pad = " " * indent
    if not typed.startswith("\n".join([pad + line if line else "" for line in lines])):
        return None
    starts: List[int] = []
    raws: List[int] = []
    p, i = 0, begin
    for line in lines:
        if not line:
            starts.append(p)
            raws.append(i)
            p += 1
            i += 1
            continue
        lead = len(line) - len(line.lstrip(" "))
        if lead:
            starts.append(p)
            raws.append(i)
        starts.append(p + lead)
        raws.append(i + indent + lead)
        p += len(line) + 1
        i += indent + len(line) + 1
    if lines[-1] == "":  # the decoded text ends with its line break: the empty rest is no line
        starts.pop()
        raws.pop()
    return Offsets(starts, raws, len(decoded))


class Offsets:
    """The file index of each decoded character, kept as runs: where each run of characters typed one
    after another starts (its first decoded index, and that character's file index). Indexed as the
    list of every index it stands for; a `|` script's list of ints was most of aligning it."""

    __slots__ = ("starts", "raws", "length")

    def __init__(self, starts: List[int], raws: List[int], length: int) -> None:
        self.starts, self.raws, self.length = starts, raws, length

    def __len__(self) -> int:
        return self.length

    def __getitem__(self, k):
        if isinstance(k, slice):  # as the list it stands for: a list of the indices
            return [self[i] for i in range(*k.indices(self.length))]
        if k < 0:
            k += self.length
        if not 0 <= k < self.length:
            raise IndexError("offset out of range")
        run = bisect.bisect_right(self.starts, k) - 1
        return self.raws[run] + k - self.starts[run]


def _by_character(text: str, begin: int, end: int, style: Optional[str], decoded: str) -> Optional[Offsets]:
    starts: List[int] = []  # the decoded index each run starts at
    raws: List[int] = []  # the file index it starts at
    i, p, n = begin, 0, len(decoded)
    # Equal characters match one after another, in bulk (_equal_run), up to the next character an escape
    # starts with: a quoted scalar's escapes are tried before equality.
    escape = "\\" if style == '"' else "'" if style == "'" else None
    while p < n:
        ch = decoded[p]
        while True:
            if i >= end:
                return None
            raw = text[i]
            if style == '"' and raw == "\\":
                nxt = text[i + 1:i + 2]
                if nxt in ("\n", "\r"):  # line continuation: no character of its own
                    i += 2
                    while i < end and text[i] in " \t\r\n":
                        i += 1
                    continue
                starts.append(p)
                raws.append(i)
                i += _ESCAPE_LEN.get(nxt, 2)
                p += 1
                break
            if style == "'" and raw == "'" and text[i + 1:i + 2] == "'":
                if ch != "'":
                    return None
                starts.append(p)
                raws.append(i)
                i += 2
                p += 1
                break
            if raw == ch:
                stop = end if escape is None else text.find(escape, i, end)
                stop = end if stop < 0 else stop
                m = _equal_run(text, i, stop, decoded, p) if stop > i else 1  # a block's line at once
                starts.append(p)
                raws.append(i)
                i += m
                p += m
                break
            if raw == "\r" and ch == "\n" and text[i + 1:i + 2] != "\n":  # a lone "\r" line end, read as "\n"
                starts.append(p)
                raws.append(i)
                i += 1
                p += 1
                break
            if raw in " \t\r\n":  # indentation, folded line breaks
                if ch in " \t\r\n":
                    i += 1
                    continue
                # none of them can match ch or start an escape: the whole run is skipped, as one at a time
                found = _NOT_WHITE.search(text, i, end)
                i = end if found is None else found.start()
                continue
            if ch in " \n" and p:  # a folded break decoded as space/newline: no raw char of its own
                starts.append(p)
                raws.append(i)
                p += 1
                break
            return None
    return Offsets(starts, raws, n)


def _equal_run(text: str, i: int, end: int, decoded: str, p: int) -> int:
    """How many characters from text[i] (before `end`) equal those from decoded[p]; text[i] == decoded[p]."""
    limit = min(end - i, len(decoded) - p)
    m = 1
    # A line is mostly typed as decoded up to its line break: compared whole first. A folded block decodes
    # the break as a space (the run ends there); a literal one keeps it, and the next line's indentation is
    # not in the decoded text, unless the decoded line starts with spaces too (a script's continuation lines,
    # a nested YAML document): both runs of spaces are measured at once, not a character at a time.
    newline = text.find("\n", i, i + limit)
    if newline > i and text[i:newline] == decoded[p:p + newline - i]:
        m = newline - i
        if decoded[p + m] != "\n":
            return m
        m += 1
        if m >= limit or text[i + m] != decoded[p + m]:
            return m
        if text[i + m] == " ":
            typed = _SPACES.match(text, i + m, i + limit).end() - i
            spaces = _SPACES.match(decoded, p + m, p + limit).end() - p
            if typed != spaces:
                return min(typed, spaces)
            m = typed
    step = 16
    while m < limit:
        k = min(limit, m + step)
        if text[i + m:i + k] == decoded[p + m:p + k]:
            m, step = k, step * 2
            continue
        hi = k - 1  # the run ends before k: bisect the first difference in (m, k)
        while m < hi:
            mid = (m + hi + 1) // 2
            if text[i + m:i + mid] == decoded[p + m:p + mid]:
                m = mid
            else:
                hi = mid - 1
        return m
    return m
