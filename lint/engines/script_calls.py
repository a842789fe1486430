"""A launch script that runs another script file with arguments: the engine is in the callee, its values in the
caller.

    #SBATCH --gres=gpu:nvidia_h200:4
    MODEL_PATH=/models/GLM-4.6-FP8
    TP_SIZE=4
    bash production_scripts/service.sh $MODEL_PATH $PORT $TP_SIZE     # service.sh: sglang ... --tp-size "$3"

Bash's manual (Invoking Bash, gnu.org/software/bash/manual/html_node/Invoking-Bash.html): "the first argument is
assumed to be the name of a file containing shell commands ... Bash reads and executes commands from this file,
then exits", and the "remaining arguments are assigned to the positional parameters"; an executable script run
by its path (`./serve.sh ARGS`, `serve.sh ARGS`) is read the same way by the interpreter its `#!` names. It runs
in a new process, so it sees the caller's exported variables (and the environment the caller was started with,
Slurm's for a batch script), not its other ones (Environment, the same manual). So the callee's commands are read
as a function call's are (shellfuncs.call) in a shell of its own: `$1`.. the call's words, where the call types
them, and only the exported variables of the caller set; its `${X:-default}` of a variable nothing sets takes the
default, as for any script run as written. The file is found as a sourced one is (the script's `sourcer`: a path
relative to the script's own folder); its text is located at the call's script word, as a sourced file's function
is at the call. Only a file that names an engine is read; `sh -c STRING` is a command string, read elsewhere.
"""
from __future__ import annotations

from typing import Callable, Optional, Sequence

from .tokens import SHELLS, Command, EnvAssign, Token

_SUFFIXES = (".sh", ".bash")


def script_path(program: list[Token]) -> Optional[int]:
    """Index of the script file of `bash [options] FILE ARGS` (no `-c`), `./FILE ARGS` or `FILE.sh ARGS`; None
    for any other command, or a path not known."""
    first = program[0].text
    if first.rsplit("/", 1)[-1] in SHELLS:
        i = 1
        while i < len(program) and program[i].text.startswith(("-", "+")) and program[i].text != "--":
            if not program[i].text.startswith("--") and "c" in program[i].text[1:]:
                return None  # `bash -c STRING`, `sh -ec STRING`
            i += 2 if program[i].text in ("-o", "+o") else 1
        i += 1 if i < len(program) and program[i].text == "--" else 0
        at = i if i < len(program) else None
    else:
        at = 0 if first.startswith("./") or first.endswith(_SUFFIXES) else None
    if at is None or program[at].unresolved or not program[at].text:
        return None
    return at


def called_script(program: list[Token], ctx, depth: int,
                  build: Callable[[list, object, int], list[Command]], max_depth: int,
                  env: Sequence[EnvAssign] = ()) -> Optional[list[Command]]:
    """The commands the script file `program` runs, read in a shell of its own; None when it is no such call, or
    the file is not read (not beside the script, or it names no engine). `env`: the call's own `NAME=value`
    prefixes, which the callee gets in its environment as exported variables."""
    at = script_path(program)
    if at is None or depth >= max_depth or ctx.sourcer is None:
        return None
    path = program[at].text
    if path in ctx.calling:
        return None  # a script that runs itself is not followed again
    text = ctx.sourcer(path)
    from ctxlint.adapters.shell_script import names_engine  # a launcher's text: already imported by its reader

    if not text or not names_engine(text):
        return None
    ran = getattr(ctx.sourcer, "ran", None)
    if ran is not None:  # shell_script._Beside: the file is read through this script (no deployment of its own)
        ran.append(ctx.sourcer.full(path))
    from .command_strings import Locals, assigned
    from .function_defs import collapse
    from .lexer import lex
    from .shellfuncs import Positional

    word = program[at]
    items, _ = lex(text, [(word.start, word.end)] * len(text))
    child = Locals()
    for name, exported in ctx.exports.items():  # what a new process gets: the exported names only
        # as a command started here gets them (shell_exports.environment): an export or a value the call's own
        # `if` branch makes is known inside it (`if ...; then export L=8192; ./serve.sh; fi`), one that may or
        # may not be exported, or holds one of several values, is not
        sure = exported is True or exported is not False and ctx.local.branches.sees(exported)
        value = ctx.lookup(name) if sure else None
        dict.__setitem__(child, name, value)
    # `MAX_LEN=8192 ./serve.sh`: bash adds a command's prefix assignments to the environment it runs with
    # (shell_exports.py, the manual's Environment), so the callee starts with them set, and exported
    prefixed = dict(ctx.exports)
    for a in env:
        assigned(child, a.name, a.token, False, False)
        prefixed[a.name] = True
    saved = (ctx.local, ctx.functions, ctx.arrays, ctx.exports, ctx.unsure, ctx.positional, ctx.flow, ctx.allexport,
             ctx.argloop)
    ctx.local, ctx.functions, ctx.arrays, ctx.exports, ctx.unsure = child, {}, {}, prefixed, set()
    ctx.allexport = False
    ctx.positional = Positional(list(program[at + 1:]))
    # The callee is a process of its own, read from its first line: an `if` or `&&` of the caller around the call
    # decides whether it runs, not which of its own assignments do (`CTX=8192` then `llama-server -c "$CTX"` holds
    # 8192 wherever the call sits; the caller's open `if` made it "a value it does not hold"). Its loops are its own.
    ctx.flow, ctx.argloop = 0, None
    ctx.calling.append(path)
    try:
        return build(collapse(items), ctx, depth + 1)
    finally:
        ctx.calling.pop()
        (ctx.local, ctx.functions, ctx.arrays, ctx.exports, ctx.unsure, ctx.positional, ctx.flow, ctx.allexport,
         ctx.argloop) = saved
