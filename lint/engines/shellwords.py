"""Split command lines into tokens that remember their exact source spans.

Two entry points:

* `split_shell(text, resolver)` for a shell string (compose `command:` string,
  SkyPilot `run:` script, the script of `sh -c`), with quotes, escapes,
  continuations, comments, chains (`&&`, `||`, `;`, `|`, `&`), `exec`/`env`
  prefixes, `FOO=1 cmd` assignments and `$VAR`/`${VAR}` references.
* `split_list(items, resolver)` (execform.py) for a Kubernetes `command` + `args`
  list: each item is one token (spans are offsets inside that item), `$(VAR)` is
  expanded the Kubernetes way, and `["/bin/sh", "-c", "script"]` is unwrapped
  so the script's tokens point inside item 2.

Nothing here raises on odd input: problems come back as data.
"""
from __future__ import annotations

from typing import Callable, Optional

from ..records import replace
from .command_prefixes import launched_hop, strip_prefixes
from .container_scripts import script_index as _script_index, shell_script
from .command_strings import assignment_words, command_word
from .decided_tests import hiding
from .compose_pass import compose_interpolated, shell_stage
from .heredoc_scripts import body_commands
from .heredocs import HereBody
from . import branches, shellarrays
from .lex_words import Word
from .lexer import lex
from .shell_commands import and_or_reader, command_groups, literal, may_update, no_command, run_apart, runs_file
from .scalar_append import appends_read
from .shell_eval import eval_words, evaluated_commands
from .tokens import Command, EnvAssign, Resolver, SplitProblem, SplitResult, Token
from .word_expansion import SplitContext, Unexpanded, expand_word, no_resolver

_LEADS = frozenset({"do", "then", "else", "{", "!"})  # reserved words a command may follow on the same line
_MAX_DEPTH = 6


def _build_commands(items: list[object], ctx: SplitContext, depth: int) -> list[Command]:
    commands: list[Command] = []
    groups, arith, blocking, subshells, ends = command_groups(items)
    groups, andor = and_or_reader(groups, ends)  # `false && { ...; }`: what runs after `&&`/`||` (and_or.py)
    if subshells:
        from .subshells import Mark, passed

    background, piped = run_apart(ends, groups)
    jobs = None
    if background or piped:  # what a job or a pipeline's element assigns stays in its process (apart_state.py)
        from .apart_state import ApartJobs

        jobs = ApartJobs(ends, groups, "lastpipe" in (ctx.source or ""))
    for index, (words, conditional) in enumerate(groups):
        jobs and jobs.close_before(index, ctx)
        if ctx.discard is not False:  # after a failed readonly assignment (shell_readonly.py, imported only then)
            from .shell_readonly import discard_step

            conditional = discard_step(ctx, groups, index, depth, conditional)
        if andor is not None and (conditional := andor.step(index, conditional, ctx)) is andor.SKIP:
            continue  # bash never runs it: `false && ...`
        if conditional is None:
            if subshells and isinstance(words, Mark):  # a subshell's `(` or `)`: state put back at `)`
                passed(words, ctx)
            elif not isinstance(words, HereBody):  # a definition, unless in a job's or pipeline's own subshell
                # (bash 5.2.15: `f() { L=1; } &` defines none) or in a branch bash never runs (`if false; then f()
                # { ...; }; fi; f` runs no f: decided_tests.py)
                if index not in background and index not in piped and not any(e[5][0] for e in ctx.local.ifs):
                    ctx.functions[words.name] = words  # type: ignore[attr-defined]
            elif depth < _MAX_DEPTH:
                commands.extend(_own_shell(ctx, lambda: body_commands(words, ctx, depth, expand_word, split_text),
                                           False))
            continue
        first = literal(words[0]) if words else ""
        # `builtin let` and `command let` run the same builtin
        let = 2 if first in ("builtin", "command") and len(words) > 1 and literal(words[1]) == "let" else \
            1 if first == "let" else 0
        if index in arith or let and len(words) > let:  # `(( L++ ))`, `let L=L*2`: assigns, runs nothing
            from .arith_commands import arith_command, raw
            text, sure = arith[index] if index in arith else ("", True)
            jobs and jobs.opens(index, words, ctx)  # `(( L=6 )) && L=7 &`: one job from the `(( ))`
            ctx.discard or arith_command([text] if index in arith else [raw(w) for w in words[let:]],
                          ctx, ctx.flow > 0 or bool(conditional) or not sure)
            continue
        at = 0
        # `if [ -n "$A" ]; then`: the test is the whole condition only when `then` follows it; `if A || B`,
        # `if A && B`, `if A; B` are decided by more than one command (decided_tests.py)
        after = groups[index + 1] if index + 1 < len(groups) else None
        ctx.lone_test = after is not None and after[1] is False and bool(after[0]) and literal(after[0][0]) == "then"
        ctx.skippable = bool(conditional)  # `grep -q x f && if ...`: the `if` whole may not run (branches.if_step)
        # `do case $1 in`, `then if [ ... ]`, `else if`: after `do`, `then` or `else` (each opens a list of
        # commands) the next word is a command's first word, where bash recognises a reserved word (bash manual,
        # Reserved Words), so it may open a compound command of its own: both are followed here, or the `case`
        # would not count and its `esac` would close the loop around it early (a value set in the loop read as sure).
        while True:
            # `while (( "$#" ))`: the arithmetic command's words are a group of their own, after the keyword's
            cond = words[at:] if len(words) > at + 1 or index + 1 >= len(groups) or groups[index + 1][1] is None \
                else words[at:] + groups[index + 1][0]
            branches.flow_step(first, cond, ctx)
            if first not in _LEADS or at + 1 >= len(words):
                break
            at += 1
            first = literal(words[at])
        jobs and jobs.opens(index, words, ctx)
        if ctx.discard:
            continue  # bash does not run it (shell_readonly.py)
        ctx.conditional = conditional
        updated = None
        if may_update(words, first, ctx):  # `x=$(( L++ ))`, `declare -i N=4*2` (arith_commands.py, imported then)
            from .arith_commands import command_updates

            updated = command_updates(words, first, ctx)
            if updated is None:  # a `$(( ))` assigns a readonly name: bash runs nothing of the command
                if index in background or index in piped:
                    ctx.discard = False  # (its own subshell's failure)
                continue
        read = branches.in_arm(_command_from_words(words, ctx, depth), ctx.local.branches.arm())
        if index in background or index in piped:  # its own subshell: what it assigns, or fails, stays there
            ctx.discard = False
        elif updated:
            from .arith_commands import apply_updates

            apply_updates(updated, words, ctx, ctx.flow > 0 or bool(conditional))
        if index in background:
            read = [replace(c, background=True) for c in read]
        if not any(entry[5][0] for entry in ctx.local.ifs):  # a branch bash never runs starts nothing
            commands.extend(read)  # (decided_tests.py); what it assigns is dropped by scalar_branches.py
        if index in blocking and not (ctx.flow or conditional or ctx.frames):
            break  # the script waits here for ever: nothing after it runs (`sleep infinity && vllm serve ...`)
    jobs and jobs.close_all(ctx)
    return commands


