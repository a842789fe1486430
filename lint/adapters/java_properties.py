r"""A Java `.properties` text (DJL Serving's `serving.properties`) read as `java.util.Properties.load` reads it,
each value kept with where it is written.

The rules, from openjdk/jdk@d0a448c63bf18417e856ac281d1e28705f7a8f41:src/java.base/share/classes/java/util/
Properties.java (`load(Reader)`, its LineReader and loadConvert):

- a natural line ends at `\n`, `\r` or `\r\n`; its leading spaces, tabs and form feeds are skipped; a line that
  is blank then, or whose first character is `#` or `!`, is a comment (a `#` later in a line is text: there are
  no trailing comments, `option.model_id=org/m # note` is the value `org/m # note`);
- a line ending in an odd number of backslashes continues on the next one, whose leading white space is skipped
  (a comment line never continues);
- the key runs to the first unescaped `=`, `:`, space, tab or form feed; white space after it, then one `=` or
  `:`, then white space, are skipped; the rest of the line is the value, trailing white space kept;
- escapes: `\t`, `\n`, `\r`, `\f`, `\uXXXX`, and `\` before any other character is that character; a malformed
  `\uXXXX` makes load() throw IllegalArgumentException, so the whole file is refused;
- a key given twice keeps its last value.

DJL reads the file with `load(InputStream)` (deepjavalibrary/djl-serving@d21927c4a692335fba62a87cc430a5fc00c5f790:
wlm/src/main/java/ai/djl/serving/wlm/ModelInfo.java loadServingProperties), which decodes ISO 8859-1: a UTF-8
byte-order mark is then three characters of the first key. The text here is the loader's (UTF-8, a BOM kept as
U+FEFF), so columns are the editor's.
"""
from __future__ import annotations

import re
from bisect import bisect_right
from typing import Dict, List, Optional, Tuple

from ctxlint.model import Source

from ..records import field, record

_BLANK = " \t\f"
_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}
_LINE_END = re.compile(r"\r\n|\r|\n")


@record
class Entry:
    key: str
    value: str  # unescaped, as Properties holds it
    raw: str  # the value as written (continuations joined, their line breaks and indents removed)
    key_at: Source
    at: Source  # the value (its key's end when the value is empty)
    # (offset into `raw`, Source) for each piece of the value: the first character of each natural line it spans
    pieces: Tuple[Tuple[int, Source], ...] = ()


@record
class Properties:
    entries: Dict[str, Entry] = field(default_factory=dict)  # the last of each key, in first-seen order
    error: Optional[Tuple[str, Source]] = None  # load() refuses the file: why, and where


def read(text: str, file: str) -> Properties:
    """Every key's last value, with positions; a malformed `\\uXXXX` is the file's error (load() throws)."""
    out = Properties()
    lines = _natural_lines(text)
    k = 0
    while k < len(lines):
        number, line = lines[k]
        k += 1
        start = _skip(line, 0)
        if start == len(line) or line[start] in "#!":
            continue
        # (line number, column offset in the natural line, text) of each piece of the logical line
        pieces = [(number, start, line[start:])]
        while _continues(pieces[-1][2]) and k < len(lines):
            pieces[-1] = (pieces[-1][0], pieces[-1][1], pieces[-1][2][:-1])
            number, line = lines[k]
            k += 1
            begin = _skip(line, 0)
            pieces.append((number, begin, line[begin:]))
        if _continues(pieces[-1][2]):  # a trailing `\` on the last line of the file is dropped
            pieces[-1] = (pieces[-1][0], pieces[-1][1], pieces[-1][2][:-1])
        entry = _entry(pieces, file)
        if isinstance(entry, tuple):
            out.error = out.error or entry
            continue
        out.entries.pop(entry.key, None)
        out.entries[entry.key] = entry
    return out


def _natural_lines(text: str) -> List[Tuple[int, str]]:
    # LineReader ends a line at \r, \n or \r\n only (str.splitlines would also end one at \f, \x85, ...)
    return list(enumerate(_LINE_END.split(text), start=1))


