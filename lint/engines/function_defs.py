"""Shell function definitions in a script's lexed items (shellfuncs.py reads each call): `name () { ...; }`,
`name () ( ... )` and `function name [()] ...` where a command starts, each made one Defined holding its body's
items. A definition whose body bash would not read (`f() vllm ...`), or that never ends, is left as words.
"""
from __future__ import annotations

from typing import Optional

from ctxlint.lazyre import lazy_compile

from .lex_words import Op, Word

_NAME = lazy_compile(r"[A-Za-z_][A-Za-z0-9_.:-]*")
_STARTS = frozenset({";", "&", "&&", "||", "|", "|&", ";;", "(", ")"})  # operators after which a command starts
_KEYWORDS = frozenset({"then", "do", "else", "elif", "if", "while", "until", "!", "{", "time"})


class Defined:
    """`name() { body }`: the body's items (lexed with the script), or for a function of a sourced file its
    text, lexed at each call so that everything in it sits at the call's name."""

    __slots__ = ("name", "items", "text", "span")

    def __init__(self, name: str, items: list, text: Optional[str] = None, span: tuple[int, int] = (0, 0)) -> None:
        self.name, self.items, self.text = name, items, text
        self.span = span  # of the body in the lexed text: after its `{` to its `}`, or its `( ... )` whole


def _literal(item: object) -> str:
    if type(item) is not Word or not all(p.kind == "lit" and not p.quoted for p in item.parts):
        return ""
    return "".join(run[0] for p in item.parts for run in p.runs)


def collapse(items: list) -> list:
    """The items with each function definition that starts a command replaced by one Defined."""
    out: list = []
    k, start = 0, True
    while k < len(items):
        found = _definition(items, k) if start else None
        if found is not None:
            out.append(found[0])
            k, start = found[1], True
            continue
        item = items[k]
        out.append(item)
        # a here-document body, read after its line's commands (`bash <<EOT`), leaves a command's start as it was
        if type(item).__name__ != "HereBody" and not (type(item) is Op and item.text == "redir:body"):
            start = item.text in _STARTS if type(item) is Op else (start and _literal(item) in _KEYWORDS)
        k += 1
    return out


def _definition(items: list, k: int) -> Optional[tuple[Defined, int]]:
    """(the definition starting at items[k], the index after it), or None."""
    word = _literal(items[k])
    j = k + 1
    if word == "function":
        name = _literal(items[j]) if j < len(items) else ""
        j += 1
        if j + 1 < len(items) and _op(items[j], "(") and _op(items[j + 1], ")"):
            j += 2
    elif j + 1 < len(items) and _op(items[j], "(") and _op(items[j + 1], ")"):
        name, j = word, j + 2
    else:
        return None
    if not _NAME.fullmatch(name):
        return None
    while j < len(items) and _op(items[j], ";"):  # `f()` and `{` on lines of their own
        j += 1
    if j >= len(items):
        return None
    opener = items[j]
    end = _closing_brace(items, j) if _literal(opener) == "{" else _closing_paren(items, j) if _op(opener, "(") \
        else None
    if end is None:
        return None  # not a body bash reads (`f() vllm ...`), or one that never ends: not a definition here
    # `f() ( ... )`: the body is a subshell, its `(` and `)` kept so that what it assigns is lost at each return
    if _op(opener, "("):
        return Defined(name, items[j:end + 1], span=(_edge(opener, 0), _edge(items[end], 1))), end + 1
    return Defined(name, items[j + 1:end], span=(_edge(opener, 1), _edge(items[end], 0))), end + 1


def _edge(item, side: int) -> int:
    return item.src_span[side] if type(item) is Word else (item.start, item.end)[side]


def _op(item: object, text: str) -> bool:
    return type(item) is Op and item.text == text


def _closing_brace(items: list, j: int) -> Optional[int]:
    """Index of the `}` that closes the `{` at items[j] (braces count where a command starts)."""
    depth, start = 0, True
    for k in range(j, len(items)):
        item = items[k]
        if type(item) is Op:
            start = item.text in _STARTS
            continue
        word = _literal(item) if start else ""
        if word == "{":
            depth += 1
        elif word == "}":
            depth -= 1
            if depth == 0:
                return k
        start = start and word in _KEYWORDS
    return None


def _closing_paren(items: list, j: int) -> Optional[int]:
    depth = 0
    for k in range(j, len(items)):
        if _op(items[k], "("):
            depth += 1
        elif _op(items[k], ")"):
            depth -= 1
            if depth == 0:
                return k
    return None