def _own_shell(ctx: SplitContext, run: Callable[[], list], fresh: bool = True) -> list:
    """The commands of a text another shell process runs (`bash -c`, a here-document fed to a shell or written as a
    script, `bash serve.sh`, a container's `sh -c`): a failed assignment there ends that process's command, never
    the caller's (shell_readonly.py); and bash passes no readonly attribute to a child (a readonly L, exported or
    not, is assigned there: `bash -c 'L=5; echo $L'` prints 5, bash 5.2.15, checked). `fresh`: the text starts
    without the caller's readonly names; otherwise (a here-document, a called script: their assignments are still
    read as the caller's) each is one that may be readonly, so an assignment to it there is unknown, never a
    failure that drops the rest of that text (it was, before: its launch was lost)."""
    readonly, discard = ctx.readonly, ctx.discard
    ctx.readonly, ctx.discard = {} if fresh else dict.fromkeys(readonly, False), False
    try:
        return run()
    finally:
        ctx.readonly, ctx.discard = readonly, discard


def _command_from_words(words: list[Word], ctx: SplitContext, depth: int) -> list[Command]:
    words = appends_read(words)  # `CMD+=" --flag"` is `CMD="${CMD} --flag"` (scalar_append.py)
    if ctx.local.forks:  # a variable the branches of an `if` set differently: read once per branch
        from .scalar_forks import fork_read

        forked = fork_read(words, ctx, lambda: _command_from_words(words, ctx, depth))
        if forked is not None:
            return forked
    if ctx.arrays and shellarrays.forking(ctx):  # `"${CMD[@]}"` of an array an `if` set two ways: each way
        from .array_branches import forks

        forked = forks(words, ctx, lambda: _command_from_words(words, ctx, depth))
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
    if idx is not None and depth < _MAX_DEPTH:
        target = head[idx]
        for w, ts in zip(words, raw_tokens):
            if ts and ts[0] is target:
                script_word = w
    # A double-quoted `sh -c` script of a shell-read text, and `eval`'s words: the outer shell expands them, the
    # inner reading parses the result (outer_expansion.py), so they are expanded here, command strings included.
    outer = script_word is not None and script_word.dq and (depth > 0 or ctx.script)
    evaluated = eval_words(head, words, raw_tokens) if idx is None and head and head[0].text == "eval" \
        and depth < _MAX_DEPTH else ()
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
        inner = prefixed_call(env, lambda: call(defined, program, ctx, depth, unsure, _build_commands, _MAX_DEPTH),
                              ctx, defined.items)
        return [Command(c.tokens, tuple(env) + c.env, tuple(wrappers) + c.wrappers, c.image, c.exported,
                        image_gpus=c.image_gpus, branch=c.branch, background=c.background) for c in inner]
    if ctx.sourcer is not None and runs_file(program[0].text):  # `bash serve.sh ARGS`: the file's commands
        from .script_calls import called_script

        inner = _own_shell(ctx, lambda: called_script(program, ctx, depth, _build_commands, _MAX_DEPTH),
                           False)
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
    if idx is not None and script_word is not None and depth < _MAX_DEPTH:  # `sh -c SCRIPT` (container_scripts.py)
        return _own_shell(ctx, lambda: shell_script(program, idx, script_word, outer, env, wrappers, ctx, depth,
                                                    split_text))
    if program[0].text.rsplit("/", 1)[-1] == "tmux":  # `tmux new -d vllm serve ...`: the words tmux runs itself
        from .tmux import direct_command  # (none for send-keys), in the pane's environment (tmux.py)
        return direct_command(program, env, wrappers, ctx)
    if ctx.exports:  # the shell's exported variables are the program's environment too
        from .shell_exports import environment
        return [Command(tuple(program), tuple(env), tuple(wrappers), None, environment(ctx))]
    return [Command(tuple(program), tuple(env), tuple(wrappers))]


