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
itself, an unknown word that may hold flags, as `"$@"` is, after each flag that append types with a value, its
value unknown (array_rests.py). An array set inside a branch or loop, or
changed element by element (`A[2]=x`), is unknown as a whole. An unknown expansion is an unresolved
reference (CTX008), never an empty word list.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Optional

from ctxlint.lazyre import lazy_compile

from .lex_words import Word
from .tokens import Token

if TYPE_CHECKING:
    from .word_expansion import SplitContext

_INDEX = lazy_compile(r"-?[0-9]+")
_KEYED = lazy_compile(r"\[[^\]]*\]\+?=")  # `[0]=x` inside `( ... )`
_ELEMENT_SET = lazy_compile(r"([A-Za-z_][A-Za-z0-9_]*)\[[^\]]*\]\+?=")  # `A[2]=x`: the array changes


def assign(words: list[Word], ctx: "SplitContext", unsure: bool,
           expand: Callable[[Word, "SplitContext"], list[Token]]) -> None:
    """Record the arrays a command's `NAME=( ... )` / `NAME+=( ... )` words assign."""
    if words and (ctx.arrays or words[0].array is None):  # `A=x` of an array, `declare -a A` (array_scalars.py)
        from .array_scalars import scalar_sets
        scalar_sets(words, ctx, unsure)
    for word in words:
        if word.array is None:
            continue
        text = "".join(run[0] for part in word.parts for run in part.runs)
        name, append = text.rstrip("=").rstrip("+"), text.endswith("+=")
        given = word.array
        if not append and given and name in ctx.arrays and _whole(given[0], name):
            append, given = True, given[1:]  # `A=("${A[@]}" --flag x)` is `A+=(--flag x)`, in a loop too
        known = ctx.arrays.get(name)
        if append and name in ctx.arrays and known is None:
            continue  # unknown stays unknown
        # set in an `if` branch (not in a loop, not after `&&`): known for the rest of that branch, one of the
        # values the array may hold after the `fi` (array_branches.py)
        maybe = unsure and not _in_branch(name, append, ctx)
        if maybe and not (append and known is not None):
            _remap(name, ctx, lambda _: None)
            ctx.arrays[name] = None  # set (or not) in a loop or after `&&`: nothing of it is known
            ctx.local[name] = None
            ctx.unsure.add(name)
            continue
        elements: list[Token] = []
        cut: Optional[bool] = False
        for element in given if not maybe else ():
            if _KEYED.match("".join(run[0] for part in element.parts for run in part.runs)):
                cut = None  # `([0]=--max-model-len [1]=131072)`: keyed elements, not read
                break
            tokens = expand(element, ctx)
            if not element.had_quotes and any(t.unresolved for t in tokens):
                cut = True  # an unquoted unknown is zero or more words: where later elements are is not known
                break
            elements.extend(tokens)
        if maybe:  # what a loop or `&&` may append: the values of the flags it types are not known
            from .array_rests import unknown_values
            elements = unknown_values(given, name, ctx, expand)
        options = known.options if isinstance(known, Alternatives) else (known,)
        appending = append and name in ctx.arrays  # `A+=(...)` of an array never set sets it
        values = [_combined(option, appending, maybe, elements, cut) for option in options]
        _remap(name, ctx, lambda option: _combined(option, appending, maybe, elements, cut))  # type: ignore[arg-type]
        ctx.arrays[name] = values[0] if len(values) == 1 else Alternatives(values)
        firsts = {first_element(value) for value in values}
        ctx.local[name] = firsts.pop() if len(firsts) == 1 else None


Array = Optional[tuple[list[Token], bool]]  # (elements, whether unknown ones may follow), None when not known


class Alternatives:
    """The values an array may hold where a branch decided which (`if ...; then CMD=(a); else CMD=(b); fi`):
    `"${CMD[@]}"` is then each of them in turn (array_branches.forks), anything else of it unknown."""

    __slots__ = ("options",)

    def __init__(self, options: list[Array]) -> None:
        self.options = tuple(options)


