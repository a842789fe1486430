"""`set -- WORDS` and `set WORDS`: the script's positional parameters for the commands after it.

    set -- serve "$MODEL_ID" --max-model-len "$MAX_MODEL_LEN"
    if [ "${TRUST_REMOTE_CODE:-}" = "1" ]; then set -- "$@" --trust-remote-code; fi
    exec vllm "$@"

Bash's manual (The Set Builtin, gnu.org/software/bash/manual/html_node/The-Set-Builtin.html): "--  If no arguments
follow this option, the positional parameters are unset. Otherwise, the positional parameters are set to the
arguments"; without `--` the first argument that is no option starts them ("Any arguments remaining after option
processing are treated as values for the positional parameters and are assigned, in order, to $1, $2, ...
$N"), and `-o NAME` takes its option's name. POSIX says the same (pubs.opengroup.org/onlinepubs/9799919799/
utilities/V3_chap02.html#set). So after it `"$@"`, `$1`.. and `$#` are those words, as inside a function call
(shellfuncs.Positional, whose `shift` moves them too), in a script or an `sh -c` string alike. One in a branch, a
loop or after `&&` may not run: when it keeps the words before it (`set -- "$@" more`) they stay known and what it
adds may follow them (an unknown rest); any other is not known at all. A script that sets none keeps the words
its caller passes, not known (as before). `set - WORDS` ends the options too ("-  Signal the end of options,
cause all remaining arguments to be assigned to the positional parameters. The -x and -v options are turned off.
If there are no arguments, the positional parameters remain unchanged.").

A shell's `-c` string has positional parameters of its own (bash manual, Invoking Bash: "If there are arguments
after the command_string, the first argument is assigned to $0 and any remaining arguments are assigned to the
positional parameters"): `bash -c '... "$@"' _ a b` reads a b, and `sh -c '... "$@"'` none, never the words of
the script or function that runs it (`c_string_words`, used by shellwords and execform).
"""
from __future__ import annotations

from typing import Optional, Sequence

from .tokens import Token

_TAKES_NAME = frozenset({"-o", "+o"})


def set_words(program: Sequence[Token]) -> Optional[list[Token]]:
    """The positional parameters `set ...` gives (`program`: its words, expanded), or None when it sets none
    (`set -e`, `set -o pipefail`, a bare `set`, which lists the variables)."""
    k = 1
    while k < len(program):
        text = program[k].text
        if text in ("--", "-"):  # `set -` without words keeps the parameters (the manual's `-`); `set --` unsets
            return list(program[k + 1:]) if text == "--" or k + 1 < len(program) else None
        if len(text) < 2 or text[0] not in "-+" or program[k].unresolved:
            return list(program[k:])  # the first word that is no option: the parameters from it on
        k += 2 if text in _TAKES_NAME or text[0] in "-+" and text.endswith("o") and text[1:].isalpha() else 1
    return None


def set_positional(program: Sequence[Token], ctx) -> None:
    """Apply `set ... [--] WORDS` to the context's positional parameters (inside a call: the call's own)."""
    words = set_words(program)
    if words is None:
        return
    from .shellfuncs import Positional  # a script with `set --` is rare: the module is read only then

    if not (ctx.flow > 0 or ctx.conditional):
        ctx.positional = Positional(words, "set")
        return
    # may not run: the words it keeps (`"$@"` first, each where the call or `set` typed it) with an unknown rest
    kept = ctx.positional.tokens if ctx.positional is not None else None
    if kept is not None and len(words) >= len(kept) and all(
            w.text == k.text and w.starts == k.starts for w, k in zip(words, kept)):
        ctx.positional = Positional(list(kept), ctx.positional.why, more=True)
    else:
        ctx.positional = Positional([], "set", more=True)


def c_string_words(program: Sequence[Token], script: int):
    """The positional parameters of the `-c` string `program[script]` runs: the words after its `$0` (none when
    nothing follows the string), each where the command typed it, as a function call's (shellfuncs.Positional)."""
    from .shellfuncs import Positional

    return Positional(list(program[script + 2:]), "c")


def with_words(ctx, positional, run):
    """`run()` with `positional` as the context's positional parameters, and the caller's back after it (a `-c`
    string runs in a child shell: its `set --` and `shift` change nothing of the script that runs it)."""
    saved, ctx.positional = ctx.positional, positional
    try:
        return run()
    finally:
        ctx.positional = saved
