"""The script a shell of its own runs: `sh -c SCRIPT` (shell_script), and the one a container's shell runs, `docker
run [opts] IMAGE sh -c SCRIPT` and `apptainer exec --cleanenv [opts] IMAGE bash -c SCRIPT` (apptainer.py), a tmux
pane's (tmux.py) or another host's, `ssh HOST SCRIPT` (ssh_commands.py). Their
`$X` are the container's, which only its command line sets (`-e NAME=value`, apptainer's `--env` and the host's
APPTAINERENV_NAME), not the host script's variables; a double-quoted script the host's shell expands first. Apart
from shellwords.py, which asks `script_index` of every command and calls `shell_script` only for such a line.
"""
from __future__ import annotations

from typing import Callable, Optional

from .command_prefixes import launched_hop, shell_script_index
from .decided_tests import hiding
from .outer_expansion import restored, script_of
from .tokens import Command, EnvAssign, Token
from .word_expansion import SplitContext


def script_index(tokens: list[Token]) -> Optional[int]:
    """The script word of `sh -c SCRIPT` (behind a wrapper too), or of `docker run ... IMAGE sh -c SCRIPT`."""
    found = shell_script_index(tokens)
    if found is not None or not tokens:
        return found
    program = tokens[0].text.rsplit("/", 1)[-1]
    if program in ("apptainer", "singularity"):  # `--cleanenv`: a container's script (shell_script_index)
        from .apptainer import parse_container

        line = parse_container([t.text for t in tokens])
        inner = shell_script_index(tokens[line.image + 1:]) if line is not None and line.subcommand == "exec" \
            else None
        return line.image + 1 + inner if inner is not None else None
    if program == "tmux":  # a pane's shell command or a typed line: tmux.py
        from .tmux import pane_script_index
        return pane_script_index([t.text for t in tokens])
    hop = 0 if program in ("ssh", "pdsh") else launched_hop([t.text for t in tokens])
    if hop is not None:  # the remote shell's command (ssh_commands.py), behind `srun`/`mpirun` too
        from .ssh_commands import remote_script_index
        inner = remote_script_index([t.text for t in tokens[hop:]])
        return hop + inner if inner is not None else None
    if program not in ("docker", "podman", "nerdctl"):
        return None
    from .images import image_entrypoint_is_engine  # only a `docker run` line asks
    from .docker_run import docker_script_index
    return docker_script_index(tokens, shell_script_index, image_entrypoint_is_engine)


