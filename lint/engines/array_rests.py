"""What a loop (or a command after `&&`) appends to an array: flags whose values are not known.

    ARGS=(--max-model-len 4096)
    for x in "${EXTRA[@]}"; do ARGS+=(--max-model-len "$x"); done
    vllm serve m "${ARGS[@]}"

Such an append may run any number of times, so ctxlint cannot count its elements: the array keeps the elements
it held before and ends in an unknown rest (shellarrays.py). A flag the append types with a value
(`--max-model-len "$x"`, `--max-model-len=8192`) is then somewhere in that rest, and if it runs at all its last
value is what the engine gets: that flag's value is not known, where a rest read as words no flag is in
would let the value before the loop (or the engine's default) stand, a verdict the loop may change. Each such
flag is kept, followed by the rest itself as its value (`--max-model-len ${ARGS[@]}`, unknown: CTX008 at
the value the loop types). A lone switch (`--enforce-eager`) is left to the rest: whether it is given is not
known either way, but for a flag that ends the append (`A+=(--max-model-len $x)`, `A+=(--max-model-len);
A+=(4096)`, `S+=" --max-model-len"`): its value may be what comes next (bash 5.2: `A=(--max-model-len 200000);
for x in 4096; do A+=(--max-model-len $x); done` serves 4096), so it is kept with the rest as its value, where the
flag is typed (a flag no engine's table has with a value, `--enforce-eager`, `--foo`, is not). An unquoted
element with an unknown part may be any words: nothing after it is read.
"""
from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Callable

from .lex_words import Word
from .tokens import Token, VarRef

if TYPE_CHECKING:
    from .word_expansion import SplitContext

REST = "rest"  # VarRef.why of a loop-appended flag's value


def unknown_values(given: list[Word], name: str, ctx: "SplitContext",
                   expand: Callable[[Word, "SplitContext"], list[Token]]) -> list[Token]:
    """The flags `given` (the elements an append in a loop types) sets, each followed by an unknown value."""
    tokens: list[Token] = []
    for element in given:
        expanded = expand(element, ctx)
        if not element.had_quotes and any(t.unresolved for t in expanded):
            break  # `ARGS+=($EXTRA)`: any words, flags or not, from here on
        tokens.extend(expanded)
    return valued_flags(tokens, name + "[@]")


def valued_flags(tokens: list[Token], name: str) -> list[Token]:
    """Each flag among `tokens` that has a value, followed by `${name}` (unknown) as its value: `${name}` is the
    array's rest (`A[@]`), or the scalar a loop appends to (command_strings._appended)."""
    out: list[Token] = []
    k = 0
    while k < len(tokens):
        token = tokens[k]
        text = token.text
        k += 1
        if not text.startswith("-") or _number(text):
            continue
        eq = text.find("=")
        named = token.unresolved if eq < 0 else tuple(  # an unknown in the flag's own name: not read
            r for r in token.unresolved if token.starts and r.start < token.ends[eq - 1] and r.end > token.starts[0])
        if named:
            continue
        if text.startswith("--") and eq > 2:  # `--max-model-len=8192`, `--max-model-len=$x`
            at = token.span_of(eq + 1, len(text))
            rest = _rest(name, at, token.item)
            out.append(Token(text[:eq + 1] + rest.text, token.start, token.end,
                             token.starts[:eq + 1] + rest.starts, token.ends[:eq + 1] + rest.ends, rest.refs,
                             token.item))
        elif k < len(tokens) and (not tokens[k].text.startswith("-") or _number(tokens[k].text)):
            value = tokens[k]
            k += 1
            out.extend((token, _rest(name, (value.start, value.end), value.item)))
        elif k == len(tokens) and text in _valued():  # the append's last word: its value
            out.extend((token, _rest(name, (token.start, token.end), token.item)))  # may be what comes next
    return out


@lru_cache(maxsize=1)
def _valued() -> frozenset:
    """The spellings some engine's flag table has with a value: one ending an append takes what comes next. A
    switch there (`--enforce-eager`) is whole, and an unknown flag is left to the rest, as before."""
    from .specs import ENGINES, spec_for

    return frozenset(s for engine in ENGINES for f in spec_for(engine).flags if f.takes != "none" for s in f.spellings)


def _rest(name: str, at: tuple[int, int], item) -> Token:
    text = "${" + name + "}"
    return Token(text, at[0], at[1], (at[0],) * len(text), (at[1],) * len(text),
                 (VarRef(name, "shell", at[0], at[1], None, None, item, REST if "[" in name else "set"),), item)


def _number(text: str) -> bool:
    """`-1`, `-0.5`: a negative number is a value, not a flag."""
    return text[1:].replace(".", "", 1).isdigit()
