"""A command a tmux pane's shell runs: `tmux new-session -d -s vllm "vllm serve $MODEL ..."` and the keys a script
types into a pane, `tmux send-keys -t vllm "$CMD_START" C-m` (sweep 27: AgentFlow's scripts/serve_vllm.sh, copied
in several repositories, types an `export CUDA_VISIBLE_DEVICES=$GPU; vllm serve ...` text so; an AWS DLC
benchmark runs `tmux new-session -d -s vllm_serve "docker exec ... /bin/bash -c 'vllm serve $MODEL_NAME ...'"`).
Before, the engine inside the one string was never seen: no role.

What tmux runs (tmux/tmux@c1f947a3c5bc72a40c32dead736f84c4628791ec): new-session, new-window, split-window,
new-pane and respawn-pane/-window take `[shell-command [argument ...]]` after their options (cmd-new-session.c and
its siblings, `.args`), and a single word is run as `default-shell -c WORD` (spawn.c: `argc == 1` ->
`execl(shell, argv0, "-c", tmp)`); send-keys types each key, a word that names no key as its text, and
`Enter`/`C-m` then runs the typed line in the pane's shell (cmd-send-keys.c). Only those two shapes are read: one
shell-command word, or one text word followed by Enter, C-m or KPEnter, with no option that changes what the keys
are (-H hex, -K, -M mouse, -X copy-mode, -l literal, -F format).

The pane's shell does not run in this script's environment: "When the server is started, tmux copies the
environment into the global environment ... When a window is created, the session and global environments are
merged" (tmux.1, GLOBAL AND SESSION ENVIRONMENT). So the script's variables reach the pane only when this very
command starts the server, and exported; a server already running keeps its own. A double-quoted string is
expanded by the script's shell before tmux gets it (its values are known as for `sh -c`); inside the string a `$X`
is the pane's, and an engine switch the script exports may or may not be set there: both not known (CTX008 says
why, VarRef.why "tmux"), never the script's value taken as the pane's.
"""
from __future__ import annotations

from typing import Optional, Sequence

# getopt strings of tmux's own options and of each command that spawns a shell command (cmd-*.c `.args`)
_GLOBAL = "2c:CDdf:hlL:NqS:T:uUvV"
_NEW_SESSION = "Ac:dDe:EF:f:n:Ps:t:x:Xy:"
_NEW_WINDOW = "abc:de:EF:kn:PSt:"
_SPLIT_WINDOW = "bB:c:de:EfF:hIkl:m:p:PR:s:S:t:T:vWZ"
_NEW_PANE = "AbB:Cc:de:EfF:hIkl:KLMm:Op:PR:s:S:t:T:vWx:X:y:Y:Z"
_RESPAWN = "c:e:Ekt:"
_SPAWNS = {"new-session": _NEW_SESSION, "new": _NEW_SESSION, "new-window": _NEW_WINDOW, "neww": _NEW_WINDOW,
           "split-window": _SPLIT_WINDOW, "splitw": _SPLIT_WINDOW, "new-pane": _NEW_PANE, "newp": _NEW_PANE,
           "respawn-pane": _RESPAWN, "respawnp": _RESPAWN, "respawn-window": _RESPAWN, "respawnw": _RESPAWN}
_SEND_KEYS = "c:FHKlMN:Rt:X"
_NOT_TEXT = frozenset("HKMXlF")  # send-keys options under which a word is no line typed as written
_ENTER = frozenset({"enter", "c-m", "kpenter"})  # key names are matched without case (key-string.c)


def _operands(texts: Sequence[str], i: int, spec: str) -> tuple[int, str]:
    """(index of the first operand after getopt-style options from texts[i], the option letters given)."""
    takes = {c for k, c in enumerate(spec) if spec[k + 1:k + 2] == ":"}
    given = ""
    while i < len(texts):
        word = texts[i]
        if word == "--":
            return i + 1, given
        if not word.startswith("-") or word == "-":
            break
        for k, c in enumerate(word[1:], 1):
            given += c
            if c in takes:
                i += k == len(word) - 1  # `-s NAME`: the argument is the next word (`-sNAME`: this one)
                break
        i += 1
    return i, given


def pane_script_index(texts: Sequence[str]) -> Optional[int]:
    """Index of the one word a tmux command runs as a pane's shell command (or types as a line ending in Enter),
    else None."""
    if not texts or texts[0].rsplit("/", 1)[-1] != "tmux":
        return None
    i, given = _operands(texts, 1, _GLOBAL)
    if "c" in given or i >= len(texts):  # `tmux -c CMD` is tmux as a login shell's `-c`: not read
        return None
    # `tmux new -d 'cmd' \; attach`: a command sequence, each command ending at a `;` word
    end = next((k for k in range(i + 1, len(texts)) if texts[k] == ";"), len(texts))
    command = texts[i]
    if command in _SPAWNS:
        j, _ = _operands(texts[:end], i + 1, _SPAWNS[command])
        return j if j == end - 1 else None  # several words are run directly, without a shell: not read here
    if command in ("send-keys", "send"):
        j, given = _operands(texts[:end], i + 1, _SEND_KEYS)
        if j == end - 2 and texts[end - 1].lower() in _ENTER and not _NOT_TEXT & set(given):
            return j
    return None


def direct_end(texts: Sequence[str]) -> Optional[int]:
    """For a tmux command that runs its words directly, without a shell (`tmux new -d vllm serve M \\; attach`), the
    end of those words (the `;` word that ends the command, or the last word); None where tmux runs none of its
    words: attach, kill-session, display-message, and send-keys, which types its words (several are typed one after
    another, with no space between them: cmd-send-keys.c) rather than running them."""
    if not texts or texts[0].rsplit("/", 1)[-1] != "tmux":
        return None
    i, given = _operands(texts, 1, _GLOBAL)
    if "c" in given or i >= len(texts) or texts[i] not in _SPAWNS:
        return None
    end = next((k for k in range(i + 1, len(texts)) if texts[k] == ";"), len(texts))
    j, _ = _operands(texts[:end], i + 1, _SPAWNS[texts[i]])
    return end if j < end else None


def direct_command(program: list, env: list, wrappers: list, ctx) -> list:
    """The command of the words tmux runs directly, up to the `;` that ends tmux's command, with the pane's
    environment (the tmux server's, not the script's exports); none where tmux runs no words of its line."""
    from .tokens import Command

    end = direct_end([t.text for t in program])
    if end is None:
        return []
    return [Command(tuple(program[:end]), tuple(env), tuple(wrappers), None, pane_environment(ctx))]


def pane_environment(ctx) -> tuple:
    """The script's exported variables as a pane's shell may or may not have them: each not known (why "tmux")."""
    if not ctx.exports:
        return ()
    from .shell_exports import environment
    from .tokens import EnvAssign, Token, VarRef

    out = []
    for a in environment(ctx):
        t = a.token
        ref = VarRef(a.name, "shell", t.start, t.end, None, None, t.item, "tmux")
        out.append(EnvAssign(a.name, Token(f"{a.name}=", t.start, t.end, (), (), (ref,), t.item)))
    return tuple(out)
