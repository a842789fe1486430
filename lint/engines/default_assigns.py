"""`${NAME:=default}` and `${NAME=default}` assign the default, besides expanding to it:

    : ${MAX_LEN:=32768}
    vllm serve "$MODEL" --max-model-len $MAX_LEN      # bash 5.2.15: 32768

bash manual, Shell Parameter Expansion: "${parameter:=word} If parameter is unset or null, the expansion of word is
assigned to parameter. The value of parameter is then substituted"; without the colon only an unset parameter is
(bash 5.2.15, checked: `L=; : ${L=2048}` leaves L empty, `: ${L:=2048}` sets 2048). `${NAME:-default}` and
`${NAME-default}` assign nothing. word_expansion.expand_word takes the default where a launcher script's variable
is not set (SplitContext.defaults) and notes it here (`note`); what the command's words noted is assigned once the
command is read (`assign`), as sure as the command itself: unknown after `&&`/`||` or inside a loop, the branch's
own value inside an `if`, and nothing at all where the command runs in a subshell of its own (a pipeline's element,
`&`), which assigns there only. Where the branches of an `if` left the variable several values (scalar_branches.py),
the default is taken only in some of them: the variable is then unknown.
"""
from __future__ import annotations

from .command_strings import assigned
from .tokens import Token


def assigns(part) -> bool:
    """Is `part` (a `${...}` with a default) `${NAME:=word}` or `${NAME=word}`?"""
    raw = part.runs[0][0] if len(part.runs) == 1 else ""
    begin = len(raw) - 1 - len(part.default or "")
    return begin >= 1 and raw[begin - 1] == "=" and part.name.isidentifier()


def note(part, typed: tuple, start: int, end: int, ctx) -> None:
    """The default `typed` ((text, starts, ends, quoted), word_expansion._default) taken for `part`, when it
    assigns."""
    if assigns(part):
        ctx.assigning.append((part.name, typed[0], typed[1], typed[2], start, end))


def note_unknown(part, start: int, end: int, ctx) -> None:
    """A default ctxlint cannot read taken for `part` (`A=""; : ${A:=$B}` with B not known), when it assigns: the
    name is then not known after the command, never its old empty value."""
    if assigns(part):
        ctx.assigning.append((part.name, None, (), (), start, end))


def assign(ctx, conditional, apart: bool) -> None:
    """Assign what the command just read noted (ctx.assigning), then forget it."""
    noted, ctx.assigning = ctx.assigning, None
    if apart or not noted:
        return
    values: dict = {}
    for name, value, starts, ends, start, end in noted:  # read once per world (scalar_forks): each the same?
        if values.setdefault(name, (value, starts, ends, start, end))[0] != value:
            values[name] = (None, (), (), start, end)
    for name, (value, starts, ends, start, end) in values.items():
        if name in ctx.readonly:
            continue  # a readonly name: bash refuses it (shell_readonly.py reads that command's fate)
        if value is None or name in ctx.local.forked:  # worlds that disagree, or an `if` left it several values
            ctx.local[name] = None  # (the default is taken only in the worlds where it is unset): not known
            continue
        head = len(name) + 1
        token = Token(f"{name}={value}", start, end, (start,) * head + tuple(starts), (end,) * head + tuple(ends),
                      (), ctx.item)
        assigned(ctx.local, name, token, ctx.flow > 0 or bool(conditional), bool(conditional))
