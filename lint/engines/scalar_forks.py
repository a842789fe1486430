"""Reading a command once per branch of the `if`s whose variables it reads (scalar_branches.py keeps them).

Each reading puts one world's values in place (a partly known command string as its words, a value that is a whole
word where its branch assigns it: SplitContext.typed), reads the command, and marks what it gives with the
branch (`Command.branch`). A command of assignments only (`MODEL=org/m-$DTYPE`, `export ...`) read so makes the
variables it assigns part of the same worlds, unless every world gives them the same value.
"""
from __future__ import annotations

from itertools import product
from typing import TYPE_CHECKING, Callable, Optional

from ..records import replace
from .scalar_branches import MAX_WORLDS, UNSET, Fork, _held, _key, _Partial, _value_token
from .shellarrays import Alternatives, first_element

if TYPE_CHECKING:
    from .lex_words import Word
    from .tokens import Command
    from .word_expansion import SplitContext


def fork_read(words: "list[Word]", ctx: "SplitContext",
              read: Callable[[], "list[Command]"]) -> "Optional[list[Command]]":
    """The commands of `words` read once per world of the forks whose variables they read, each marked with its
    branch; None when they read none (or more worlds than the bound: unknown there, as before)."""
    local = ctx.local
    names = {_base(part.name) for word in words for part in word.parts if part.kind == "var" and part.style == "shell"}
    for word in words:
        for element in word.array or ():
            names.update(_base(p.name) for p in element.parts if p.kind == "var" and p.style == "shell")
    forks = [f for f in local.forks if not f.busy and any(n in names for w in f.worlds for n in (*w[1], *w[3]))]
    if not forks:
        return None
    assigns = _assigned_names(words)
    if assigns & names and local.ifs and any(f in local.ifs[-1][4] for f in forks):
        # `CMD="$CMD --flag"` in the branch of a later `if`: the worlds of the earlier one are not what it leaves
        # (it may not run), so they are not changed in place; CMD is read as its common head (branch_heads.py)
        return None
    combos = list(product(*(fork.worlds for fork in forks)))
    if len(combos) > MAX_WORLDS:
        return None
    held = {n: (dict.get(local, n, UNSET), ctx.arrays.get(n, UNSET), local.partial.get(n)) for combo in combos
            for w in combo
            for n in (*w[1], *w[3])}
    # an assignment read in one world must not be what the next world reads: `CMD="$PREFIX $CMD"` in each world
    # reads the CMD before it (else the second world prefixed the first world's result again)
    before = {n: (dict.get(local, n, UNSET), local.partial.get(n), local.tokens.get(n)) for n in assigns}
    # and each world's values as they are now: a reading that assigns a forked name unforks it (scalar_branches.unfork
    # drops it from every world), which the later worlds must not see
    values = {id(w): (dict(w[1]), dict(w[2]), dict(w[3])) for combo in combos for w in combo}
    commands: list = []
    results: list = []
    # `${L:?msg}` of an L "" in some worlds only: the shell exits in those (their reading runs nothing), not in the
    # others; the command ends the script only where every world exits (shellwords.py)
    null_error, errored, dropped = ctx.null_error, 0, []
    for combo in combos:
        lab = ", ".join(w[0] for w in combo)
        for name, (value, partial, token) in before.items():
            _put_back(local, name, value, partial, token)
        for world in combo:
            scalars, typed, arrays = values[id(world)]
            for name, value in scalars.items():
                local.partial.pop(name, None)
                if value is UNSET:
                    dict.pop(local, name, None)
                elif isinstance(value, _Partial):
                    dict.__setitem__(local, name, None)
                    local.partial[name] = value.token
                else:
                    dict.__setitem__(local, name, value)
                if name in typed and typed[name] is not None:
                    ctx.typed[name] = typed[name]
            for name, value in arrays.items():
                ctx.arrays[name] = value
                dict.__setitem__(local, name, first_element(value) if not isinstance(value, Alternatives) else None)
        for fork in forks:
            fork.busy = True
        try:
            ctx.null_error = False
            read_here = read()
            err = ctx.null_error is True
            errored += err
            if err:
                dropped.append(combo)
            else:
                commands.extend(replace(c, branch=f"{lab}, {c.branch}" if c.branch else lab) for c in read_here)
        finally:
            for fork in forks:
                fork.busy = False
        results.append((combo, {n: (_held(*local.known(n)), local.tokens.get(n)) for n in assigns}))
        ctx.typed.clear()
    for name, (value, array, partial) in held.items():
        if name in assigns:
            continue
        _restore(local, name, value, partial)
        if array is not UNSET:
            ctx.arrays[name] = array
    # some worlds only: where the command surely runs, the shell has exited in them, and they leave no world after it
    # (shellwords.drop_worlds); with one fork each such combination is one of its worlds
    ctx.null_error = null_error or errored == len(combos) or \
        ([(forks[0], combo[0]) for combo in dropped] if dropped and len(forks) == 1 else False)
    if assigns:
        _forked_assignments(assigns, results, forks, ctx)
    return commands


def _restore(local, name: str, value, partial) -> None:
    """A variable's value (UNSET: none) and partial token as they were held."""
    local.partial.pop(name, None)
    if value is UNSET:
        dict.pop(local, name, None)
    else:
        dict.__setitem__(local, name, value)
    if partial is not None:
        local.partial[name] = partial


def _put_back(local, name: str, value, partial, token) -> None:
    """A variable as it was before a world's reading assigned it: its value, partial token, place, and no scope."""
    local.scoped.pop(name, None)
    _restore(local, name, value, partial)
    if token is None:
        local.tokens.pop(name, None)
    else:
        local.tokens[name] = token


def _forked_assignments(assigns: set, results: list, forks: list, ctx: "SplitContext") -> None:
    """`MODEL=org/m-$DTYPE` read once per world: the same in all, a known value; else the worlds hold it."""
    local = ctx.local
    for name in assigns:
        if len({_key(r[1][name][0]) for r in results}) == 1:
            continue
        if len(forks) > 1:  # the variable joins worlds of several forks: they become one
            merged = Fork([(", ".join(w[0] for w in combo), {k: v for w in combo for k, v in w[1].items()},
                            {k: v for w in combo for k, v in w[2].items()}, {k: v for w in combo for k, v in
                                                                               w[3].items()})
                           for combo, _ in results])
            for fork in forks:
                local.forks.remove(fork)
            local.forks.append(merged)
            for world in merged.worlds:
                for n in world[1]:
                    local.forked[n] = merged
            forks[:] = [merged]
            results[:] = [((world,), r[1]) for world, r in zip(merged.worlds, results)]
        for (combo, values) in results:
            world = combo[0]
            value, token = values[name]
            world[1][name] = value
            world[2][name] = _value_token(token) if isinstance(value, str) and token is not None else None
        dict.__setitem__(local, name, None)
        local.partial.pop(name, None)
        local.forked[name] = forks[0]
        ctx.unsure.add(name)


def _assigned_names(words: "list[Word]") -> set:
    """The names a command of assignments only (`A=x B=$Y`, `export A=x`) sets; empty for any other command."""
    names = set()
    for k, word in enumerate(words):
        text = "".join(run[0] for part in word.parts[:1] for run in part.runs) if word.parts else ""
        if k == 0 and text in ("export", "readonly", "declare", "typeset") and len(word.parts) == 1:
            continue
        name = text.split("=", 1)[0]
        if "=" not in text or not name.isidentifier() or word.parts[0].kind != "lit" or word.array is not None:
            return set()
        names.add(name)
    return names


def _base(name: str) -> str:
    return name.split("[", 1)[0]
