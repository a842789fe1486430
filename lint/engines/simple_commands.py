"""What one simple command runs, its words expanded: a program with its prefixes and environment (a Command), or
the commands of what it hands to the same shell or another (a function call, a called script, `sh -c`, `eval`, an
ssh hop, tmux); assignments alone and declarations set the script's variables (shell_assignments.py). Read by
shellwords._build_commands for each command of a list, in order.

`eval WORDS`: the words joined into one command line that the current shell reads again.

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

from . import shellarrays
from .command_prefixes import launched_hop, strip_prefixes
from .command_strings import assignment_words, command_word
from .container_scripts import own_shell, script_index as _script_index, shell_script
from .decided_tests import hiding
from .lex_words import Word
from .outer_expansion import restored, script_of
from .scalar_append import appends_read
from .shell_commands import no_command, runs_file
from .tokens import Command, EnvAssign, Token
from .word_expansion import SplitContext, Unexpanded, expand_word

MAX_DEPTH = 6  # texts read inside texts (`sh -c` in `eval` in a function ...): deeper ones are not read


def command_from_words(words: list[Word], ctx: SplitContext, depth: int) -> list[Command]:
    from .shellwords import _build_commands, split_text  # (they read this module's commands in turn)

    words = appends_read(words)  # `CMD+=" --flag"` is `CMD="${CMD} --flag"` (scalar_append.py)
    if ctx.local.forks:  # a variable the branches of an `if` set differently: read once per branch
        from .scalar_forks import fork_read

        forked = fork_read(words, ctx, lambda: command_from_words(words, ctx, depth))
        if forked is not None:
            return forked
    if ctx.arrays and shellarrays.forking(ctx):  # `"${CMD[@]}"` of an array an `if` set two ways: each way
        from .array_branches import forks

        forked = forks(words, ctx, lambda: command_from_words(words, ctx, depth))
        if forked is not None:
            return forked
    # Find the script word first so that it is not expanded by the outer level:
    # its references are expanded (once) when the inner script is split.
    tokens: list[Token] = []
    raw = Unexpanded(ctx.item)  # unexpanded words read nothing else (no SplitContext built per command)
    raw_tokens = [expand_word(w, raw, expand=False) for w in words]
    flat_raw = [t for ts in raw_tokens for t in ts]
    env: list[EnvAssign] = []
    wrappers: list[str] = []
    head = strip_prefixes(list(flat_raw), [], [])
    idx = _script_index(head)
    script_word = None
    if idx is not None and depth < MAX_DEPTH:
        target = head[idx]
        for w, ts in zip(words, raw_tokens):
            if ts and ts[0] is target:
                script_word = w
    # A double-quoted `sh -c` script of a shell-read text, and `eval`'s words: the outer shell expands them, the
    # inner reading parses the result (outer_expansion.py), so they are expanded here, command strings included.
    outer = script_word is not None and script_word.dq and (depth > 0 or ctx.script)
    evaluated = eval_words(head, words, raw_tokens) if idx is None and head and head[0].text == "eval" \
        and depth < MAX_DEPTH else ()
    command = command_word(head, words, raw_tokens, ctx.local) if not evaluated and idx is None \
        and (ctx.local.partial or ctx.local.scoped) else None
    values = assignment_words(words, raw_tokens)  # expanded unsplit, a partly known value as typed
    for w, ts in zip(words, raw_tokens):
        if (w is script_word and not outer) or all(part.kind == "lit" for part in w.parts):
            tokens.extend(ts)  # nothing to expand: the tokens just made (immutable) are the same
        elif w is script_word or id(w) in evaluated:
            tokens.extend(expand_word(w, ctx, partials=True))
        else:
            tokens.extend(expand_word(w, ctx, command=w is command, partials=True,
                                      assignment=id(w) in values))
    program = strip_prefixes(tokens, env, wrappers)
    unsure = ctx.flow > 0 or ctx.conditional
    if not program:  # only assignments: they set script-local variables (shell_assignments.py)
        from .shell_assignments import assignments_only
        assignments_only(env, words, ctx, unsure, expand_word)
        return []
    if program[0].text in ("export", "readonly", "declare", "local", "typeset"):
        from .shell_assignments import declaration
        declaration(program, words, ctx, unsure, expand_word)
        return []
    if ctx.written and program[0].text in ("source", "."):  # a body written to a file before (apart_state.py)
        from .apart_state import sourced
        sourced(ctx)
    if ctx.sourcer is not None and program[0].text in ("source", ".") and len(program) > 1:
        from .shellfuncs import source_functions  # a file beside the script: the functions it defines

        source_functions(program, ctx)
    if program[0].text in ("set", "unset"):  # `set -a`, `unset NAME`: what later commands get exported
        from .shell_exports import set_or_unset
        set_or_unset(program, ctx, unsure)
    if ctx.readonly and "[" in program[0].text and len(program) == 1:  # `X[0]=2`, X readonly: fails
        from .shell_readonly import element_refused
        if element_refused(program[0], ctx, unsure):
            return []
    if no_command(program, ctx):
        return []
    shellarrays.assign(words, ctx, unsure, expand_word)  # `A+=(...)`: no assignment to the splitter
    shellarrays.changed(program, ctx)
    if program[0].text in ctx.functions:  # a call: the body's commands, with the call's arguments
        from .call_prefixes import prefixed_call  # `A=x f`: the body sees A=x, A's old value back after it
        from .shellfuncs import call

        defined = ctx.functions[program[0].text]
        inner = prefixed_call(env, lambda: call(defined, program, ctx, depth, unsure, _build_commands, MAX_DEPTH),
                              ctx, defined.items)
        return [Command(c.tokens, tuple(env) + c.env, tuple(wrappers) + c.wrappers, c.image, c.exported,
                        image_gpus=c.image_gpus, branch=c.branch, background=c.background) for c in inner]
    if ctx.sourcer is not None and runs_file(program[0].text):  # `bash serve.sh ARGS`: the file's commands
        from .script_calls import called_script

        inner = own_shell(ctx, lambda: called_script(program, ctx, depth, _build_commands, MAX_DEPTH, env))
        if inner is not None:
            return [Command(c.tokens, tuple(env) + c.env, tuple(wrappers) + c.wrappers, c.image, c.exported,
                            image_gpus=c.image_gpus, branch=c.branch, background=c.background) for c in inner]
    if evaluated and program[0].text == "eval":
        hidden = hiding(ctx, [a.name for a in env])  # `A=x eval '...'`: the string sees A=x
        try:
            return evaluated_commands(program, ctx, depth + 1, unsure, split_text, env, wrappers)
        finally:
            ctx.undecided = hidden
            # a failed readonly assignment in the string ends the string's command, not eval's (bash 5.2.15:
            # `eval 'L=5'; TP=2` with L readonly assigns TP): what comes after the eval runs
            ctx.discard = False
    hop = 0 if program[0].text.rsplit("/", 1)[-1] in ("ssh", "pdsh") else launched_hop([t.text for t in program])
    if hop is not None:  # words HOST's shell reads otherwise (ssh_commands.py), behind `srun`/`mpirun` too
        from .ssh_commands import reread_end

        end = reread_end(program[hop:])
        if end is not None:
            return [Command(tuple(program[:hop + end]), tuple(env), tuple(wrappers))]
    idx = _script_index(program)
    if idx is not None and script_word is not None and depth < MAX_DEPTH:  # `sh -c SCRIPT` (container_scripts.py)
        if idx + 1 < len(program) and not script_word.had_quotes and ctx.script:  # `sh -c vllm serve M`: only
            from .c_script_cut import cut_short  # `vllm` runs (CTX301)

            cut_short(program, idx, script_word, ctx)
        return own_shell(ctx, lambda: shell_script(program, idx, script_word, outer, env, wrappers, ctx, depth,
                                                   split_text))
    if program[0].text.rsplit("/", 1)[-1] == "tmux":  # `tmux new -d vllm serve ...`: the words tmux runs itself
        from .tmux import direct_command  # (none for send-keys), in the pane's environment (tmux.py)
        return direct_command(program, env, wrappers, ctx)
    if ctx.exports:  # the shell's exported variables are the program's environment too
        from .shell_exports import environment
        return [Command(tuple(program), tuple(env), tuple(wrappers), None, environment(ctx))]
    return [Command(tuple(program), tuple(env), tuple(wrappers))]


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
