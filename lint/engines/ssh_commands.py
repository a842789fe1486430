"""A command ssh runs on another host: `ssh -f "$HOST" "cd ~/llama.cpp && nohup bash -c \\"${LAUNCH_CMD}\\" &"`
(sweep c28: miminashi/llm-server-ops starts every llama-server of its reports so, ~100 scripts under
report/attachment/*/start_*.sh). Before, the engine inside the one string was never seen: no role.

What ssh runs (openssh/openssh-portable@99a2df5e1994cdcb44ba2187b5f34d0e9190be91): ssh.c reads its options with
getopt(_OPTIONS), takes the first operand as the destination and, when words follow, reads options again from
there (`goto again`: `ssh host -f CMD` is `ssh -f host CMD`); the words left are the command, joined with single
spaces (`sshbuf_putf(command, "%s%s", i ? " " : "", av[i])`), and the server runs that text as
`$SHELL -c COMMAND` (session.c, do_child). Only one command word is read here, the shape scripts use; several
are joined into a new text that no word of this script types, not read. `-N` (no command), `-s` (a subsystem),
`-W` (forward stdio), `-O` (a control command), `-G`, `-V` and `-Q` (print and exit) run no shell command.

The remote shell does not run in this script's environment: ssh passes only the variables `SendEnv` names
(ssh_config(5)), none by default. So a double-quoted string is expanded by this script's shell before ssh gets
it (its values are known, as for `sh -c`), while inside the string a `$X` is the remote shell's: not known
(CTX008 says why, VarRef.why "ssh"), never this script's value taken as the remote one's.

A here-document fed to `ssh HOST CMD` is a script when CMD starts a shell that reads its stdin (`sudo -i`, `su`):
login_shell, which heredocs.read_as_script asks only on an ssh line, after it imports this module for
command_start; kept here, not in heredocs.py, so the lexer's path loads it only then.
"""
from __future__ import annotations

import re
from typing import Optional, Sequence

from .tmux import _operands as getopt_operands  # the same getopt walk (tmux.py)

# ssh.c main(): getopt(ac, av, "1246ab:c:e:fgi:kl:m:no:p:qstvx" "AB:CD:E:F:GI:J:KL:MNO:P:Q:R:S:TVw:W:XYy")
_OPTIONS = "1246ab:c:e:fgi:kl:m:no:p:qstvxAB:CD:E:F:GI:J:KL:MNO:P:Q:R:S:TVw:W:XYy"
_NO_COMMAND = frozenset("NsWOGVQ")


def command_start(texts: Sequence[str]) -> Optional[int]:
    """Index of the first word of the command `ssh [opts] DEST [opts] COMMAND...` runs on DEST, else None (no
    command word, or an option that runs none). ssh.c: a `--` that ends the options before DEST ends them after it
    too (`opt_terminated`: `ssh -- host -t CMD` runs `-t CMD`)."""
    if not texts or texts[0].rsplit("/", 1)[-1] != "ssh":
        return None
    i, given = getopt_operands(texts, 1, _OPTIONS)
    if i >= len(texts):
        return None
    if i > 1 and texts[i - 1] == "--":
        j, more = i + 1, ""
    else:
        j, more = getopt_operands(texts, i + 1, _OPTIONS)  # options after the destination (ssh.c `goto again`)
    if _NO_COMMAND & set(given + more) or j >= len(texts):
        return None
    return j


def remote_script_index(texts: Sequence[str]) -> Optional[int]:
    """Index of the one word `ssh [opts] DEST [opts] COMMAND` (or `pdsh [opts] COMMAND`) runs as the remote shell's
    `-c` text, else None."""
    j = hop_command_start(texts)
    return j if j == len(texts) - 1 else None


def runs_remote(texts: Sequence[str], start: int) -> bool:
    """The word at `start` is in the command of an `ssh` (or pdsh, clush) before it (`ssh HOST vllm serve ...`: ssh
    joins the words with spaces and HOST's shell runs them), so what it starts runs on HOST."""
    return remote_hop(texts, start) is not None


# Parallel remote shells: each runs its operands, joined with spaces, on every host it targets, through ssh or
# rsh, with none of this script's variables and on none of its devices. pdsh
# (chaos/pdsh@21f59962d44abbdc66a5072384257cf2a01218f3:src/pdsh/opt.c: getopt with POSIXLY_CORRECT, GEN_ARGS
# "hLNKR:M:t:cqf:w:x:l:u:bI:dVT:Q", DSH_ARGS "sSk", then the modules' options: src/modules/genders.c g: X: F: i a A,
# dshgroup.c and netgroup.c g: X:, machines.c a, nodeupdown.c v, slurm.c j: P: C:, torque.c j:; the command
# `xstrcat(&opt->cmd, " ")` of the words left) and ClusterShell's clush
# (cea-hpc/clustershell@c09f82763b2b2fca99d7066e3ef5a850cc97c52d:lib/ClusterShell/CLI/OptionParser.py: optparse
# with interspersed arguments disabled, many long options: its command's first word is not placed here).
REMOTE_RUNNERS = frozenset({"ssh", "pdsh", "clush"})
_PDSH_OPTIONS = "hLNKR:M:t:cqf:w:x:l:u:bI:dVT:QsSkg:X:F:iaAvj:P:C:"
_PDSH_LETTERS = frozenset(_PDSH_OPTIONS) - {":"}


