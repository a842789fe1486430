"""`apptainer exec|run [options] IMAGE ...` (and `singularity`, its former name): where the image is, whether
`--cleanenv` keeps the host's environment out, and the `--env NAME=value` the container gets.

The image is the first word after the subcommand that is neither an option nor an option's value; the root
command stops reading options at the first other word (`apptainerCmd.Flags().SetInterspersed(false)`), so the
words after the image are the container's command (`exec`: args[0] is the image, args[1:] what runs;
apptainer/apptainer@917d66577963ca297352a22e13c86f1748ddc645:cmd/internal/cli/apptainer.go, actions.go ExecCmd).
Which options take a value is the flags' own declaration (a `cmdline.Flag` whose DefaultValue is not a bool),
of those registered for the action commands (cmd/internal/cli/action_flags.go, apptainer.go `common*Flag`,
`docker*Flag`) and of the root command (apptainer.go `singConfigFileFlag`: `-c`/`--config`), at that commit.
"""
from __future__ import annotations

from typing import Optional, Sequence

from ..records import record

PROGRAMS = ("apptainer", "singularity")
_VALUE_OPTIONS = frozenset({
    "--add-caps", "--app", "--apply-cgroups", "--bind", "--blkio-weight", "--blkio-weight-device", "--cdi-dirs",
    "--containlibs", "--cpu-shares", "--cpus", "--cpuset-cpus", "--cpuset-mems", "--cwd", "--device", "--dns",
    "--drop-caps", "--env", "--env-file", "--fusemount", "--home", "--hostname", "--memory", "--memory-reservation",
    "--memory-swap", "--mount", "--netns-path", "--network", "--network-args", "--no-env", "--no-mount", "--overlay",
    "--pids-limit", "--pwd", "--runscript-timeout", "--scratch", "--security", "--tmpdir", "--workdir",
    "--authfile", "--pem-path", "--docker-host", "--docker-password", "--docker-username",
    "--config"})  # the root command's, before the subcommand
_VALUE_SHORT = frozenset("BHoSW")  # -B bind, -H home, -o overlay, -S scratch, -W workdir (-c is --contain here)


@record(frozen=True)
class ContainerLine:
    image: int  # index of the image word
    subcommand: str  # "exec" or "run"
    cleanenv: bool = False  # `--cleanenv`/`-e`: only `--env` and APPTAINERENV_* reach the container
    env: tuple = ()  # (index, offset): the words holding `NAME=value` given by `--env`, where the value starts


def parse_container(texts: Sequence[str]) -> Optional[ContainerLine]:
    """The image of `apptainer [root options] exec|run [options] IMAGE ...` (indexes into `texts`), or None."""
    if not texts or texts[0].rsplit("/", 1)[-1] not in PROGRAMS:
        return None
    i, sub = 1, None
    while i < len(texts) and sub is None:  # root options: -d, -q, -s, -v, --nocolor, -c FILE
        t = texts[i]
        if t in ("exec", "run"):
            sub = t
        elif t in ("-c", "--config"):
            i += 1
        elif not t.startswith("-"):
            return None  # another subcommand (pull, build, instance, shell...)
        i += 1
    if sub is None:
        return None
    cleanenv, env = False, []
    while i < len(texts):
        t = texts[i]
        if t == "--":
            i += 1
            break
        if t.startswith("--"):
            name, eq, _ = t.partition("=")
            cleanenv = cleanenv or name == "--cleanenv"
            if name == "--env":
                env.append((i, len("--env=")) if eq else (i + 1, 0))
            i += 2 if name in _VALUE_OPTIONS and not eq else 1
            continue
        if t.startswith("-") and len(t) > 1:  # switches, and at most one value option, last: `-eB /a:/b`
            for k in range(1, len(t)):
                if t[k] in _VALUE_SHORT:
                    i += k == len(t) - 1  # its value is the next word, unless glued on
                    break
                cleanenv = cleanenv or t[k] == "e"
            i += 1
            continue
        break
    if i >= len(texts):
        return None
    return ContainerLine(i, sub, cleanenv, tuple((k, at) for k, at in env if k < i))


def container_env(tokens: Sequence, line: ContainerLine, env_type) -> list:
    """The `--env NAME=value` of the line (as `env_type(name, token)`, the token holding `NAME=value`). `--env`
    is a map flag: `A=1,B=2` sets both (pflag's StringToString reads comma-separated pairs)."""
    out = []
    for k, at in line.env:
        t = tokens[k]
        cut = at
        for piece in t.text[at:].split(","):
            name, eq, _ = piece.partition("=")
            if eq and name.isidentifier():
                end = cut + len(piece)
                out.append(env_type(name, type(t)(piece, t.start, t.end, t.starts[cut:end], t.ends[cut:end],
                                                  t.refs, t.item)))
            cut += len(piece) + 1
    return out


def unknown_runscript(texts: Sequence[str]) -> Optional[tuple[int, str]]:
    """(the image's index, what to say) for `apptainer run IMAGE ARGS` whose ARGS hold an engine's checked flags
    (the model, context, pool, memory, parallel sizes) while the image's runscript is not known to start that
    engine (container_runs.runscript took those it is): the flags were written for an engine, what runs them is
    unknown."""
    line = parse_container(texts)
    if line is None or line.subcommand != "run":
        return None
    from .detect import ENGINE_COMMANDS, _CHECKED_TAGS
    from .specs import spec_for

    typed = [t.split("=", 1)[0] for t in texts[line.image + 1:] if t.startswith("--")]
    for engine in ("vllm", "sglang", "trtllm", "lmdeploy", "llamacpp", "tgi"):
        spec = spec_for(engine)
        flags = [t for t in typed if (f := spec.find(t)[0]) is not None and set(f.tags) & _CHECKED_TAGS]
        if flags:
            return line.image, (
                f"`{texts[0].rsplit('/', 1)[-1]} run` runs the image's runscript, which ctxlint does not read, so "
                f"{', '.join(dict.fromkeys(flags))} are not read as any engine's flags and this launch is not "
                f"checked; state the program (`{texts[0].rsplit('/', 1)[-1]} exec IMAGE "
                f"{ENGINE_COMMANDS.get(engine, engine)} ...`)")
    return None