def _combined(known: Array, append: bool, maybe: bool, elements: list[Token], cut: Optional[bool]) -> Array:
    """What the array holds after one assignment, from what it held (`known`)."""
    if append and known is None:
        return None
    if maybe:  # appended in a loop or after `&&`: what was there stays, the flags typed there with values not
        return (known[0] + elements, True)  # type: ignore[index]  # known (array_rests.py), what follows anything
    if cut is None:
        return None
    if append and known is not None:  # after unknown elements, these are somewhere in the unknown rest
        return (known[0], True) if known[1] else (known[0] + elements, bool(cut))
    return (elements, bool(cut))


def _whole(element: Word, name: str) -> bool:
    """Is an element `"${NAME[@]}"`, all of the array NAME, alone?"""
    return len(element.parts) == 1 and element.parts[0].kind == "var" and element.parts[0].quoted \
        and element.parts[0].name == name + "[@]" and element.parts[0].style == "shell"


def first_element(value: Array) -> Optional[str]:
    """`$A`: the first element, when it is known."""
    if value is None:
        return None
    elements, more = value
    return elements[0].text if elements and not elements[0].unresolved else None if elements else \
        ("" if not more else None)


def _in_branch(name: str, append: bool, ctx: "SplitContext") -> bool:
    """Is an assignment made now inside an `if` branch only, and so known for the rest of it
    (array_branches.py records it there)? Not `A+=(...)` of an array the branch has not set itself: that
    one keeps what came before and ends in an unknown rest, as one after `&&` does (many optional flags
    would otherwise make as many values)."""
    if not ctx.array_ifs or ctx.conditional or ctx.local.branches.where() is None:
        return False
    frame = ctx.array_ifs[-1]
    if append and (frame is None or name not in frame.current):
        return False
    from .array_branches import record  # only an array set inside an `if` pays for it

    record(name, ctx)
    return True


def forking(ctx: "SplitContext") -> bool:
    """Does an array hold several values (a command expanding it is read once per value)?"""
    return any(isinstance(value, Alternatives) for value in ctx.arrays.values())


def branch_step(first: str, ctx: "SplitContext") -> None:
    """Follow `if`/`elif`/`else`/`fi` (a command's first word) for arrays set in branches: an `if` that sets
    none costs a list entry."""
    if first == "if":
        ctx.array_ifs.append(None)
    elif first in ("elif", "else", "fi") and ctx.array_ifs:
        if ctx.array_ifs[-1] is None:
            if first == "fi":
                ctx.array_ifs.pop()
            return
        from .array_branches import step

        step(first, ctx)


def changed(program: list[Token], ctx: "SplitContext") -> None:
    """`A[2]=x` (a command of its own to the splitter): what A holds is no longer known."""
    for token in program[:1]:
        found = _ELEMENT_SET.match(token.text)
        if found is not None and found.group(1) in ctx.arrays:
            _remap(found.group(1), ctx, lambda _: None)
            ctx.arrays[found.group(1)] = None
            ctx.local[found.group(1)] = None


def _remap(name: str, ctx: "SplitContext", change: Callable[[Array], Array]) -> None:
    """The same change in each branch's value of the array, when an `if` left several (scalar_branches.Fork)."""
    if ctx.local.forks:
        from .scalar_branches import remap
        remap(name, ctx.local, change)  # type: ignore[arg-type]


def lookup(name: str, ctx: "SplitContext") -> Optional[tuple[list[Token], bool, bool]]:
    """(the elements `${NAME[...]}` expands to, whether `[*]` joins them, whether unknown elements follow),
    or None when nothing of it is known."""
    base, _, subscript = name.partition("[")
    array = ctx.arrays.get(base)
    subscript = subscript[:-1] if subscript else "0"  # `$A`: element 0 (bash manual, Arrays)
    if array is None or isinstance(array, Alternatives):
        return None
    elements, more = array
    if subscript in ("@", "*"):
        return elements, subscript == "*", more
    if not _INDEX.fullmatch(subscript):
        return None  # `${A[$i]}`, `${A[i+1]}`: an index ctxlint does not compute
    index = int(subscript)
    if more and any(r.why == "rest" for element in elements[:index + 1] for r in element.refs):
        return None  # at or past what a loop appended (array_rests.py): which element it is is not known
    if not (0 <= index < len(elements) or (not more and -len(elements) <= index < 0)):
        return None  # no such element (empty, or a default the shell would take), or one not known
    return [elements[index]], False, False
