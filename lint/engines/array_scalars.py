"""A scalar assignment to an array, and `declare -a NAME`:

    declare -a SERVER_ARGS
    SERVER_ARGS+=" --max-model-len 8192"
    vllm serve m ${SERVER_ARGS[@]}

bash assigns `NAME=value` (and appends `NAME+=value`) to an array's element 0, the others kept (bash manual,
Arrays: "When assigning to an indexed array, if name is subscripted by a negative number..."; "Referencing an
array variable without a subscript is equivalent to referencing it with a subscript of 0"; Shell Parameters:
`+=` "appended to the variable's value"), and `declare -a NAME` of a name not set makes it an empty array, of a
scalar an array whose element 0 is that value. Checked with bash 5.2.15: `declare -a A; A+=" --x 1"` gives one
element ` --x 1`; `B=(a b); B+=" --z"` gives `a --z` and `b`. Before, the array kept its old elements, and
`${A[@]}` of the name `declare -a` made was unknown (the engine's default then checked, a false CTX201).
In a function, `local -a NAME` (and `declare -a NAME` without `-g`) is a new array, empty or of its value, never
the global one; `local NAME` of an array's name is a scalar. An assignment that may not run (a loop, after `&&`, a
branch) leaves the array unknown.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from .command_prefixes import ASSIGN
from .lex_words import Word
from .tokens import Token

if TYPE_CHECKING:
    from .word_expansion import SplitContext

_DECLARES = frozenset({"declare", "typeset", "local"})
_KEYWORDS = frozenset({"then", "do", "else", "{", "!", "time"})


def scalar_sets(words: list[Word], ctx: "SplitContext", unsure: bool) -> None:
    """Follow a command of only assignments (or a `declare`) for the arrays its scalar assignments change."""
    texts = [_text(w) for w in words]
    k = 0
    while k < len(texts) and texts[k] in _KEYWORDS:
        k += 1
    declares = k < len(texts) and texts[k] in _DECLARES
    arrayish = declares and any(t is not None and t.startswith("-") and "a" in t[1:] for t in texts[k + 1:])
    fresh = declares and bool(ctx.frames) and (texts[k] == "local" or not any(  # a new local in a function
        t is not None and t.startswith("-") and "g" in t[1:] for t in texts[k + 1:]))
    for word, text in zip(words[k + declares:], texts[k + declares:]):
        if text is None or word.array is not None or text.startswith("-"):
            continue
        name = text.split("=", 1)[0].rstrip("+")
        if fresh and name.isidentifier():
            _local(name, "=" in text, arrayish, ctx, unsure)
            continue
        if "=" in text and (declares or ASSIGN.match(text)):
            if name in ctx.arrays:
                _element0(name, ctx, unsure)
        elif arrayish and name not in ctx.arrays and name.isidentifier():  # `declare -a NAME`
            if unsure:
                continue
            value = ctx.local.get(name) if name in ctx.local else ""
            element = _value(name, ctx) if value else None
            ctx.arrays[name] = ([], False) if value == "" else None if element is None else ([element], False)
            if value == "":
                ctx.local[name] = ""  # `$A` of an empty array: element 0, unset, is empty
        elif not declares:
            return  # a command's program: nothing after it assigns


def _local(name: str, valued: bool, arrayish: bool, ctx: "SplitContext", unsure: bool) -> None:
    """`local -a NAME[=value]` (or `declare` without `-g`) in a function: a new array, empty or of its value,
    whatever a global NAME holds (bash 5.2: `A=(a b); f() { local -a A; A+=" --x"; echo ${A[@]}; }; f` prints
    `--x`); `local NAME` of an array's name a scalar, no array."""
    if not arrayish:
        ctx.arrays.pop(name, None)
        return
    element = _value(name, ctx) if valued else None
    ctx.arrays[name] = None if unsure or (valued and element is None) else ([element], False) if valued \
        else ([], False)
    if not valued and not unsure:
        ctx.local[name] = ""


def _element0(name: str, ctx: "SplitContext", unsure: bool) -> None:
    known = ctx.arrays[name]
    value = ctx.local.get(name)
    new = None
    if not unsure and isinstance(known, tuple) and value is not None:
        elements, more = known
        element = _value(name, ctx)
        if element is not None and elements and not any(r.why == "rest" for r in elements[0].refs):
            new = ([element] + elements[1:], more)
        elif element is not None and not elements and not more:
            new = ([element], False)
    ctx.arrays[name] = new


def _value(name: str, ctx: "SplitContext") -> Optional[Token]:
    """The scalar value the name's last assignment types, where it types it (None when that is not known)."""
    token: Optional[Token] = ctx.local.tokens.get(name)
    value = ctx.local.get(name) or ""
    if token is None or "=" not in token.text or token.text.split("=", 1)[1] != value:
        return None
    cut = token.text.index("=") + 1
    return Token(value, token.starts[cut] if value else token.end, token.end, token.starts[cut:], token.ends[cut:],
                 token.refs, token.item)


def _text(word: Word) -> Optional[str]:
    """The word's leading literal text (up to its first expansion), or None when it starts with one."""
    first = word.parts[0] if word.parts else None
    return "".join(run[0] for run in first.runs) if first is not None and first.kind == "lit" else None