def remote_hop(texts: Sequence[str], start: int) -> Optional[int]:
    """Index of the last word before texts[start] that runs it on another host: an `ssh` whose command holds it, or
    a pdsh or clush in front of it (their operands are all the remote command); None if none does."""
    for k in range(start - 1, -1, -1):
        name = texts[k].rsplit("/", 1)[-1]
        if name in ("pdsh", "clush"):
            return k
        if name == "ssh":
            j = command_start(texts[k:start + 1])
            if j is not None and k + j <= start:
                return k
    return None


def pdsh_command_start(texts: Sequence[str]) -> Optional[int]:
    """Index of the first word of the command `pdsh [opts] COMMAND...` runs on its hosts, else None (no command
    word, an option pdsh does not take, or -h, -L, -V, -q, which print and exit)."""
    if not texts or texts[0].rsplit("/", 1)[-1] != "pdsh":
        return None
    i, given = getopt_operands(texts, 1, _PDSH_OPTIONS)
    if set(given) - _PDSH_LETTERS or set(given) & set("hLVq") or i >= len(texts):
        return None
    return i


def hop_command_start(texts: Sequence[str]) -> Optional[int]:
    """Where the command of the ssh or pdsh texts[0] starts (command_start, pdsh_command_start), else None."""
    return command_start(texts) if texts and texts[0].rsplit("/", 1)[-1] == "ssh" else pdsh_command_start(texts)


# clush's options that take a value (cea-hpc/clustershell@06ca77d0378faa8b4b09917c564c3388334c1509:
# lib/ClusterShell/CLI/OptionParser.py: -s -w -x -g -X -E -T -f -Q -l -o -t -u): a `NAME=value` after one is its value
# (`clush -o StrictHostKeyChecking=no ...`), not the remote command's prefix
_CLUSH_VALUED = frozenset("swxgXETfQlotu")


def remote_prefixes(tokens: Sequence, hop: int, start: int) -> list:
    """The `NAME=value` and `env NAME=value` prefixes of the remote command the runner tokens[hop] (ssh, pdsh, clush)
    runs, when they stand right before its program tokens[start] (`ssh HOST VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 vllm serve
    ...`): HOST's shell runs the joined words, so they are the engine's environment there, as a local prefix is
    (bash: `A=1 cmd` exports A to cmd only). [] where none is, or the program is behind another word (`srun`)."""
    from .command_prefixes import _PASSING_WRAPPERS, ASSIGN, strip_prefixes

    texts = [t.text for t in tokens[hop:start + 1]]
    name = texts[0].rsplit("/", 1)[-1]
    if name == "clush":  # its command's first word: the first prefix word that is no option's value
        first = next((k for k in range(1, len(texts) - 1) if (ASSIGN.match(texts[k]) or texts[k] == "env")
                      and not (texts[k - 1][:1] == "-" and texts[k - 1][-1:] in _CLUSH_VALUED
                               and not texts[k - 1].startswith("--"))), None)
    else:
        first = hop_command_start(texts)
    if first is None:
        return []
    env: list = []
    rest = strip_prefixes(list(tokens[hop + first:start + 1]), env, [])
    # a launcher that passes its environment on (`ssh HOST A=1 timeout 60 vllm ...`, taskset, numactl, srun) gives the
    # prefix to the engine it runs, as `A=1 timeout 60 vllm` does here
    return env if rest and (rest[0] is tokens[start] or rest[0].text.rsplit("/", 1)[-1] in _PASSING_WRAPPERS) else []


# A word HOST's shell reads back as the same one word: no blank, quote, backslash, expansion, operator, glob, brace
# or comment character (bash(1), QUOTING: the metacharacters and the characters special inside words)
_SAME_WORD = re.compile(r"[A-Za-z0-9_./:,=+@%^~-]+")


def reread_end(program) -> Optional[int]:
    """For `ssh [opts] DEST [opts] W1 W2 ...` (and `pdsh [opts] W1 W2 ...`), several command words that HOST's shell
    would read otherwise than this one did (ssh and pdsh join them with spaces and HOST's shell splits and expands
    that text again: a quoted `'$LEN'` is HOST's variable there, `'a b'` two words), the index where the command
    starts: the words from there are not what HOST runs, so they are not read. None where each word reads back as
    itself (`ssh HOST vllm serve M`), a value this script's shell expanded included, or where ssh runs one command
    word or none."""
    texts = [t.text for t in program]
    j = hop_command_start(texts)
    if j is None or j >= len(program) - 1:
        return None
    return j if any(not t.refs and not _SAME_WORD.fullmatch(t.text) for t in program[j:]) else None


