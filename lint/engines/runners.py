"""Programs that run a command their own arguments spell, and where that command's program is.

A command's engine is the program it runs: its first word (after the prefixes command_prefixes.strip_prefixes
drops: `exec`, `env`, `sudo`, `NAME=value`...), or the program a runner in front of it runs. The arguments of any
other program are data: `systemctl enable llama-server`, `pkill -f trtllm-serve`, `cmake --target llama-server`
start nothing (sweep 43). `runs(texts, i)` says where the program that texts[i] runs is:

* an index: the one word that is the program (`docker run [opts] IMAGE PROGRAM`, `apptainer exec [opts] IMAGE
  PROGRAM`, a wrapper script `entrypoint.sh PROGRAM ...`, an unresolved word such as `$LAUNCHER`, `-- PROGRAM`);
* SCAN: a launcher whose own options ctxlint does not list (srun, mpirun and their like): any later word may be
  the program, as detect read every word before;
* NOTHING: a runner that exits at its own options (`timeout --v 60 vllm serve ...`: ambiguous), running nothing;
* None: texts[i] is no runner.
"""
from __future__ import annotations

from typing import Optional, Sequence

SCAN = -1
NOTHING = -2  # a runner whose own options make it exit before it runs the command (`timeout --v 60 CMD`)
# Launchers and process wrappers that run the command after their options: Slurm's and MPI's launchers, the
# process wrappers of command_prefixes._PASSING_WRAPPERS, init shims, profilers, and TensorRT-LLM's MPI launcher,
# which runs `$task_with_command`, its arguments
# (NVIDIA/TensorRT-LLM@020c89e64e49f24102f1b62be96a1a68283cdf7a:tensorrt_llm/llmapi/trtllm-llmapi-launch).
_LAUNCHERS = frozenset({
    "srun", "mpirun", "mpiexec", "orterun", "jsrun", "aprun", "prun", "flux", "torchrun", "timeout", "numactl",
    "setsid", "taskset", "nice", "ionice", "stdbuf", "time", "chrt", "xargs", "watch", "flock", "prlimit",
    "dumb-init", "tini", "gosu", "su-exec", "catchsegv", "strace", "ltrace", "nsys", "ncu", "valgrind",
    "unbuffer", "systemd-run", "trtllm-llmapi-launch", "uvx", "doas", "runuser", "sg", "chroot",
    # privilege, namespace and sandbox wrappers, HPC container runners (`shifter --image=IMG CMD`, `ch-run IMG --
    # CMD`, `enroot start IMG CMD`) and `scl enable COLL -- CMD`, `ip netns exec NS CMD`: each runs the command
    # its arguments end with (review: `chpst -u svc llama-server ...` was dropped once only runners counted)
    "chpst", "s6-setuidgid", "setpriv", "nsenter", "unshare", "firejail", "systemd-inhibit", "shifter", "ch-run",
    "enroot", "scl", "ip", "caffeinate", "cgexec",
    # parallel remote shells, their command on other hosts (ssh_commands.REMOTE_RUNNERS)
    "pdsh", "clush"})
# Environment managers whose `run` subcommand runs the command after its options: `uv run vllm serve ...`,
# `conda run -n env python -m sglang.launch_server ...`.
_RUN_SUBCOMMAND = frozenset({"uv", "conda", "mamba", "micromamba", "pixi", "poetry", "pdm", "hatch", "rye",
                             "pipx", "docker-compose"})
# Programs that run what follows their `--`: `ray job submit ... -- vllm serve`, `kubectl exec POD -- CMD`.
_AFTER_DASHES = frozenset({"ray", "kubectl", "oc"})


# Programs that print, log or test their arguments and run none of them: a launcher that runs one runs no engine
# (`srun echo ssh node2 vllm serve ...` prints the words; bash 5.2.15 with srun an echo-like wrapper: nothing starts)
_DATA_PROGRAMS = frozenset({"echo", "printf", "logger", "true", "false", "test", "[", "which", "whereis"})


