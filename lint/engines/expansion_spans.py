"""Where a value kept as typed holds shell expansions: `${X:-/a/b}`, `$(cmd "a)")`, `$((N*2))`, `` `cmd` ``, `$X`,
`$1`. A script another runs is located at the caller's script word (engines/script_calls.py), so the places of its
characters say nothing of which are typed; the text does (command_strings._partial, model_folder.typed_folder).
An expansion runs to its own closing `)`, `))` or `}`: one nested in it, or a `)` in its quotes
(`$(python -c 'print("/models/NAME")')`), is inside it; a text it never closes is an expansion to its end."""
from __future__ import annotations

_NAME_START = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_"
_NAME = _NAME_START + "0123456789"
_SPECIAL = "0123456789@*#?$!-"


def _closing(text: str, i: int, close: str) -> int:
    """The index after the `close` that ends the expansion whose body starts at i (nesting and quotes kept), or
    len(text) when none does."""
    opening = "(" if close == ")" else "{"
    depth, n = 1, len(text)
    while i < n:
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "'":
            end = text.find("'", i + 1)
            i = n if end < 0 else end + 1
            continue
        if ch == '"':
            i += 1
            while i < n and text[i] != '"':
                if text[i] == "\\":
                    i += 1
                elif text[i] == "$" and i + 1 < n and text[i + 1] in "({":
                    i = _closing(text, i + 2, ")" if text[i + 1] == "(" else "}") - 1
                i += 1
            i += 1
            continue
        if ch == "`":
            end = text.find("`", i + 1)
            i = n if end < 0 else end + 1
            continue
        if ch == "$" and i + 1 < n and text[i + 1] in "({":
            i = _closing(text, i + 2, ")" if text[i + 1] == "(" else "}")
            continue
        if ch == opening:
            depth += 1
        elif ch == close:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return n


def expansion_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each expansion in `text`, in order."""
    spans: list[tuple[int, int]] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "`":
            end = text.find("`", i + 1)
            end = n if end < 0 else end + 1
            spans.append((i, end))
            i = end
            continue
        if ch == "$" and i + 1 < n:
            nxt = text[i + 1]
            if nxt in "({":
                end = _closing(text, i + 2, ")" if nxt == "(" else "}")
            elif nxt in _NAME_START:
                end = i + 2
                while end < n and text[end] in _NAME:
                    end += 1
            elif nxt in _SPECIAL:
                end = i + 2
            else:
                i += 1
                continue
            spans.append((i, end))
            i = end
            continue
        i += 1
    return spans


def outside(text: str) -> str:
    """`text` without its expansions: what it types itself."""
    out, at = [], 0
    for start, end in expansion_spans(text):
        out.append(text[at:start])
        at = end
    out.append(text[at:])
    return "".join(out)


def after_last(text: str) -> str:
    """The text after its last expansion (all of it when it holds none)."""
    spans = expansion_spans(text)
    return text[spans[-1][1]:] if spans else text