# Programs that run ssh for this script and pass it on unchanged: `timeout 60 ssh HOST CMD`, `sshpass -p PW ssh HOST
# CMD`, `setsid ssh HOST CMD` (sweep c28: miminashi/llm-server-ops). Each reads its own options with getopt, `+`
# first (stop at the first operand), so the command is the first word after them (after timeout's DURATION):
# coreutils src/timeout.c `getopt_long (argc, argv, "+fk:ps:v", long_options, nullptr)` (timeout(1): `timeout
# [OPTION] DURATION COMMAND [ARG]...`; long --foreground, --kill-after=DUR, --preserve-status, --signal=SIG,
# --verbose, and --help and --version, so `--v` is ambiguous), util-linux sys-utils/setsid.c `"+Vhcfw"` (--ctty,
# --fork, --wait), sshpass main.c
# `getopt(argc, argv, "+f:d:p:P:he::Vv")` (sshpass 1.10; `-e[VAR]` takes its variable's name in the same word).
# nohup, env and sudo are command_prefixes.strip_prefixes' own.
_WRAPPER_OPTIONS = {"timeout": ("fk:ps:v", ("foreground", "preserve-status", "verbose", "help", "version"),
                                 ("kill-after", "signal")),
                    "setsid": ("Vhcfw", ("ctty", "fork", "wait", "version", "help"), ()),
                    "sshpass": ("f:d:p:P:hVv", (), ())}


def wrapped_command(texts: Sequence[str], i: int) -> Optional[int]:
    """For texts[i] timeout, setsid or sshpass, the index of the program it runs, else None (an option not listed, no
    command, or `-h`/`-V`, which print and exit)."""
    end, refused = _options_end(texts, i)
    return end if not refused and end < len(texts) else None


def refuses(texts: Sequence[str], i: int) -> bool:
    """Does texts[i], timeout or setsid, exit at its options without running the command: one it does not take, a
    long option's start two of its names share (`timeout --v`: --verbose or --version, coreutils 9.1 prints "option
    '--v' is ambiguous" and exits 125, checked), a value given to a flag, or help and version, which print and exit?"""
    return _options_end(texts, i)[1]


def _options_end(texts: Sequence[str], i: int) -> tuple[int, bool]:
    """(index after the wrapper texts[i]'s options and timeout's DURATION, whether an option makes it run nothing)."""
    name = texts[i].rsplit("/", 1)[-1]
    short, flags, valued = _WRAPPER_OPTIONS[name]
    takes = {c for k, c in enumerate(short) if short[k + 1:k + 2] == ":"}
    i += 1
    while i < len(texts) and texts[i].startswith("-") and texts[i] != "-":
        word = texts[i]
        if word == "--":
            i += 1
            break
        if word.startswith("--"):  # getopt_long: a long option, or a start of only one (an exact name wins)
            given, sep, value = word[2:].partition("=")
            hit = [given] if given in flags + valued else \
                [n for n in flags + valued if n.startswith(given)] if given else []
            if len(hit) != 1 or hit[0] in ("version", "help") or (hit[0] in flags and sep):
                return i, True
            i += 1 + (hit[0] in valued and not sep)  # `--signal SIG`: the next word
            continue
        if name == "sshpass" and word.startswith("-e"):  # `-e` or `-eVAR`: the variable the password is in
            i += 1
            continue
        for k, c in enumerate(word[1:], 1):
            if c not in short or c in "hV":
                return i, True
            if c in takes:
                i += k == len(word) - 1  # `-s SIG`: the next word (`-sSIG`: the rest of this one)
                break
        i += 1
    return i + (name == "timeout"), False  # timeout's DURATION


# Programs that start a shell reading its stdin when no command is given to them: su (util-linux su(1): the user's
# shell), and shells SHELLS does not name; sudo with -i/--login or -s/--shell and no command after its options
# (sudo(8); plugins/sudoers/parse_args.c short options "+Aa:BbC:c:D:Eeg:Hh::iKklNnPp:R:r:SsT:t:U:u:Vv").
_STDIN_SHELLS = frozenset({"su", "fish", "csh", "tcsh", "mksh", "yash", "posh"})
_SUDO_VALUED = frozenset("aCcDgpRrTtUu")


def login_shell(words: Sequence[str]) -> bool:
    """Do the words a remote command is split into start a shell that reads the here-document as its commands?"""
    for k, word in enumerate(words):
        name = word.rsplit("/", 1)[-1]
        if name in _STDIN_SHELLS:
            return True
        if name != "sudo":
            continue
        shell, i = False, k + 1
        while i < len(words) and words[i].startswith("-") and words[i] != "-":
            opt = words[i]
            i += 1
            if opt == "--":
                break
            if opt.startswith("--"):
                shell = shell or opt in ("--login", "--shell")
                continue
            for n, c in enumerate(opt[1:], 1):
                if c in "is":
                    shell = True
                if c in _SUDO_VALUED:
                    i += n == len(opt) - 1  # `-u svc`: the next word (`-usvc`: the rest of this one)
                    break
        if shell and i == len(words):  # `sudo -i CMD` runs CMD (through the shell), not the body
            return True
    return False
