"""What a shell command does besides starting the program of its first word: builtins whose words are data
(`echo vllm serve ...`), and commands that set the script's variables to values it does not hold (`source`,
`read`, `for`); and the cheap tests on lexed items (a function definition, `coproc`, a keyword, the `))` closing
`((`) that decide whether the slower readers run."""
from __future__ import annotations

from .lex_quotes import NAME
from .lex_words import Op, Word
from .tokens import Token

# Builtins whose words are data, not a command to run: `echo vllm serve ...` starts nothing.
_DATA_BUILTINS = {"echo", "printf", ":", "logger", "true", "false", "test", "[", "[[", "let", "unset", "shift", "done",
                  "fi", "esac",
                  # lookups: `command -v llama-server` (kept by strip_prefixes), `type -p`, `which`, `hash` find a
                  # program on the PATH without running it (sweep 11: a phantom role on an `elif` line)
                  "command", "type", "which", "hash", "whereis"}

# Commands that never return (GNU sleep takes `inf` and `infinity`; `tail -f /dev/null` waits for a line never
# written): run in the foreground at a script's top level, no later command of it ever starts.
_FOREVER = (("sleep", "inf"), ("sleep", "infinity"), ("tail", "-f", "/dev/null"))


def never_returns(words: list[str]) -> bool:
    """Do these literal words wait for ever (`sleep infinity`)? Before `;`, `&&` or `||`, nothing after them runs."""
    return len(words) <= 3 and tuple(w.lower() for w in words) in _FOREVER


def no_command(program: list[Token], ctx) -> bool:
    """A command that runs no program of its words (echo, printf, a `for` list), noting what it does to the
    script's variables: `source FILE` / `. FILE` may set any of them, so no `${X:-default}` is taken after it;
    `read A B` and `for A in ...` set theirs to values not in the script."""
    name = program[0].text
    if name in ("source", "."):
        target = program[1].text.rsplit("/", 1)[-1] if len(program) > 1 else ""
        if target not in _ENVIRONMENTS:  # a virtualenv's or conda's activation sets no engine's variables
            ctx.defaults, ctx.sourced = False, True
        return False  # the sourced file's name is no engine, but `source` may be followed by nothing else
    if name == "shift" and ctx.positional is not None:  # in a function call, or after `set --`: they move
        ctx.positional = ctx.positional.shifted(program)
        return True
    if name == "set" and len(program) > 1:  # `set -- WORDS`: the positional parameters from here on
        from .shell_set import set_positional  # rare: read only for a `set` with words

        set_positional(program, ctx)
        return True
    if name == "read":
        for t in program[1:]:
            if NAME.fullmatch(t.text):
                ctx.local[t.text] = None
        return True
    if name in ("for", "select"):
        if len(program) > 1 and NAME.fullmatch(program[1].text):
            ctx.local[program[1].text] = None
        return True
    return name in _DATA_BUILTINS


# Sourced files that set up an interpreter, not the launcher's settings: `.venv/bin/activate`, conda's hook
_ENVIRONMENTS = {"activate", "conda.sh", "activate.sh", "mamba.sh"}


# Cheap tests shellwords asks of a command list's lexed items before the work each guards
def defines(items: list) -> bool:
    """Might the items define a function (`NAME ()` or a `function` word)? A cheap test before shellfuncs."""
    before = None
    for it in items:
        if type(it) is Op:
            if it.text == ")" and type(before) is Op and before.text == "(":
                return True
        elif type(it) is Word and len(it.parts) == 1 and it.parts[0].runs and it.parts[0].runs[0][0] == "function":
            return True
        before = it
    return False


def coproc(items: list) -> bool:
    """Might the items hold bash's `coproc` (coprocs.py)? A cheap test before importing it."""
    return any(type(it) is Word and len(it.parts) == 1 and it.parts[0].runs and it.parts[0].runs[0][0] == "coproc"
               for it in items)


def literal(word: Word) -> str:
    """A word's text when it is plain literal characters (a keyword such as `fi`), else ""."""
    if not all(p.kind == "lit" and not p.quoted for p in word.parts):
        return ""
    return "".join(run[0] for p in word.parts for run in p.runs)


def arith_close(seq: list, pos: int):
    """The first `)` of the `))` typed together that closes the `((` whose second `(` is seq[pos], or None when a
    lone `)` closes it first (then the `((` are two subshells)."""
    depth = 0
    for i in range(pos + 1, len(seq) - 1):
        it = seq[i]
        if type(it) is Op and it.text == "(":
            depth += 1
        elif type(it) is Op and it.text == ")":
            if depth:
                depth -= 1
                continue
            after = seq[i + 1]
            return it if type(after) is Op and after.text == ")" and after.start == it.end else None
    return None
