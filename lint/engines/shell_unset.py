"""`unset NAME` and a function's `local NAME` (no value): the name holds nothing any more.

Checked with bash 5.2.15: `L=200000; unset L; echo "[${L:-8192}] [$L] [${L-u}]"` prints `[8192] [] [u]`;
`f() { :; }; unset -f f; type f` finds no `f`, and so does `unset f` when no variable `f` is set (bash manual,
`unset`: then the name is a function's); `A=(a b c); unset 'A[1]'` leaves `a c`; and in a function `local L` and
`declare L` (no `-g`) are a new, unset variable (`${L-unset}` is `unset`) until the function returns, the global
value back after it. dash 0.5.12 unsets as bash does, but its `local L` keeps the global value (`L=200000; f() {
local L; echo ${L:-8192}; }; f` prints 200000) and it has no `declare`: so a function's `local L` is unset only in a
script whose `#!` line names bash, and unknown (CTX008) in any other, never one shell's value guessed. dash's
`unset f` leaves a function `f` (bash's takes it): the function is dropped in any script, since a launch bash would
not run is worse than one dash would run and goes unread.

Such a name is dropped from the script's values and kept in `ctx.removed`, so that it is not asked of the resolver
(a Compose service's or a pod's environment, which `unset` takes away too): `${L:-8192}` and `${L-8192}` take their
default, and a bare `$L` (empty in bash) stays unknown here, never the old value. One unset inside a branch or loop
may not run: the name is unknown after it. Taking one element out of an array (`unset 'A[1]'`) makes the array
unknown, not guessed.
"""
from __future__ import annotations

from typing import Sequence

from .lex_quotes import NAME
from .tokens import Token


def removed(name: str, ctx, unsure: bool) -> None:
    """`name` is unset now (or, `unsure`, may be)."""
    local = ctx.local
    if unsure:
        local[name] = None
        ctx.unsure.add(name)
        return
    if name in local.forked:  # its branch values go, as for any assignment
        local[name] = None
    dict.pop(local, name, None)
    local.partial.pop(name, None)
    local.scoped.pop(name, None)
    ctx.unsure.discard(name)
    ctx.removed.add(name)


def unset(program: Sequence[Token], ctx, unsure: bool) -> None:
    """`unset [-v|-f] NAME...`: a variable (and its array), or with `-f` a function."""
    functions = False
    flags = "".join(t.text[1:] for t in program[1:] if t.text in ("-f", "-v", "-fv", "-vf"))
    if "f" in flags and "v" in flags:  # bash: "cannot simultaneously unset a function and a variable"
        if ctx.bash:
            return
        unsure = True  # dash unsets by the last of them: not worked out here
    for t in program[1:]:
        text = t.text
        if t.unresolved:
            continue
        if text in ("-f", "-v", "-fv", "-vf"):
            functions = text == "-f"
            continue
        if functions:
            if NAME.fullmatch(text):
                if unsure:
                    continue  # a function that may be gone: still read where called (as before)
                ctx.functions.pop(text, None)
            continue
        if NAME.fullmatch(text):
            if ctx.readonly and text in ctx.readonly:  # "cannot unset: readonly variable" (shell_readonly.py)
                from .shell_readonly import refused
                if refused(ctx, text):
                    continue
            if text in ctx.functions and text not in ctx.local and text not in ctx.arrays and not unsure:
                ctx.functions.pop(text)  # no variable of the script's by that name: the function goes
            removed(text, ctx, unsure)
            if text in ctx.arrays:  # no elements now (`"${A[@]}"` is no word), or in a branch not known
                ctx.arrays[text] = None if unsure else ([], False)
        elif "[" in text and NAME.fullmatch(text.split("[", 1)[0]):
            name = text.split("[", 1)[0]
            if name in ctx.arrays:
                ctx.arrays[name] = None  # one element gone: the rest not worked out here
            else:
                local = ctx.local
                local[name] = None
                ctx.unsure.add(name)