def _skip(line: str, i: int) -> int:
    while i < len(line) and line[i] in _BLANK:
        i += 1
    return i


def _continues(piece: str) -> bool:
    slashes = len(piece) - len(piece.rstrip("\\"))
    return slashes % 2 == 1


def _entry(pieces, file: str):
    """The key and value of one logical line, or (why, where) for a malformed escape."""
    joined = "".join(p[2] for p in pieces)
    # where each joined character sits, (line, column) of the natural line, found from the offset each piece
    # starts at (one entry a piece, not one a character: a value may be megabytes long)
    offsets, total = [], 0
    for _, _, text in pieces:
        offsets.append(total)
        total += len(text)

    def place(offset: int) -> Tuple[int, int]:
        k = bisect_right(offsets, offset) - 1
        return pieces[k][0], pieces[k][1] + 1 + offset - offsets[k]
    i, key_end = 0, None
    while i < len(joined):
        if joined[i] == "\\":
            i += 2
            continue
        if joined[i] in "=:" + _BLANK:
            key_end = i
            break
        i += 1
    key_end = len(joined) if key_end is None else key_end
    v = _skip(joined, key_end)
    if v < len(joined) and joined[v] in "=:":
        v = _skip(joined, v + 1)
    key, bad = _unescape(joined[:key_end])
    value, bad_value = _unescape(joined[v:])

    def at(begin: int, end: int) -> Source:
        if begin >= total:  # an empty value: just past the key (or its separator)
            line, col = place(total - 1) if total else (pieces[0][0], pieces[0][1] + 1)
            return Source(file, line, col + 1, key, line, col + 1)
        (line, col), (end_line, end_col) = place(begin), place(max(begin, end - 1))
        return Source(file, line, col, key, end_line, end_col + 1)

    if bad is not None or bad_value is not None:
        offset = bad if bad is not None else v + bad_value
        return ("malformed \\uxxxx encoding: java.util.Properties.load throws IllegalArgumentException, so DJL "
                "Serving cannot load this file (write the character itself, or `\\u` with four hex digits)",
                at(offset, min(offset + 6, len(joined))))
    starts, count = [], 0
    for n, c, t in pieces:
        if count + len(t) > v:
            first = max(v, count)
            starts.append((first - v, at(first, first + 1)))
        count += len(t)
    return Entry(key, value, joined[v:], at(0, key_end), at(v, len(joined)), tuple(starts))


def _unescape(text: str) -> Tuple[str, Optional[int]]:
    """loadConvert: the text without its escapes, and the offset of a malformed `\\uXXXX` (else None)."""
    if "\\" not in text:
        return text, None
    out, i = [], 0
    while i < len(text):
        ch = text[i]
        if ch != "\\" or i + 1 >= len(text):
            out.append(ch)
            i += 1
            continue
        nxt = text[i + 1]
        if nxt == "u":
            digits = text[i + 2:i + 6]
            if len(digits) < 4 or any(d not in "0123456789abcdefABCDEF" for d in digits):
                return "", i
            out.append(chr(int(digits, 16)))
            i += 6
            continue
        out.append(_ESCAPES.get(nxt, nxt))
        i += 2
    # Java's strings are UTF-16: `\\ud83d\\ude00` is one character, and a lone surrogate is kept as it is, which no
    # report can write: pairs joined, a lone one U+FFFD (as a UTF-8 reader of the value would show it)
    return "".join(out).encode("utf-16", "surrogatepass").decode("utf-16", "replace"), None


def source_at(entry: Entry, offset: int) -> Source:
    """Where the character at `offset` of the value as written (`entry.raw`) sits in the file."""
    begin, at = entry.pieces[0] if entry.pieces else (0, entry.at)
    for start, place in entry.pieces:
        if start <= offset:
            begin, at = start, place
    col = at.col + max(0, offset - begin)
    return Source(at.file, at.line, col, at.path, at.line, col + 1)
