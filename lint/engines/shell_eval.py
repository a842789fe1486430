"""`eval WORDS`: the words joined into one command line that the current shell reads again.

Bash's manual (Bourne Shell Builtins, gnu.org/software/bash/manual/html_node/Bourne-Shell-Builtins.html): "The
arguments are concatenated together into a single command, which is then read and executed"; POSIX joins them
"separating each with a <space> character" and runs the result "in the current environment"
(pubs.opengroup.org/onlinepubs/9799919799/utilities/V3_chap02.html#eval), so what the string assigns stays set.
`eval` takes no option but `--` (bash 5.2: `eval -x ...` is "invalid option"). So

    eval "${COMMON_ENV} python3 -m sglang.launch_server ${COMMON_ARGS} --mem-fraction-static ${mem_frac}" &
    eval "$PREFILL_CMD" > "$LOG" 2>&1 &

are read as an `sh -c` string is (shellwords.split_text, with the script's own variables): each word as typed,
quotes removed and its references left for the second reading, which expands them once. A double-quoted word's
`$` the outer reading expands, inside the inner reading's single quotes too (the `sh -c "..."` rule, Lexer
outer_dq). Characters keep the positions they are typed at; a value that comes from a variable sits where the
variable is referenced, as in `sh -c "$VAR"`.
"""
from __future__ import annotations

from typing import Callable, Optional, Sequence

from .lexer import Word
from .tokens import Command, EnvAssign, Token

Span = tuple[int, int]


def eval_script(head: Sequence[Token], words: Sequence[Word], raw_tokens: Sequence[Sequence[Token]]
                ) -> Optional[tuple[str, list[Span], bool, set[int]]]:
    """(the joined text, each character's source span, whether the outer shell expands it first, the ids of the
    words it is made of) when `head` (a command's unexpanded tokens, prefixes stripped) is `eval [--] WORDS`;
    None for any other command, or an `eval` with an option or nothing to run."""
    if not head or head[0].text != "eval":
        return None
    args = list(head[1:])
    if args and args[0].text == "--":
        args = args[1:]
    if not args or args[0].text.startswith("-"):
        return None
    by_token = {id(ts[0]): w for w, ts in zip(words, raw_tokens) if ts}
    joined: list[Word] = [by_token[id(t)] for t in args if id(t) in by_token]
    text, base = [], []
    for k, token in enumerate(args):
        if k:  # the space eval puts between its arguments, where the blank between them is typed
            text.append(" ")
            base.append((args[k - 1].end, max(token.start, args[k - 1].end + 1)))
        text.append(token.text)
        if len(token.starts) == len(token.text):
            base.extend(zip(token.starts, token.ends))
        else:  # no per-character positions: the word's own span for each
            base.extend([(token.start, token.end)] * len(token.text))
    return "".join(text), base, any(w.dq for w in joined), {id(w) for w in joined}


def evaluated_commands(evaluated: tuple[str, list[Span], bool, set[int]], ctx, depth: int, unsure: bool,
                       split_text: Callable, env: Sequence[EnvAssign], wrappers: Sequence[str]) -> list[Command]:
    """The commands of an `eval` string (eval_script's answer), read by `split_text` (shellwords') in this shell's
    context `ctx`: what the string assigns stays set there, and is as unsure as the `eval` itself (one after `&&`
    or inside a branch may not run). `env`, `wrappers`: the `eval` command's own prefixes."""
    ctx.flow += int(unsure)
    try:
        inner = split_text(evaluated[0], evaluated[1], ctx, depth, evaluated[2])
    finally:
        ctx.flow -= int(unsure)
    return [Command(c.tokens, tuple(env) + c.env, tuple(wrappers) + ("eval",) + c.wrappers) for c in inner]
