"""Which of a script's variables a command it starts gets in its environment: the exported ones.

Bash's manual (Environment, gnu.org/software/bash/manual/html_node/Environment.html): "the environment for any
simple command or function may be augmented temporarily by prefixing it with parameter assignments", and the
environment "passed to an executed command consists of the shell's initial environment, whose values may be
modified in the shell, less any pairs removed by the unset and export -n commands, plus any additions via the
export and declare -x commands". So

    export MAX_TOTAL_TOKENS=65536            # or MAX_TOTAL_TOKENS=65536; export MAX_TOTAL_TOKENS
    text-generation-launcher --model-id ...  # TGI reads --max-total-tokens from MAX_TOTAL_TOKENS

starts TGI with 65,536 tokens, as the inline `MAX_TOTAL_TOKENS=65536 text-generation-launcher ...` does, while a
plain `MAX_TOTAL_TOKENS=65536` (not exported) stays the script's. Export is an attribute of a name (`export A`
before `A=1` exports the later value); `set -a` (`set -o allexport`) gives it to every variable assigned while it
is on ("Each variable or function that is created or modified is given the export attribute", The Set Builtin);
`export -n`, `declare +x` and `unset` take it away, and a function's `local` name loses it on return.

The value a command gets is the variable's value as the command sees it (command_strings.Locals: known, known only
inside the `if` branch that set it, or unknown), at the position of its last assignment, so a finding on a setting
the engine reads from its environment points at the export. A script run as written has no initial environment
here (word_expansion.SplitContext), so a variable it never sets reaches no engine, unless a file it sourced before
may have set it: then its value is unknown, as is one exported only inside a branch the command is not in.
"""
from __future__ import annotations

from typing import Optional, Sequence

from .command_prefixes import ASSIGN
from .command_strings import assigned
from .lex_quotes import NAME
from .tokens import EnvAssign, Token, VarRef

SURE = True  # the name is exported wherever the script goes on; a branch tuple: only inside it; False: may be


def declaring(program: Sequence[Token], ctx, unsure: bool) -> None:
    """`export`/`readonly`/`declare`/`local`/`typeset`: the variables its words assign, the names it exports."""
    for t in program[1:]:
        if ASSIGN.match(t.text):
            name = t.text.split("=", 1)[0]
            assigned(ctx.local, name, t, unsure, ctx.conditional)
            if unsure:
                ctx.unsure.add(name)
            if ctx.allexport is not False:
                allexported(ctx, name, unsure, ctx.conditional)
    if program[0].text != "readonly":
        exporting(program, ctx, unsure, ctx.conditional)


def exporting(program: Sequence[Token], ctx, unsure: bool, conditional: bool) -> None:
    """`export`, `declare -x`/`typeset -x`/`local -x` (and `+x`, `export -n`): the names they mark or unmark.
    Their assignments are recorded by the caller, as any assignment is (`assigned`)."""
    word = program[0].text
    action = "export" if word == "export" else ""  # or "unexport"; "": no attribute change
    names: list[Token] = []
    options = True
    for t in program[1:]:
        text = t.text
        if options and text == "--":
            options = False
        elif options and len(text) > 1 and text[0] in "-+" and text[1:].isalpha():
            letters = text[1:]
            if "f" in letters or "F" in letters:
                return  # `export -f NAME`, `declare -f`: functions, never an engine's setting
            if word == "export" and text[0] == "-" and "n" in letters:
                action = "unexport"
            elif word != "export" and "x" in letters:
                action = "export" if text[0] == "-" else "unexport"
        else:
            options = False
            names.append(t)
    if not action:
        return  # a plain `declare A=1`: an assignment (allexport may export it), no attribute change
    for t in names:
        name = t.text.split("=", 1)[0].rstrip("+")
        if not NAME.fullmatch(name):
            continue
        if action == "export":
            mark(ctx, name, unsure, conditional)
        else:
            unmark(ctx, name, unsure)


def mark(ctx, name: str, unsure: bool, conditional: bool) -> None:
    """Give `name` the export attribute (inside a branch: known inside it only, branches.py)."""
    old = ctx.exports.get(name)
    if old is SURE:
        return
    where = ctx.local.branches.where() if unsure and not conditional else None
    ctx.exports[name] = SURE if not unsure else where if where is not None and old is None else False