def container_script(program: list[Token], idx: int, base, ctx: SplitContext, depth: int, outer_dq: bool,
                     wrappers: list[str], shell: str, split_text: Callable) -> list[Command]:
    """A script a container's shell runs. Double-quoted, the host's shell expanded it first (its variables);
    otherwise its `$X` are the container's, which only `-e NAME=value` sets here. Its commands carry that
    environment (not the host's `NAME=value docker run` prefixes, which stay on the host)."""
    texts = [t.text for t in program]
    exported: tuple = ()
    pane = texts[0].rsplit("/", 1)[-1] == "tmux"
    remote = texts[0].rsplit("/", 1)[-1] in ("ssh", "pdsh") or launched_hop(texts) is not None
    if pane:  # a pane's shell: the tmux server's environment (tmux.py)
        from .tmux import pane_environment

        container_env, values, image, gpus, exported = [], {}, None, False, pane_environment(ctx)
    elif remote:  # another host's shell: none of this script's variables (ssh_commands.py)
        container_env, values, image, gpus = [], {}, None, False
    elif texts[0].rsplit("/", 1)[-1] in ("apptainer", "singularity"):  # `exec --cleanenv`: apptainer.py
        from .apptainer import container_env as apptainer_env, parse_container

        line = parse_container(texts)
        container_env = apptainer_env(program, line, EnvAssign)
        image, gpus = program[line.image], any(t in ("--nv", "--rocm") for t in texts[:line.image])
        # besides `--env`, a host variable APPTAINERENV_NAME (SINGULARITYENV_NAME) sets NAME in the container
        host = ctx.lookup if ctx.exports else (lambda name: None)
        passed = {a.name: (None if a.token.unresolved else a.value) for a in container_env}
        values = _Passed(passed, lambda name: host("APPTAINERENV_" + name) or host("SINGULARITYENV_" + name))
    else:
        from .docker_run import docker_env, parse_run, requested_gpus, requests_accelerator

        container_env = docker_env(program, EnvAssign)
        values = {a.name: (None if a.token.unresolved else a.value) for a in container_env}
        run = parse_run(texts)
        image = program[run.image] if run is not None else None  # its tag is the engine's release, as for IMAGE ARGS
        gpus = requested_gpus(program) or requests_accelerator(texts)
    # what the script's `$X` read is the container's: its `-e` variables (a double-quoted script the host's shell
    # expanded first, so only what it left, `\$LEN`, is the container's to expand)
    own = SplitContext(values.get, ctx.item, ctx.go)
    own.outside = "tmux" if pane else "ssh" if remote else ""  # why a `$X` the string does not set is not known
    from .outer_expansion import restored, script_of
    from .shell_set import c_string_words

    own.positional = c_string_words(program, idx)  # `docker run IMAGE sh -c SCRIPT _ a b`: its `$@` is a b
    # double-quoted, the host expanded it (shellwords: the word is expanded as the host's shell does) and the
    # container's shell reads the result, quotes inside a value included (`CMD="vllm serve \"$M\""`; sweep 42)
    text, base, marks = script_of([program[idx]]) if outer_dq else (program[idx].text, base, {})
    inner = restored(split_text(text, base, own, depth + 1), marks)
    ctx.refs.extend(own.refs)
    ctx.problems.extend(own.problems)
    return [Command(c.tokens, tuple(container_env) + c.env, tuple(wrappers) + (shell,) + c.wrappers, image,
                    _over(exported, c.exported), image_gpus=gpus, branch=c.branch, background=c.background)
            for c in inner]


def _over(outer: tuple, own: tuple) -> tuple:
    """The pane's variables: the script's exported ones as not known, but for those the string exports itself."""
    if not outer:
        return own
    names = {a.name for a in own}
    return tuple(a for a in outer if a.name not in names) + own


def shell_script(program: list[Token], idx: int, script_word, outer: bool, env: list[EnvAssign], wrappers: list[str],
                 ctx: SplitContext, depth: int, split_text: Callable) -> list[Command]:
    """The commands of the script `sh -c SCRIPT` runs (`program[idx]`, typed as `script_word`; `outer`: a shell
    expanded it first, outer_expansion.py), in a child shell with its own `$@`, or in a container's shell
    (container_script). Apart from shellwords.py, which calls it for a command whose script_index is known."""
    script = program[idx]
    shell = " ".join(t.text for t in program[:idx])
    base = list(zip(script.starts, script.ends))
    # a script shell's double-quoted `-c` string: that shell expands it first (compose splits its string
    # without a shell, Kubernetes passes list items as they are)
    outer_dq = script_word.dq and (depth > 0 or ctx.script)
    if shell_script_index(program) is None:  # `docker run ... IMAGE sh -c SCRIPT`: the container's shell
        return container_script(program, idx, base, ctx, depth, outer_dq, wrappers, shell, split_text)
    text, base, marks = script_of([script]) if outer else (script.text, base, {})
    from .shell_set import c_string_words, with_words  # its own `$@`, not the outer (shell_set.py)

    # the child shell sees the outer script's names only when exported, and a prefix's (decided_tests.py)
    hidden = hiding(ctx, [a.name for a in env] + list(ctx.local))
    kept = _unexported(ctx, {a.name for a in env})
    # what the child assigns (`M=8`, `: ${M:=8}`, an exported name's new value) stays in it: the names it spells
    # are put back after it is read, as a here-document's a shell reads are (apart_state.body_marks)
    from .apart_state import body_marks
    from .subshells import passed

    opening, closing = body_marks(text)
    passed(opening, ctx)
    try:
        inner = with_words(ctx, c_string_words(program, idx), lambda: split_text(text, base, ctx, depth + 1))
    finally:
        ctx.undecided = hidden
        passed(closing, ctx)
        _put_back(ctx, *kept)
    inner = restored(inner, marks)
    return [Command(c.tokens, tuple(env) + c.env, tuple(wrappers) + (shell,) + c.wrappers, None, c.exported,
                    c.arm, branch=c.branch, background=c.background) for c in inner]


