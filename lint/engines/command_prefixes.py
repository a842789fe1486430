"""What stands in front of a command's program, and where an `sh -c` script word is.

`strip_prefixes` drops the keywords, `exec`/`env`/`sudo`/`nohup` wrappers and `NAME=value`
assignments before the program, and `timeout`/`setsid`/`sshpass` in front of an `ssh`
(ssh_commands.py), keeping the assignments and wrapper names; and
`shell_script_index` finds the script operand of `sh [opts] -c [opts] SCRIPT`, behind a
launcher such as `srun` or `timeout` too. Both read tokens only, never the split state, which
is why they live apart from shellwords.py: exec-form lists (execform.py) and `docker run`
(docker_run.py) ask the same questions of their own tokens.
"""
from __future__ import annotations

from typing import Optional

from ctxlint.lazyre import lazy_compile

from .tokens import SHELLS, EnvAssign, Token

ASSIGN = lazy_compile(r"[A-Za-z_][A-Za-z0-9_]*=")
# Words that start a command without being its program.
_KEYWORDS = {"then", "do", "else", "elif", "if", "while", "until", "!", "{", "}", "time"}


def exec_option_words(texts: list[str]) -> Optional[int]:
    """How many of the words after `exec` are its options (`--` included), or None for one bash's exec does not
    take (it prints its usage and runs nothing, status 2: the shell goes on). bash reads `exec [-cl] [-a name]`
    with its getopt (builtins/exec.def: internal_getopt "cla:"), so options may be joined and -a's name is the rest
    of its word or the next word: bash 5.2.15 runs `echo` for `exec -la NAME echo`, `exec -aNAME echo`, `exec -cl --
    echo` and `exec -al echo` (-a's name is "l"), and nothing for `exec -lx echo` ("-x: invalid option")."""
    i = 0
    while i < len(texts):
        text = texts[i]
        if text == "--":
            return i + 1
        if not text.startswith("-") or text == "-":
            return i
        for at, letter in enumerate(text[1:], 1):
            if letter == "a":
                if at == len(text) - 1:  # the name is the next word
                    i += 1
                    if i >= len(texts):
                        return None  # "-a: option requires an argument"
                break
            if letter not in "cl":
                return None
        i += 1
    return i


def strip_prefixes(tokens: list[Token], env: list[EnvAssign], wrappers: list[str]) -> list[Token]:
    """Drop `exec`, `env A=B`, `nohup`, `sudo -E`... in front of the program."""
    i = 0
    while i < len(tokens):
        t = tokens[i].text
        if t == "command" and i + 1 < len(tokens) and tokens[i + 1].text in ("-v", "-V"):
            break  # `command -v vllm` looks the program up (shell_commands.no_command), it runs nothing
        if t == "builtin" and i + 1 < len(tokens) and tokens[i + 1].text == "exec":
            i += 1  # `builtin exec ...` is bash's own exec
        elif t in _KEYWORDS or t in ("exec", "nohup", "command"):
            if t not in ("{", "}", "!"):
                wrappers.append(t)
            i += 1
            if t == "exec":  # bash's `exec [-cl] [-a name] command`: -a takes the name argv[0] gets
                i += exec_option_words([tok.text for tok in tokens[i:]]) or 0
            if t in ("command", "time") and i < len(tokens) and tokens[i].text == "-p":
                i += 1  # `command -p vllm`: the program found on a default PATH; `time -p`: POSIX's output format
            if t in ("exec", "command", "nohup", "time") and i < len(tokens) and tokens[i].text == "--":
                i += 1  # the end of its options: the program follows (bash 5.2.15 `command -- echo RAN`,
                # `exec -a x -- echo RAN`, coreutils 9.1 `nohup -- echo RAN` each print RAN)
        elif t in ("env", "/usr/bin/env") or t == "sudo":
            wrappers.append(t)
            i += 1
            # env and sudo read their options up to the first operand (GNU env getopt "+C:iS:u:v0", sudo "+..."): a
            # `-u` or `--` after a NAME=value is the program (`env A=1 -- vllm` runs `--`). env's `-i` (`-`,
            # --ignore-environment) starts the program with only the assignments after it, `-u NAME` without NAME
            # (coreutils env(1)); sudo's -i and -u are a login shell and a user
            options = True
            while i < len(tokens) and (options and tokens[i].text.startswith("-") or ASSIGN.match(tokens[i].text)):
                w = tokens[i].text
                if ASSIGN.match(w):
                    env.append(EnvAssign(w.split("=", 1)[0], tokens[i]))
                    options = False
                elif w == "--":
                    options = False
                elif t != "sudo" and w in ("-i", "-", "--ignore-environment"):
                    env.clear()
                elif t != "sudo" and (w in ("-u", "--unset") and i + 1 < len(tokens) or w.startswith("--unset=")
                                      or w.startswith("-u") and len(w) > 2 and w[1:2] == "u"):
                    if w in ("-u", "--unset"):
                        i += 1
                        name = tokens[i].text
                    else:
                        name = w.split("=", 1)[1] if w.startswith("--unset=") else w[2:]
                    env[:] = [a for a in env if a.name != name]
                elif w in ("-u", "-C", "-g") and i + 1 < len(tokens):  # env -S's string is the command
                    i += 1  # option with a separate argument
                i += 1
        elif ASSIGN.match(t):
            env.append(EnvAssign(t.split("=", 1)[0], tokens[i]))
            i += 1
        elif t.rsplit("/", 1)[-1] in ("timeout", "setsid", "sshpass") and _runs_ssh(tokens, i):
            # `timeout 60 ssh HOST CMD`: the ssh is read as a bare one (ssh_commands.wrapped_command)
            from .ssh_commands import wrapped_command

            wrappers.append(t)
            i = wrapped_command([w.text for w in tokens], i)
        else:
            break
    return tokens[i:]


