"""`readonly NAME[=value]` (and `declare -r`, `typeset -r`): the name keeps its value for the rest of the script.

Bash's manual (Bourne Shell Builtins, `readonly`, gnu.org/software/bash/manual/html_node/Bourne-Shell-Builtins.html):
"The given names are marked readonly; the values of these names may not be changed by subsequent assignment or
unset"; and `unset` (same page): "Readonly variables and functions may not be unset". Checked with bash 5.2.15:
`readonly L=4096` then `unset L` ("cannot unset: readonly variable"), `L=200000`, `export L=7`, `declare L=8`,
`L+=1` and a function's `local L=9` each fail ("L: readonly variable") and `$L` stays 4096 after each; so does
`declare -r M=1; M=2`. So a later launch that reads `$L` gets 4096, not the value the failed assignment typed.

dash 0.5.12 ("L: is read only") and bash in POSIX mode instead exit the script at the failed assignment or
`unset`, so no later command runs: the value is kept only in a script whose `#!` line names bash (shell_unset.py's
rule for `local`), and is unknown (CTX008) in any other, never one shell's reading guessed. A name made readonly
inside a branch or loop may be readonly or not: an assignment to it later leaves it unknown. Not modelled: bash
also drops the rest of the line a failed plain assignment is on (`L=200000; vllm serve ...` on one line starts
nothing; in a function or a compound command, the rest of it: bash 5.2.15 runs no command after a failed `L=7`
in `f() { ...; L=7; vllm serve ...; }`); `declare -r` in a function (without `-g`) is a local, never marked here.
A `readonly` of a function's local ends with it (shellfuncs.saved keeps whether a name was readonly).
Apart from shellwords.py and shell_unset.py, which ask only once a name is readonly.
"""
from __future__ import annotations

from typing import Sequence

from .lex_quotes import NAME
from .tokens import Token


def mark(program: Sequence[Token], ctx, unsure: bool) -> None:
    """`readonly [-a|-A] NAME[=value]...`, `declare -r ...`, `typeset -r ...`: their names are readonly now (or,
    `unsure`, may be). `readonly -f` (functions) and `-p` (a listing) mark no variable."""
    word = program[0].text
    options = "".join(t.text[1:] for t in program[1:] if t.text[:1] == "-" and t.text[1:].isalpha())
    if word != "readonly" and ("r" not in options or ctx.frames and "g" not in options):
        return  # a plain declare, or one in a function: a local of its own, gone at return
    if "f" in options or "p" in options:
        return
    readonly = ctx.readonly
    for t in program[1:]:
        name = t.text.split("=", 1)[0].rstrip("+")
        if t.text[:1] in "-+" or t.unresolved or not NAME.fullmatch(name):
            continue
        readonly[name] = True if not unsure else readonly.get(name) or False


def refused(ctx, name: str) -> bool:
    """Does an assignment to (or `unset` of) `name` fail as readonly? Then bash keeps its value, and the caller
    leaves it be; any other shell stops the script there, and a name that may be readonly may change or not:
    its value is made unknown here."""
    state = ctx.readonly.get(name)
    if state is None:
        return False
    if state is not True or not ctx.bash:
        from .shell_unset import removed

        removed(name, ctx, True)  # not known: that is what an unsure unset records
    return True


def kept_words(program: Sequence[Token], ctx) -> list[Token]:
    """`export`/`readonly`/`declare`/`local`/`typeset` without the words that fail on a readonly name: an
    assignment (`export L=7`), and any name a function's `local` (or `declare`) would make a local of its own."""
    word = program[0].text
    fresh = word == "local" or ctx.frames and word in ("declare", "typeset")
    out = [program[0]]
    for t in program[1:]:
        name = t.text.split("=", 1)[0].rstrip("+")
        if ("=" in t.text or fresh and t.text[:1] not in "-+") and name in ctx.readonly and refused(ctx, name):
            continue
        out.append(t)
    return out