def split_text(text: str, base: Optional[list[tuple[int, int]]], ctx: SplitContext, depth: int,
               outer_dq: bool = False) -> list[Command]:
    items, problems = lex(text, base, k8s=ctx.item is not None, go=ctx.go, outer_dq=outer_dq)
    ctx.problems.extend(SplitProblem(m, s, e, ctx.item) for m, s, e in problems)
    return _build_commands(items, ctx, depth)


def split_shell(text: str, resolver: Optional[Resolver] = None, k8s: bool = False,
                shell: Optional[Resolver] = None, go: bool = False, defaults: bool = False,
                script: Optional[bool] = None, sourcer: Optional[Callable[[str], Optional[str]]] = None,
                positional=None) -> SplitResult:
    """Split a shell string into commands; spans are offsets into `text`.

    k8s=True also reads `$(NAME)` as a Kubernetes reference (use it for a
    string that came out of a Kubernetes command/args item). `shell`: the text is a Compose
    string, interpolated by Compose first (`resolver`), its shell then reading `shell`. go=True:
    Go template actions are references too (their values asked of `resolver` by gotemplate.lookup_key).
    defaults=True (a launcher script run as written): `${NAME:-default}` of a variable that
    neither the script nor `resolver` sets is its default, as the shell reads it. script: a shell
    reads the text (default: `defaults`), so its double-quoted `sh -c` strings are expanded by it first.
    sourcer: the text of a file the script sources by a path relative to its own directory (None: not read), for
    the functions it defines (shellfuncs.py).
    """
    if not isinstance(text, str):
        return SplitResult(problems=(SplitProblem("not a string", 0, 0),))
    base, host = None, set()
    if shell is not None:
        text, base, host = compose_interpolated(text, resolver or no_resolver)
    ctx = SplitContext(shell_stage(resolver, shell, host), None, go, defaults)
    if script is not None:  # a shell reads the text itself (SkyPilot's `run:`), defaults taken or not
        ctx.script = script
    ctx.sourcer, ctx.positional = sourcer, positional  # positional: a script file's "$@", when it is known
    ctx.bash = text.startswith("#!") and "bash" in text[:text.find("\n")]  # (shell_unset.py)
    ctx.source = text if base is None else None
    items, problems = lex(text, base, k8s=k8s, go=go)
    ctx.problems.extend(SplitProblem(m, s, e) for m, s, e in problems)
    try:
        commands = _build_commands(items, ctx, 0)
    except Exception as exc:  # defensive: odd input must never crash a lint run
        ctx.problems.append(SplitProblem(f"internal splitter error: {exc!r}", 0, len(text)))
        commands = []
    return SplitResult(tuple(commands), tuple(ctx.refs), tuple(ctx.problems), frozenset(ctx.unsure))