def scan_end(texts: Sequence[str], i: int) -> int:
    """Where the words a SCAN launcher (texts[i]) may run end: at a program of _DATA_PROGRAMS that is surely the
    launcher's program or an argument of the program it runs: right after the launcher, or after a word that takes
    no value from the next one (no option, `mpirun -np 2 echo ...`, or one with its value, `srun -N1 echo`,
    `--nodes=1`); `srun -J echo vllm serve` may name its job `echo`, `srun --job-name echo ...` too."""
    for k in range(i + 1, len(texts)):
        before = texts[k - 1]
        valued = before[:1] == "-" and (len(before) == 2 or before[:2] == "--" and "=" not in before)
        if texts[k].rsplit("/", 1)[-1] in _DATA_PROGRAMS and (k == i + 1 or not valued):
            return k
    return len(texts)


def runs(texts: Sequence[str], i: int, unknown: frozenset) -> Optional[int]:
    """Where the program that texts[i] runs is: its index, SCAN, or None (texts[i] runs no other program)."""
    if i in unknown:
        return i + 1  # a program ctxlint cannot name (`$LAUNCHER`, `$SUDO`): a wrapper's next word is its program
    base = texts[i].rsplit("/", 1)[-1]
    if base in _LAUNCHERS:
        if base in ("timeout", "setsid") and i + 1 < len(texts) and texts[i + 1][:1] == "-":
            from .ssh_commands import refuses  # `timeout --v 60 CMD` runs nothing: an ambiguous option

            if refuses(texts, i):
                return NOTHING
        return SCAN
    nxt = texts[i + 1] if i + 1 < len(texts) else ""
    if base in _RUN_SUBCOMMAND:
        return SCAN if nxt == "run" or base == "docker-compose" and nxt == "exec" else None
    if base in ("docker", "podman", "nerdctl"):
        return _container(texts, i, nxt)
    if base in ("apptainer", "singularity"):
        from .apptainer import parse_container

        line = parse_container(texts[i:])
        return i + line.image + 1 if line is not None and line.subcommand == "exec" else None
    if base in _AFTER_DASHES:
        return next((k + 1 for k in range(i + 1, len(texts)) if texts[k] == "--"), None)
    if base.endswith((".sh", ".bash")) and "=" not in base:
        # a wrapper script given the command to run (`run-with-new-libstdc.sh python3 -m ...`, an image's
        # `entrypoint.sh vllm serve ...` ending in `exec "$@"`): its first argument is the program
        return i + 1
    return None


def run_verb(texts: Sequence[str]) -> Optional[int]:
    """Index of the verb of `docker [container] run|create ...` (podman, nerdctl: the same commands), or None.
    `create` takes run's options and `IMAGE [COMMAND] [ARG...]`, and `docker start` runs the container it made
    (docs.docker.com/reference/cli/docker/container/create/: "creates a new container from the specified image,
    without starting it"), so it is read as `run` is; `docker network create`, `buildx create` name no image."""
    for k in (1, 2):
        if k < len(texts) and (texts[k] == "run" or texts[k] == "create" and (k == 1 or texts[1] == "container")):
            return k
    return None


def _container(texts: Sequence[str], i: int, nxt: str) -> Optional[int]:
    """`docker run [opts] IMAGE PROGRAM ...`: the program after the image; `docker exec` and `docker compose
    run|exec`: after their options and the container or service, a word that ctxlint does not place (SCAN)."""
    if nxt in ("run", "create") or nxt == "container" and i + 2 < len(texts) and texts[i + 2] in ("run", "create"):
        from .docker_run import parse_run

        run = parse_run(texts[i:])
        return i + run.image + 1 if run is not None and run.entrypoint is None else None
    if nxt == "exec" or nxt == "compose" and i + 2 < len(texts) and texts[i + 2] in ("run", "exec"):
        return SCAN
    return None
