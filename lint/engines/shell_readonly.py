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
`declare -r` in a function (without `-g`) is a local, never marked here; a failed assignment that may not run (in a
branch, a loop, after `&&`) discards nothing.

A failed plain assignment (not a command's `L=7 cmd` prefix, nor `export`/`declare`, which only fail themselves)
also makes bash drop the rest of the script's top-level command it is in (bash 5.2.15, non-interactive, checked
here; `bash -c` alike): the rest of its line (`L=200000; TP=8; vllm serve ...` assigns and starts nothing after
the failure, `x=1 L=2 y=3` leaves y unset), the rest of a function it is in and of the line that called it, and
the rest of an `if`, loop or `{ }` around it, to the `fi`/`done`/`}` and past it on that line; the next line
runs. A subshell's ends at its `)`. So those commands are not read (discard, discard_ends), and a value they
would assign keeps the one before.
A failed assignment that may not run (after `&&`/`||`, in a branch, a loop or an `if` condition) drops the rest of
that top-level command when it does run: `true && X=2; L=6`, `for i in 1; do X=2; done; L=6` and `case x in x)
X=2;; esac; L=6` leave L as it was (bash 5.2.15, checked), or set it when it does not run; so what the rest assigns
is unknown (MAY_DISCARD), never the value typed. The top-level command also runs on past the line breaks of a
`{ }` around the failure: `{` / `X=2` / `L=5` / `}; L=6` assigns neither L (checked). An array element of a
readonly name, `X[0]=2`, fails as `X=2` does ("X: readonly variable", checked).
A `readonly` of a function's local ends with it (shellfuncs.saved keeps whether a name was readonly).
Apart from shellwords.py and shell_unset.py, which ask only once a name is readonly.
"""
from __future__ import annotations

import re
from typing import Sequence

from ctxlint.lazyre import lazy_compile

from .lex_quotes import NAME
from .tokens import Token


_ELEMENT = lazy_compile(r"([A-Za-z_][A-Za-z0-9_]*)\[[^\]]*\]\+?=.*", re.S)  # `X[0]=2`


class _MayDiscard:
    """ctx.discard after a failed assignment that may not have run: false, so the commands after it are read (they
    may run), each as one that may not (its assignments unknown), until the top-level command ends."""

    __slots__ = ()

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return "MAY_DISCARD"


MAY_DISCARD = _MayDiscard()


def failed(ctx, unsure: bool) -> None:
    """A plain assignment to a name bash holds readonly failed (in bash: the caller checked): drop the rest of the
    top-level command, or, when the assignment may not run, make what it assigns unknown."""
    if not unsure:
        ctx.discard = True
    elif ctx.discard is False:
        ctx.discard = MAY_DISCARD


def element_refused(token: Token, ctx, unsure: bool) -> bool:
    """`X[0]=2` as a command of its own, X readonly: nothing is assigned, and bash drops the rest as for `X=2`."""
    found = _ELEMENT.fullmatch(token.text)
    if found is None or found.group(1) not in ctx.readonly or not refused(ctx, found.group(1)):
        return False
    if ctx.bash and ctx.readonly.get(found.group(1)) is True:
        failed(ctx, unsure)
    return True


def discard_step(ctx, groups: list, index: int, depth: int, conditional):
    """At group `index` after a failed assignment: whether it ends (ctx.discard back to False), and the group's
    `conditional` (True, may not run, after one that may not have run: MAY_DISCARD)."""
    if discard_ends(ctx, groups, index, depth):
        ctx.discard = False
    elif ctx.discard is MAY_DISCARD and conditional is not None:
        return True
    return conditional


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


def discard_ends(ctx, groups: list, index: int, depth: int) -> bool:
    """Does group `index` of the script's top level start the next top-level command after a failed assignment
    (above)? When it is on a later line than the group before it, outside any `if`, loop or function, and not
    after `&&`/`||` (`a &&` then a line break goes on); only at the top level (`depth` 0) of a text whose positions
    index it (not a Compose-interpolated one)."""
    words, conditional = groups[index]
    if depth or ctx.source is None or ctx.flow or ctx.frames or conditional or not isinstance(words, list) or not words:
        return False
    before = next((g[0] for g in reversed(groups[:index]) if isinstance(g[0], list) and g[0]), None)
    if before is None:
        return False
    between = ctx.source[before[-1].src_span[1]:words[0].src_span[0]].replace("\\\n", "")
    if "\n" not in between:
        return False
    # inside a `{ }` (or `if`, loop, `case`) opened on an earlier line, or at its `}`: still the same command
    cached = getattr(ctx, "_readonly_spans", None)
    if cached is None or cached[0] is not groups:
        from .shell_commands import _compounds

        cached = ctx._readonly_spans = (groups, _compounds(groups))
    return not any(span[0] < index <= span[-1] for span in cached[1].values())