def _runs_ssh(tokens: list[Token], i: int) -> bool:
    """Does the wrapper tokens[i] run an `ssh` (behind more wrappers too: `timeout 60 sshpass -p PW ssh ...`)?"""
    from .ssh_commands import wrapped_command

    j = wrapped_command([t.text for t in tokens], i)
    rest = strip_prefixes(tokens[j:], [], []) if j is not None else []
    return bool(rest) and rest[0].text.rsplit("/", 1)[-1] == "ssh"


# Programs that run a command with the caller's environment: Slurm's and MPI's launchers (srun exports the
# whole environment by default), and process wrappers. Not ssh, docker or kubectl exec: their shell's
# variables are another machine's or container's.
_PASSING_WRAPPERS = frozenset({"srun", "mpirun", "mpiexec", "timeout", "numactl", "setsid", "taskset", "nice",
                               "ionice", "stdbuf", "time", "chrt"})


_HOPS = frozenset({"ssh", "pdsh"})  # programs whose command another host's shell runs (ssh_commands.py)


def launched_hop(texts: list[str]) -> Optional[int]:
    """Index of the `ssh` or `pdsh` a launcher in front of it runs (`srun ssh HOST "CMD"`, `mpirun -np 1 ssh HOST
    ...`, `taskset -c 0 ssh ...`: each runs its command after its options), the first such word before any shell's;
    None when texts[0] is no such launcher or runs none. timeout, setsid and sshpass before an ssh, and nohup, are
    strip_prefixes' own, so a hop behind them is already the command's program."""
    if not texts or texts[0].rsplit("/", 1)[-1] not in _PASSING_WRAPPERS - {"timeout", "setsid"}:
        return None  # a timeout or setsid whose options make it run nothing (`timeout -h`) runs no ssh: not read
    # the launcher runs its first operand: a word after a word that is neither an option nor an option's value
    # (`srun ./run.sh ssh HOST "CMD"` runs run.sh, whose argument the ssh is). Options' values are not listed: a word
    # after an option may be its value (`-np 1`); taskset's mask and chrt's priority are operands before the command,
    # their options flags (util-linux taskset.c getopt "+apchV", chrt.c's -f/-r/-b/-i/-d/-o and -p)
    positional = 1 if texts[0].rsplit("/", 1)[-1] in ("taskset", "chrt") else 0
    after_option = False
    for k in range(1, len(texts)):
        word = texts[k]
        if texts[k - 1] == "--" or word.rsplit("/", 1)[-1] in SHELLS | _HOPS:
            return k if word.rsplit("/", 1)[-1] in _HOPS else None
        if word[:1] == "-":
            after_option = word != "--" and not positional
        elif after_option:
            after_option = False
        elif positional:
            positional -= 1
        else:
            return None  # the launcher's program is this word, not an ssh
    return None


def shell_script_index(tokens: list[Token]) -> Optional[int]:
    """Index of the script word when tokens are `sh [opts] -c [opts] [--] SCRIPT ...`.

    As in bash/dash, -c only says "read commands from the first operand": the
    script is the first word that is not an option (`bash -lc -- "..."`).
    """
    if not tokens:
        return None
    if tokens[0].text.rsplit("/", 1)[-1] in _PASSING_WRAPPERS:
        # `srun --nodes=2 bash -c "..."`, `timeout 1h sh -c '...'`: the wrapper runs the shell with this
        # shell's environment, so the script is read as the wrapper's own (sweep 11: open-r1's serve_r1.slurm)
        j = next((k for k in range(1, len(tokens)) if tokens[k].text.rsplit("/", 1)[-1] in SHELLS | _HOPS), None)
        if j is not None and tokens[j].text.rsplit("/", 1)[-1] in _HOPS:
            return None  # `srun ssh HOST bash -c ...`: HOST's shell reads those words (launched_hop)
        inner = shell_script_index(tokens[j:]) if j is not None else None
        return j + inner if inner is not None else None
    if tokens[0].text.rsplit("/", 1)[-1] in ("apptainer", "singularity"):
        # `apptainer exec [opts] IMAGE bash -c "..."`: without --cleanenv the container gets the host's
        # environment, so the script reads as srun's; with it, as a container's (shellwords._container_script)
        from .apptainer import parse_container

        line = parse_container([t.text for t in tokens])
        if line is None or line.subcommand != "exec" or line.cleanenv:
            return None
        inner = shell_script_index(tokens[line.image + 1:])
        return line.image + 1 + inner if inner is not None else None
    if tokens[0].text.rsplit("/", 1)[-1] not in SHELLS:
        return None
    saw_c, i = False, 1
    while i < len(tokens):
        t = tokens[i].text
        if t == "--":
            i += 1
            break
        if t in ("-o", "+o"):
            i += 2
            continue
        if t.startswith("--") or (len(t) > 1 and t[0] in "-+" and t[1:].isalpha()):
            saw_c = saw_c or (t[0] == "-" and not t.startswith("--") and "c" in t[1:])
            i += 1
            continue
        break
    return i if saw_c and i < len(tokens) else None