def allexported(ctx, name: str, unsure: bool, conditional: bool) -> None:
    """An assignment while `set -a` is on (None: may be on) exports its name."""
    if ctx.allexport:
        mark(ctx, name, unsure, conditional)
    elif ctx.allexport is None and ctx.exports.get(name) is not SURE:
        ctx.exports[name] = False


def unmark(ctx, name: str, unsure: bool) -> None:
    """Take the export attribute away (`export -n`, `declare +x`, `unset`); in a branch it may stay."""
    if name in ctx.exports:
        if unsure:
            ctx.exports[name] = False
        else:
            del ctx.exports[name]


def set_or_unset(program: Sequence[Token], ctx, unsure: bool) -> None:
    (_setting if program[0].text == "set" else _unsetting)(program, ctx, unsure)


def _setting(program: Sequence[Token], ctx, unsure: bool) -> None:
    """`set -a` / `set +a` / `set -o allexport` (`-ea` too): every later assignment is exported, or no more.
    One in a branch or loop may not run: later assignments may be exported (their values unknown)."""
    args = [t.text for t in program[1:]]
    for k, text in enumerate(args):
        if text == "--" or len(text) < 2 or text[0] not in "-+":
            break
        turn: Optional[bool] = None
        if text.endswith("o") and k + 1 < len(args) and args[k + 1] == "allexport":  # `-o`, `-eo`
            turn = text[0] == "-"
        elif text[1:].isalpha() and "a" in text[1:]:
            turn = text[0] == "-"
        if turn is not None:
            ctx.allexport = None if unsure and turn != ctx.allexport else turn


def _unsetting(program: Sequence[Token], ctx, unsure: bool) -> None:
    """`unset [-v] NAME...` removes the variable and its attributes (`unset -f` is a function's)."""
    for t in program[1:]:
        if t.text == "-f":
            break
        if NAME.fullmatch(t.text):
            unmark(ctx, t.text, unsure)
    from .shell_unset import unset  # and the value (or the function) goes too
    unset(program, ctx, unsure)


def environment(ctx) -> tuple[EnvAssign, ...]:
    """The exported variables a command started now gets, each at its last assignment's value token."""
    out = []
    local = ctx.local
    for name, flag in ctx.exports.items():
        token = local.tokens.get(name)
        if name not in local:  # never assigned: not in the environment, unless a sourced file may set it
            if ctx.sourced:
                out.append(EnvAssign(name, _unknown(name, token, ctx, "sourced")))
            continue
        maybe = flag is False or (flag is not SURE and not local.branches.sees(flag))
        value = None if maybe else local.known(name)[0]
        if value is None:
            why = "branch" if maybe or name in ctx.unsure else "set"
            out.append(EnvAssign(name, _unknown(name, token, ctx, why)))
        elif token is not None and "=" in token.text and token.text.split("=", 1)[1] == value and not token.unresolved:
            out.append(EnvAssign(name, token))
        else:  # a value the last assignment's token does not hold as typed: at that assignment's span
            at = (token.start, token.end) if token is not None else (0, 0)
            text = f"{name}={value}"
            out.append(EnvAssign(name, Token(text, at[0], at[1], (at[0],) * len(text), (at[1],) * len(text), (),
                                             token.item if token is not None else ctx.item)))
    return tuple(out)


def _unknown(name: str, token: Optional[Token], ctx, why: str) -> Token:
    """A `NAME=...` token whose value is not known: the last assignment's, with a reference that says so."""
    if token is not None and token.unresolved and ctx.local.get(name) is None and name not in ctx.unsure:
        return token  # its own unknown references (`export A=$(cmd)`, `export A=$1`) say why
    if token is None:
        token = Token(f"{name}=", 0, 0, (), (), (), ctx.item)
    ref = VarRef(name, "shell", token.start, token.end, None, None, token.item, why)
    return Token(token.text, token.start, token.end, token.starts, token.ends, token.refs + (ref,), token.item)
