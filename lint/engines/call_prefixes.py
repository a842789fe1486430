"""`SMALL=1 start_server`: a function called with an assignment before its name.

    start_server() {
      if [ -n "$SMALL" ]; then LEN=4096; else LEN=131072; fi
      vllm serve "$MODEL" --max-model-len "$LEN"
    }
    SMALL=1 start_server

bash runs the body with SMALL=1 and gives SMALL its old value back when the call returns (bash manual, Shell
Functions; Simple Command Expansion: the assignments "affect the current execution environment" of that command
only). Checked with bash 5.2.15 as `#!/bin/bash` and as `bash --posix`, and with dash 0.5.12 (`#!/bin/sh` on
Debian): `A=1; f() { echo $A; A=2; }; A=7 f; echo $A` prints 7, then 1, in all three; a name set only by the
prefix is unset again after it, and an assignment the body makes to it is undone with it. (Older bash in POSIX
mode kept the prefix after the call; the releases checked here do not.) So the body reads the prefix's value:
`$SMALL` expands to 1, `[ -n "$SMALL" ]` is decided (decided_tests.py), and after the call each such name
holds what it held before. Before, the body saw the name as undecided, or as its value from before the call.
A name an earlier `if` left with several values (scalar_branches) is the prefix's in the body too, and has its
several values back after the call (bash 5.2: `if [ -n "$Q" ]; then L=4096; else L=200000; fi; f() { echo $L;
L=8192; }; L=7 f; echo $L` prints 7, then 200000; before, the body read each branch's value, and after it 8192).
A name the body gives to `export`, `readonly`, `declare -g` or `typeset -g` is not given back: bash 5.2 (also
`--posix`) keeps the body's value after the call (`A=1; f() { export A=2; }; A=7 f; echo $A` prints 2), dash 0.5.12
gives the old one back (1), so after such a call the name is not known (CTX008 where it is read).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Sequence, TypeVar

from .command_strings import assigned
from .decided_tests import hiding
from .function_defs import _literal
from .lex_words import Word
from .shellfuncs import restore, saved
from .tokens import EnvAssign

if TYPE_CHECKING:
    from .word_expansion import SplitContext

T = TypeVar("T")
_NONE = object()


def prefixed_call(env: Sequence[EnvAssign], run: Callable[[], T], ctx: "SplitContext", body: Sequence = ()) -> T:
    """`run()` (a function call's reading) with `env`'s assignments made for it, and undone after it; a name the
    body (its items, `body`) exports or makes global is not known after it."""
    local = ctx.local
    frame = {a.name: saved(a.name, ctx) for a in env}
    tokens = {name: local.tokens.get(name) for name in frame}
    forks = {name: (local.forked[name], [(world, world[1].get(name, _NONE), world[2].get(name, _NONE))
                                         for fork in local.forks for world in fork.worlds])
             for name in frame if name in local.forked}  # an `if`'s several values: back after the call
    for a in env:
        assigned(local, a.name, a.token, False, False)
        ctx.unsure.discard(a.name)
    hidden = hiding(ctx, ())
    try:
        return run()
    finally:
        ctx.undecided = hidden
        restore(frame, ctx)
        for name, (fork, held) in forks.items():
            local.forked[name] = fork
            for world, value, typed in held:
                for kept, was in ((world[1], value), (world[2], typed)):
                    if was is not _NONE:
                        kept[name] = was
        for name, token in tokens.items():
            if token is None:
                local.tokens.pop(name, None)
            else:
                local.tokens[name] = token
        for name in _kept(body, frame, ctx.functions, set()):  # bash keeps the body's value, dash gives the old one back: not known
            local.partial.pop(name, None)
            local.scoped.pop(name, None)
            local[name] = None
            ctx.unsure.add(name)


def _kept(body: Sequence, names, functions: dict, seen: set) -> set[str]:
    """The names among `names` the body's commands (and those of the functions it calls, each read once) give to
    `export`, `readonly`, `declare -g` or `typeset -g`."""
    kept: set[str] = set()
    command: list[str] = []
    for item in list(body) + [None]:
        text = _literal(item) if type(item) is Word else None
        if text is not None and (command or text):
            command.append(text)
            continue
        declare = command[:1] in (["declare"], ["typeset"]) and any(
            w.startswith("-") and "g" in w for w in command[1:])
        if command[:1] in (["export"], ["readonly"]) or declare:
            kept.update(n for n in (w.split("=", 1)[0].rstrip("+") for w in command[1:]) if n in names)
        called = next((w for w in command if "=" not in w), None)  # after its own prefixes
        if called in functions and called not in seen:  # `g` exports it for `f`
            seen.add(called)
            kept |= _kept(functions[called].items, names, functions, seen)
        command = []
    return kept
