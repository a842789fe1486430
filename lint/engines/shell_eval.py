"""`eval WORDS`: the words joined into one command line that the current shell reads again.

Bash's manual (Bourne Shell Builtins, gnu.org/software/bash/manual/html_node/Bourne-Shell-Builtins.html): "The
arguments are concatenated together into a single command, which is then read and executed"; POSIX joins them
"separating each with a <space> character" and runs the result "in the current environment"
(pubs.opengroup.org/onlinepubs/9799919799/utilities/V3_chap02.html#eval), so what the string assigns stays set.
`eval` takes no option but `--` (bash 5.2: `eval -x ...` is "invalid option"). So

    eval "${COMMON_ENV} python3 -m sglang.launch_server ${COMMON_ARGS} --mem-fraction-static ${mem_frac}" &
    eval "$PREFILL_CMD" > "$LOG" 2>&1 &

are read as a double-quoted `sh -c` string is (outer_expansion.py): the words expanded as the outer reading
expands them (a partly known command string's value too), joined by spaces, and read again in this shell's
context (shellwords.split_text). Characters keep the positions they are typed at; a value that comes from a
variable sits where the variable is referenced, as in `sh -c "$VAR"`.
"""
from __future__ import annotations

from typing import Callable, Sequence

from .lex_words import Word
from .outer_expansion import restored, script_of
from .tokens import Command, EnvAssign, Token


def eval_words(head: Sequence[Token], words: Sequence[Word], raw_tokens: Sequence[Sequence[Token]]) -> set[int]:
    """The ids of the words `eval` joins when `head` (a command's unexpanded tokens, prefixes stripped) is
    `eval [--] WORDS`; empty for any other command, or an `eval` with an option or nothing to run."""
    if not head or head[0].text != "eval":
        return set()
    args = list(head[1:])
    if args and args[0].text == "--":
        args = args[1:]
    if not args or args[0].text.startswith("-"):
        return set()
    wanted = {id(t) for t in args}
    return {id(w) for w, ts in zip(words, raw_tokens) if ts and id(ts[0]) in wanted}


def evaluated_commands(program: Sequence[Token], ctx, depth: int, unsure: bool, split_text: Callable,
                       env: Sequence[EnvAssign], wrappers: Sequence[str]) -> list[Command]:
    """The commands of `eval WORDS` (`program`, its words expanded), read by `split_text` (shellwords') in this
    shell's context `ctx`: what the string assigns stays set there, and is as unsure as the `eval` itself (one
    after `&&` or inside a branch may not run). `env`, `wrappers`: the `eval` command's own prefixes."""
    args = list(program[1:])
    if args and args[0].text == "--":
        args = args[1:]
    text, base, marks = script_of(args)
    opaque = ctx.conditional  # after `&&`/`||`: unsure everywhere, not just outside a branch (branches.py)
    ctx.flow += int(unsure)
    if opaque:
        ctx.local.branches.open(True)
    try:
        inner = restored(split_text(text, base, ctx, depth), marks)
    finally:
        ctx.flow -= int(unsure)
        if opaque:
            ctx.local.branches.path.pop()
    return [Command(c.tokens, tuple(env) + c.env, tuple(wrappers) + ("eval",) + c.wrappers, c.image, c.exported,
                    image_gpus=c.image_gpus, branch=c.branch, background=c.background) for c in inner]
