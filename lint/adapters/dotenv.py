"""Docker Compose's env files, read as Compose reads them: the project's `.env` (interpolation of the compose
file) and a service's `env_file:` (its container's environment), every value at its place in the env file.

The syntax is compose-go's dotenv parser (compose-spec/compose-go@e70e961c3a3acebf0800b882f1afb3dbf1fb74a2:
dotenv/parser.go): statements separated by whitespace, `#` comment lines, an optional `export ` prefix, a key
of letters, digits and `_ . - [ ]` ended by `=` or `:` (YAML-style), or by the line's end (the key is taken from
the environment of the shell that runs Compose: not known here); an unquoted value runs to the line's end, cut
at ` #` and trimmed; a quoted one to its closing quote (`\\` escapes it; a value may span lines). Unquoted and
double-quoted values are interpolated (dotenv/godotenv.go expandVariables: the lookup first, then the keys the
file set before), double-quoted ones after their escapes (`\\n`, `\\t`, `\\$` as a literal `$`); single-quoted
ones are kept as typed. A key with another character, or a quote never closed, makes Compose refuse the file.

The shell's environment is not known here: a reference to a name nothing in the files sets takes its
`:-`/`-` default, else it is unknown (None), as adapters/compose.py reads a compose file.
"""
from __future__ import annotations

import os
from collections import ChainMap
from typing import List, Mapping, Optional, Tuple

from ctxlint.engines.compose_pass import COMPOSE_REF as _REF  # the references Compose reads, in a file or here
from ctxlint.nodes import SCALAR, Marks, Node, Position, adopt

Env = Mapping[str, Optional[str]]  # name -> value; None: set, but not known here; a name not in it is unset
MAX_ENV_BYTES = 1 << 20  # an env file is a few lines; a bigger file is none Compose users write
_KEY_CHARS = frozenset("_.-[]")
# dotenv/parser.go escapeSeqRegex `\\(?:[abcfnrtv$"\\]|0\d{0,3})`: `\'` and the rest stay as typed
_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "\\": "\\", '"': '"', "$": "$$", "a": "\a", "b": "\b", "f": "\f",
            "v": "\v"}


class EnvEntry:
    """One `KEY=value` of an env file: the value as Compose makes it (None: not known here), `node` the value
    as typed, at its place in the env file (a ForeignNode: findings on it name that file), `why` for None."""

    __slots__ = ("name", "value", "node", "why")

    def __init__(self, name: str, value: Optional[str], node: Node, why: Optional[str] = None) -> None:
        self.name, self.value, self.node, self.why = name, value, node, why


class EnvFile:
    """An env file read: its entries in order (a later one of a name wins), and the error Compose stops on
    (message, offset into the text), after which nothing is read."""

    __slots__ = ("path", "entries", "error", "spans")

    def __init__(self, path: str, entries: List[EnvEntry], error: Optional[Tuple[str, int]], spans) -> None:
        self.path, self.entries, self.error, self.spans = path, entries, error, spans

    def values(self) -> dict:
        return {e.name: e.value for e in self.entries}


def read_env_file(path: str, outer: Optional[Env] = None) -> Optional[EnvFile]:
    """The env file at `path`, or None when there is no such file (or it is no text file of a sane size)."""
    try:
        if not os.path.isfile(path) or os.path.getsize(path) > MAX_ENV_BYTES:
            return None
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    if b"\0" in data:
        return None
    # a BOM is dropped first (dotenv/godotenv.go parseWithLookup: `bytes.TrimPrefix(data, utf8BOM)`)
    return parse_env(data.decode("utf-8-sig", errors="replace"), path, outer)


