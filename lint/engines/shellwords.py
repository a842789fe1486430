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

from contextlib import nullcontext
from typing import Callable, Optional

from ctxlint.lazyre import lazy_compile

from ..records import replace
from .command_prefixes import exec_option_words
from .container_scripts import own_shell
from .compose_pass import compose_interpolated, shell_stage
from .heredoc_scripts import body_commands
from .heredocs import HereBody
from . import branches
from .lex_words import Word
from .lexer import lex
from .shell_commands import and_or_reader, command_groups, literal, may_update, run_apart
from .simple_commands import MAX_DEPTH as _MAX_DEPTH, command_from_words
from .tokens import Command, Resolver, SplitProblem, SplitResult
from .word_expansion import SplitContext, expand_word, no_resolver

_ASSIGNMENT = lazy_compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")  # a `NAME=value` prefix word's head
_FD_NAME = lazy_compile(r"\{[A-Za-z_][A-Za-z0-9_]*\}")  # `exec {fd}>FILE`: the redirection's variable, no command
_LEADS = frozenset({"do", "then", "else", "{", "!"})  # reserved words a command may follow on the same line
# their condition or word list runs (is expanded) at least once, where the compound command stands; so is a `case`
# word, before any pattern is matched (bash 5.2.15: `case "${L:?x}" in` of an L "" exits)
_LOOP_HEADS = frozenset({"while", "until", "for", "select", "case"})


