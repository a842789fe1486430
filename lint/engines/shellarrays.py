"""Bash arrays in a launcher script: flags kept in an array, then passed whole.

    SERVER_ARGS=(
      --context-length 8192
      --mem-fraction-static 0.85
    )
    python3 -m sglang.launch_server --model-path m "${SERVER_ARGS[@]}"

An array assigned outside any branch or loop is read as bash reads it: `"${A[@]}"` gives its elements
as words, `"${A[*]}"` one word of them joined by blanks, `${A[1]}` one element, `$A` the first; each
element keeps the positions where it is typed, and an element ctxlint does not know (`"$MODEL"`) stays
that unresolved reference. `A+=(...)` appends; one inside a branch or loop (`[[ -n $Q ]] && A+=(...)`)
leaves the elements before it known and what follows unknown: `"${A[@]}"` then ends in the reference
itself, an unknown word that may hold flags, as `"$@"` is. An array set inside a branch or loop, or
changed element by element (`A[2]=x`), is unknown as a whole. An unknown expansion is an unresolved
reference (CTX008), never an empty word list.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Optional

from ctxlint.lazyre import lazy_compile

from .lexer import Word
from .tokens import Token

if TYPE_CHECKING:
    from .word_expansion import SplitContext

_INDEX = lazy_compile(r"-?[0-9]+")
_KEYED = lazy_compile(r"\[[^\]]*\]\+?=")  # `[0]=x` inside `( ... )`
_ELEMENT_SET = lazy_compile(r"([A-Za-z_][A-Za-z0-9_]*)\[[^\]]*\]\+?=")  # `A[2]=x`: the array changes


def assign(words: list[Word], ctx: "SplitContext", unsure: bool,
           expand: Callable[[Word, "SplitContext"], list[Token]]) -> None:
    """Record the arrays a command's `NAME=( ... )` / `NAME+=( ... )` words assign."""
    for word in words:
        if word.array is None:
            continue
        text = "".join(run[0] for part in word.parts for run in part.runs)
        name, append = text.rstrip("=").rstrip("+"), text.endswith("+=")
        known = ctx.arrays.get(name)
        if append and name in ctx.arrays and known is None:
            continue  # unknown stays unknown
        if unsure and not (append and known is not None):
            ctx.arrays[name] = None  # set (or not) in a branch: nothing of it is known
            ctx.local[name] = None
            ctx.unsure.add(name)
            continue
        if unsure:  # appended in a branch: what was there stays, what follows may be anything
            ctx.arrays[name] = (known[0], True)  # type: ignore[index]
            continue
        elements, cut = [], False
        for element in word.array:
            if _KEYED.match("".join(run[0] for part in element.parts for run in part.runs)):
                cut = None  # `([0]=--max-model-len [1]=131072)`: keyed elements, not read
                break
            tokens = expand(element, ctx)
            if not element.had_quotes and any(t.unresolved for t in tokens):
                cut = True  # an unquoted unknown is zero or more words: where later elements are is not known
                break
            elements.extend(tokens)
        if cut is None:
            ctx.arrays[name], ctx.local[name] = None, None
            continue
        if cut:
            if append and known is not None and known[1]:  # already ends in an unknown rest: these are in it
                known_part = known[0]
            else:
                known_part = (known[0] if append and known is not None else []) + elements
            ctx.arrays[name] = (known_part, True)
            ctx.local[name] = known_part[0].text if known_part and not known_part[0].unresolved else None
            continue
        if append and known is not None:  # after unknown elements, these are somewhere in the unknown rest
            elements, more = (known[0], True) if known[1] else (known[0] + elements, False)
        else:
            more = False
        ctx.arrays[name] = (elements, more)
        ctx.local[name] = elements[0].text if elements and not elements[0].unresolved else \
            None if elements else ("" if not more else None)


def changed(program: list[Token], ctx: "SplitContext") -> None:
    """`A[2]=x` (a command of its own to the splitter): what A holds is no longer known."""
    for token in program[:1]:
        found = _ELEMENT_SET.match(token.text)
        if found is not None and found.group(1) in ctx.arrays:
            ctx.arrays[found.group(1)] = None
            ctx.local[found.group(1)] = None


def lookup(name: str, ctx: "SplitContext") -> Optional[tuple[list[Token], bool, bool]]:
    """(the elements `${NAME[...]}` expands to, whether `[*]` joins them, whether unknown elements follow),
    or None when nothing of it is known."""
    base, _, subscript = name.partition("[")
    array = ctx.arrays.get(base)
    subscript = subscript[:-1]
    if array is None:
        return None
    elements, more = array
    if subscript in ("@", "*"):
        return elements, subscript == "*", more
    if not _INDEX.fullmatch(subscript):
        return None  # `${A[$i]}`, `${A[i+1]}`: an index ctxlint does not compute
    index = int(subscript)
    if not (0 <= index < len(elements) or (not more and -len(elements) <= index < 0)):
        return None  # no such element (empty, or a default the shell would take), or one not known
    return [elements[index]], False, False