def parse_env(text: str, path: str, outer: Optional[Env] = None) -> EnvFile:
    """`outer`: what Compose looks a name up in before the file's own keys (the project's for an `env_file`)."""
    from ctxlint.adapters.scalar_spans import ScalarSpans

    spans = ScalarSpans(path, text)
    entries: List[EnvEntry] = []
    known: dict = {}
    outer = outer or {}
    resolve = ChainMap(outer, known)  # dotenv/godotenv.go expandVariables: the lookup, then the file's keys

    i, n = 0, len(text)
    while True:
        while i < n and text[i].isspace():
            i += 1
        if i >= n:
            return EnvFile(path, entries, None, spans)
        if text[i] == "#":
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        if text.startswith("export", i) and i + 6 < n and text[i + 6] in " \t":
            i += 6
            while i < n and text[i] in " \t":
                i += 1
        start, stop = i, None
        while i < n:
            c = text[i]
            if c in "=:\n":
                stop = c
                break
            if not (c in " \t\r\f\v" or c.isalnum() or c in _KEY_CHARS):
                return EnvFile(path, entries, (f"unexpected character {c!r} in variable name", i), spans)
            i += 1
        key = text[start:i].rstrip()
        if " " in key or "\t" in key:
            return EnvFile(path, entries, ("key cannot contain a space", start), spans)
        if stop is None or stop == "\n":  # a bare key: the value of the shell that runs Compose
            value = outer.get(key)
            if key in outer:
                known[key] = value
            entries.append(EnvEntry(key, value, _node(spans, path, key, start, start + len(key), None, key),
                                    "is taken from the environment of the shell that runs Compose (not known here)"))
            i += 1
            continue
        i += 1
        while i < n and text[i] in " \t\r\f\v":
            i += 1
        if i < n and text[i] in "'\"":
            found = _quoted(text, i)
            if found is None:
                return EnvFile(path, entries, ("unterminated quoted value", i), spans)
            typed, after = found
            value = typed if text[i] == "'" else substitute(_unescape(typed), resolve)
            node = _node(spans, path, key, i, after, text[i], typed if value is None else value)
            i = after
        else:
            end = text.find("\n", i)
            end = n if end < 0 else end
            line = text[i:end]
            cut = line.find(" #")
            typed = (line if cut < 0 else line[:cut]).rstrip()
            value = substitute(typed, resolve)
            node = _node(spans, path, key, i, i + len(typed), None, typed if value is None else value)
            i = end
        known[key] = value
        entries.append(EnvEntry(key, value, node, None if value is not None else
                                "refers to a variable no env file sets"))


def _quoted(text: str, start: int) -> Optional[Tuple[str, int]]:
    """The quoted value's text between its quotes (an escaped quote as the quote, other escapes kept) and the
    index after the closing quote; None when it never closes."""
    quote, chars, escape = text[start], [], False
    for k in range(start + 1, len(text)):
        c = text[k]
        if c != quote:
            if not escape and c == "\\":
                escape = True
                continue
            if escape:
                escape = False
                chars.append("\\")
            chars.append(c)
            continue
        if escape:
            escape = False
            chars.append(c)
            continue
        return "".join(chars), k + 1
    return None


def _unescape(text: str) -> str:
    """A double-quoted value's escapes (dotenv/parser.go expandEscapes): `\\$` stays a literal `$` (as `$$`)."""
    if "\\" not in text:
        return text
    out, k = [], 0
    while k < len(text):
        c = text[k]
        if c == "\\" and k + 1 < len(text) and text[k + 1] in _ESCAPES:
            out.append(_ESCAPES[text[k + 1]])
            k += 2
            continue
        out.append(c)
        k += 1
    return "".join(out)


def substitute(text: str, env: Env) -> Optional[str]:
    """compose-go's template substitution (template/template.go) with the names `env` sets, the host's as
    unset; None when a value is not known here."""
    if "$" not in text:
        return text
    unknown = False

    def one(m) -> str:
        nonlocal unknown
        if m.group(0) == "$$":
            return "$"
        name, op, default = m.group(1) or m.group(4), m.group(2), m.group(3)
        if name in env and env.get(name) is None:  # set, to a value not known here
            unknown = True
            return ""
        value = env.get(name)
        if op in (":-", "-") and (value is None or op == ":-" and value == ""):
            if "$" in (default or ""):
                unknown = True
                return ""
            return default or ""
        if op in ("+", ":+"):  # the alternative when set (and not empty), else nothing
            return (default or "") if value is not None and (op == "+" or value != "") else ""
        if value is None or op == ":?" and value == "":  # unset: the host's (unknown), or Compose stops on `?`
            unknown = True
            return ""
        return value
    out = _REF.sub(one, text)
    return None if unknown else out


def _node(spans, path: str, key: str, start: int, end: int, style: Optional[str], value: str) -> Node:
    """The value as a scalar node of the env file (the decoded value, where ScalarSpans aligns it with the text)."""
    (sl, sc), (el, ec) = spans.position(start), spans.position(max(start, end - 1))
    node = Node(SCALAR, value, Marks(Position(start, sl - 1, sc - 1), Position(end, el - 1, ec),
                                                      style), f"{os.path.basename(path)}:{key}")
    return adopt(node, spans)