def _build_commands(items: list[object], ctx: SplitContext, depth: int) -> list[Command]:
    commands: list[Command] = []
    groups, arith, blocking, subshells, ends, redirects = command_groups(items)
    # `false && { ...; }`: what runs after `&&`/`||` (and_or.py); `true > /x/y || ...`: a redirection may fail
    groups, andor = and_or_reader(groups, ends, frozenset(redirects.risky) if redirects else frozenset())
    skipped: set = set()  # the groups bash never runs: a here-document fed to one of them is not read either
    if subshells:
        from .subshells import Mark, passed

    background, piped = run_apart(ends, groups)
    jobs = None
    if background or piped:  # what a job or a pipeline's element assigns stays in its process (apart_state.py)
        from .apart_state import ApartJobs

        jobs = ApartJobs(ends, groups, "lastpipe" in (ctx.source or ""))
    for index, (words, conditional) in enumerate(groups):
        if ctx.exited or ctx.call_ended:
            break  # an `exit` ran, or the function's `return`: nothing after it does (script_exits.py)
        jobs and jobs.close_before(index, ctx)
        if ctx.discard is not False:  # after a failed readonly assignment (shell_readonly.py, imported only then)
            from .shell_readonly import discard_step

            conditional = discard_step(ctx, groups, index, depth, conditional)
        final = andor.final if andor is not None else None  # the and-or list before this group: an `if`'s condition?
        if andor is not None and (conditional := andor.step(index, conditional, ctx)) is andor.SKIP:
            skipped.add(index)
            continue  # bash never runs it: `false && ...`
        if conditional is None:
            if subshells and isinstance(words, Mark):  # a subshell's `(` or `)`: state put back at `)`
                passed(words, ctx)
                ctx.subshells += 1 if words.opens else -1
            elif not isinstance(words, HereBody):  # a definition, unless in a job's or pipeline's own subshell
                # (bash 5.2.15: `f() { L=1; } &` defines none) or in a branch bash never runs (`if false; then f()
                # { ...; }; fi; f` runs no f: decided_tests.py)
                if index not in background and index not in piped and not any(e[5][0] for e in ctx.local.ifs):
                    ctx.functions[words.name] = words  # type: ignore[attr-defined]
            elif depth < _MAX_DEPTH and not (skipped and skipped.issuperset(redirects.owners.get(index, (None,)))):
                commands.extend(own_shell(ctx, lambda: body_commands(words, ctx, depth, expand_word, split_text),
                                          False))
            continue
        first = literal(words[0]) if words else ""
        if first == "case":  # a plain `case` whose arms are read as the `if` it runs as (case_arms.py)
            from .case_arms import read_as_if
            if read_as_if(groups, ends, index, ctx):
                words = groups[index][0]
                first = literal(words[0])  # `:` (the word), or `if` of a `case` on one line
        if first in ("then", "else", "do") and len(words) > 1 and (index in arith or "let" in (
                literal(words[1]), len(words) > 2 and literal(words[1]) in ("builtin", "command") and literal(words[2]))):
            # `then let L=7`, or a `case` arm whose list starts with `(( ))` read as a branch (case_arms.py): the
            # keyword turns the branch first, then the arithmetic command runs in it, as any command there does
            if final is not None and first == "then":
                from .if_conditions import decide_at_then
                decide_at_then(final, index, ctx)
            branches.flow_step(first, words, ctx)
            words = words[1:]
            first = literal(words[0])
        # `builtin let` and `command let` run the same builtin
        let = 2 if first in ("builtin", "command") and len(words) > 1 and literal(words[1]) == "let" else \
            1 if first == "let" else 0
        if index in arith or let and len(words) > let:  # `(( L++ ))`, `let L=L*2`: assigns, runs nothing
            from .arith_commands import arith_command, null_exits, raw
            text, sure, semis = arith[index] if index in arith else ("", True, ())
            jobs and jobs.opens(index, words, ctx)  # `(( L=6 )) && L=7 &`: one job from the `(( ))`
            before = groups[index - 1][0] if index and isinstance(groups[index - 1][0], list) else None
            head = literal(before[-1]) if index in arith and before else ""  # `for ((`, `while ((`: a loop's head
            if not ctx.discard and null_exits(words[let:], semis if head == "for" else (), ctx) and \
                    not conditional and index not in background and index not in piped:
                from .script_exits import exit_here
                exit_here(ctx, head in ("for", "while", "until"))  # nothing after it runs
                continue
            ctx.discard or arith_command([text] if index in arith else [raw(w) for w in words[let:]],
                          ctx, ctx.flow > 0 or bool(conditional) or not sure)
            continue
        at = 0
        # `if [ -n "$A" ]; then`: the test is the whole condition only when `then` follows it; `if A || B`,
        # `if A && B`, `if A; B` are decided by more than one command (decided_tests.py)
        after = groups[index + 1] if index + 1 < len(groups) else None
        ctx.lone_test = after is not None and after[1] is False and bool(after[0]) and literal(after[0][0]) == "then" \
            and not (redirects and index in redirects.risky)  # `if true > /x/y; then`: fails (redirect_status.py)
        ctx.skippable = bool(conditional)  # `grep -q x f && if ...`: the `if` whole may not run (branches.if_step)
        # `do case $1 in`, `then if [ ... ]`, `else if`: after `do`, `then` or `else` (each opens a list of
        # commands) the next word is a command's first word, where bash recognises a reserved word (bash manual,
        # Reserved Words), so it may open a compound command of its own: both are followed here, or the `case`
        # would not count and its `esac` would close the loop around it early (a value set in the loop read as sure).
        if final is not None and first == "then":  # `if true && L=35; then`: decided (if_conditions.py)
            from .if_conditions import decide_at_then
            decide_at_then(final, index, ctx)
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
        apart = index in background or index in piped
        # a redirection that may fail runs nothing of the command (bash 5.2.15: `exit 0 2>/nonexistent/x` goes
        # on, status 1): an `exit` there, or in the function it calls, may not run (script_exits.py)
        risky = bool(redirects and index in redirects.risky)
        ctx.subshells += apart or risky
        # (the flag of the command a nested reading is part of, `bash -c "...${A:?msg}..."`, is kept for it)
        outer_error, ctx.null_error = ctx.null_error, False
        read = _read_command(words, ctx, depth, conditional, apart)
        ctx.subshells -= apart or risky
        ended = ctx.null_error is True  # `${A:?msg}` of an A set to "": the shell exits there, the command never runs
        in_worlds = ctx.null_error if isinstance(ctx.null_error, list) else None  # ... in these worlds only
        ctx.null_error = outer_error
        if ended:
            read = []
        if first == "return" and ctx.return_marks and not apart:  # what follows it in the function may not run
            from .script_exits import returned_here
            returned_here(ctx, conditional or risky)
        # a sure `exit`, or `exec CMD` (the shell becomes CMD, which is still read): nothing after it runs
        stops = (first == "exit" or _exec_args(words, at, ctx) or ended) and not conditional \
            and not apart and not risky and (ended or first not in ctx.functions)
        if index in background or index in piped:  # its own subshell: what it assigns, or fails, stays there
            ctx.discard = False
        elif updated:
            from .arith_commands import apply_updates

            apply_updates(updated, words, ctx, ctx.flow > 0 or bool(conditional))
        if index in background:
            read = [replace(c, background=True) for c in read]
        if not any(entry[5][0] for entry in ctx.local.ifs):  # a branch bash never runs starts nothing
            commands.extend(read)  # (decided_tests.py); what it assigns is dropped by scalar_branches.py
        if stops:
            from .script_exits import exit_here
            exit_here(ctx, ended and first in _LOOP_HEADS)
        elif in_worlds and not (conditional or apart or risky):
            from .script_exits import exit_worlds
            exit_worlds(ctx, in_worlds)
        if index in blocking and not (ctx.flow or conditional or ctx.frames):
            break  # the script waits here for ever: nothing after it runs (`sleep infinity && vllm serve ...`)
    jobs and jobs.close_all(ctx)
    return commands