def _unexported(ctx: SplitContext, prefixed: set) -> tuple:
    """Take out of the script's variables, while the child shell's script is read, those it does not get: set by the
    script, never exported (nor under `set -a`), not a prefix of the call, and not from the environment (whose
    variables a shell exports). Bash gives a child only the exported ones (shell_exports.py), so `LEN=8; bash -c
    'echo $LEN'` prints an empty line; here such a `$LEN` is not known (why "unexported"), as one never set is.
    Returns what `_put_back` restores: the child's own assignments never reach its parent."""
    if ctx.allexport is not False:
        return {}, ctx.unexported
    local = ctx.local
    names = [n for n in local if n not in prefixed and n not in ctx.exports and not _environ(ctx, n)]
    saved = {n: (dict.pop(local, n), local.partial.pop(n, None), local.scoped.pop(n, None)) for n in names}
    before = ctx.unexported
    ctx.unexported = before | frozenset(names)
    return saved, before


def _environ(ctx: SplitContext, name: str) -> bool:
    """Does the resolver (a container's environment, ...) give the name? A shell exports what it inherits."""
    try:
        return isinstance(ctx.resolver(name), str)
    except Exception:  # a caller's resolver must not crash the linter (SplitContext.lookup)
        return False


def _put_back(ctx: SplitContext, saved: dict, before: frozenset) -> None:
    local = ctx.local
    for name, (value, partial, scoped) in saved.items():
        dict.__setitem__(local, name, value)
        for part, held in ((local.partial, partial), (local.scoped, scoped)):
            part.pop(name, None)
            if held is not None:
                part[name] = held
    ctx.unexported = before


class _Passed(dict):
    """A container's variables: those given on its command line, then those `more(name)` passes from the host."""

    def __init__(self, given: dict, more: Callable[[str], Optional[str]]) -> None:
        super().__init__(given)
        self.more = more

    def __contains__(self, name: object) -> bool:
        return dict.__contains__(self, name) or isinstance(name, str) and self.more(name) is not None

    def __getitem__(self, name: str) -> Optional[str]:
        return dict.get(self, name) if dict.__contains__(self, name) else self.more(name)

    def get(self, name: str, default=None):
        return self[name] if name in self else default


def own_shell(ctx: SplitContext, run: Callable[[], list], fresh: bool = True) -> list:
    """The commands of a text another shell process runs (`bash -c`, a here-document fed to a shell or written as a
    script, `bash serve.sh`, a container's `sh -c`): a failed assignment there ends that process's command, never
    the caller's (shell_readonly.py); and bash passes no readonly attribute to a child (a readonly L, exported or
    not, is assigned there: `bash -c 'L=5; echo $L'` prints 5, bash 5.2.15, checked; so does a script file run
    by `bash FILE`, which reads its own variables, script_calls.py). `fresh`: the text starts without the caller's
    readonly names; otherwise (a here-document: its assignments are still read as the caller's) each is one that
    may be readonly, so an assignment to it there is unknown, never a failure that drops the rest of that text (it
    was, before: its launch was lost). An `exit` there ends that shell only (script_exits.py)."""
    readonly, discard, subshells = ctx.readonly, ctx.discard, ctx.subshells
    ctx.readonly, ctx.discard = {} if fresh else dict.fromkeys(readonly, False), False
    ctx.subshells = 0  # an `exit` there ends that shell, never the caller (script_exits.py)
    try:
        return run()
    finally:
        ctx.readonly, ctx.discard, ctx.subshells, ctx.exited = readonly, discard, subshells, False