def _exec_args(words: list[Word], at: int, ctx: SplitContext) -> bool:
    """Is the command at `at` a sure `exec CMD`: `exec` itself, after `NAME=value` prefixes (`CUDA_VISIBLE_DEVICES=0
    exec vllm ...`) or `command`/`builtin` (each runs the builtin, which replaces the shell: bash 5.2.15 runs nothing
    after `command exec vllm ...` or `N=1 exec vllm ...`)?"""
    i = at
    while i < len(words) and _ASSIGNMENT.match(_head(words[i])):
        i += 1
    while i < len(words) and literal(words[i]) in ("command", "builtin"):
        i += 1
    return i < len(words) and literal(words[i]) == "exec" and "exec" not in ctx.functions and \
        _execs(words[i + 1:], ctx)


def _head(word: Word) -> str:
    """The word's leading unquoted literal text (`N=` of `N=$X`)."""
    part = word.parts[0] if word.parts else None
    return part.runs[0][0] if part is not None and part.kind == "lit" and not part.quoted and part.runs else ""


def _execs(args: list[Word], ctx: SplitContext) -> bool:
    """Does `exec ARGS` surely replace the shell? It does when it names a command (bash manual, Bourne Shell
    Builtins, exec: "If command is supplied, it replaces the shell without creating a new process"; one it cannot
    execute exits a non-interactive shell, unless `execfail` is set), so nothing after it runs. Not with no
    command (`exec > log 2>&1` only redirects), nor where the command word may expand to nothing (`exec "$@"`,
    `exec $CMD`)."""
    i = exec_option_words([literal(a) for a in args])
    if i is None or i >= len(args) or "execfail" in (ctx.source or ""):
        return False
    word = args[i]
    text = literal(word)
    if text.startswith("-") and text != "-" or _FD_NAME.fullmatch(text):
        # `{fd}` of a `{fd}>FILE` redirection, or a word read as no option above: not a sure exec
        return False
    return bool(word.parts) and all(p.kind == "lit" for p in word.parts) and \
        bool("".join(run[0] for p in word.parts for run in p.runs))


def _read_command(words: list[Word], ctx: SplitContext, depth: int, conditional, apart: bool) -> list[Command]:
    """The commands a simple command runs, each marked with the part of an `if` it is in, and what its `${L:=d}`
    assign (default_assigns.py); an `if`'s own condition is read as in front of the `if` (branches.outside)."""
    arm, ctx.assigning = ctx.local.branches.arm(), []
    with branches.outside(ctx) if arm is not None and arm[1] == 0 and branches.in_condition(ctx) else nullcontext():
        read = command_from_words(words, ctx, depth)
        if ctx.assigning:
            from .default_assigns import assign
            assign(ctx, conditional, apart)
    ctx.assigning = None
    return branches.in_arm(read, arm)


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

