"""Variables the branches of an `if` set differently, read after the `fi`: one reading per branch.

    if [ "$COMPUTE_CAPABILITY" = "10.0" ]; then DTYPE="FP4"; CFG=b.yaml; else DTYPE="FP8"; CFG=h.yaml; fi
    vllm serve nvidia/Llama-3.3-70B-Instruct-$DTYPE --config ${CFG}

Bash runs one branch's list of commands (bash manual, Conditional Constructs,
gnu.org/software/bash/manual/html_node/Conditional-Constructs.html): after the `fi` each variable holds what that
branch left, or, for a branch that does not assign it (and the empty branch of an `if` without `else`), what it
held before the `if`, unset included. ctxlint does not decide which condition holds (the hardware, the caller's
environment): each branch is a world of its own (`Fork`), and a command after the `fi` that reads a variable the
worlds disagree on is read once per world (scalar_forks.py), each reading marked with its branch
(`Command.branch`: a role or a deployment of its own). Values all branches agree on are plain known values after the `fi`. The variables one
`if` sets go together (DTYPE=FP4 with b.yaml, never with h.yaml), as do the arrays it sets (array_branches.py),
and a value in a world is located at the assignment that gave it (`SplitContext.typed`).

A later top-level `NAME=...` (or `export NAME=...`) that reads such a variable is read per world too, so
`MODEL=org/m-$DTYPE` joins the worlds. Bounds: not more than MAX_WORLDS worlds (a long `elif` chain, several
`if`s whose variables one command reads): beyond it the variables stay unknown (CTX008), but for the words
every value begins with (a command string the `if`s append to: branch_heads.py). Not for an
`if` inside a loop or a `case` (branches.OPAQUE), nor for assignments after `&&`/`||` or in `case` arms, which
branches.py does not follow either; a variable assigned again in a later `if` is unknown in it.
"""
from __future__ import annotations

from itertools import product
from typing import TYPE_CHECKING, Callable, Optional

from .branches import OPAQUE
from .shellarrays import Alternatives
from .tokens import Token

if TYPE_CHECKING:
    from .command_strings import Locals
    from .word_expansion import SplitContext

UNSET = object()  # a world where the variable is not set at all (`${X:-d}` takes its default there)
MAX_WORLDS = 4  # "a few branches": more worlds than this are not read one by one
_LABEL = 48  # a condition longer than this is cut in a role's name


class Fork:
    """The worlds one `if` (or several nested ones) leaves: each (branch label, {name: value}, {name: typed token},
    {array name: value})."""

    __slots__ = ("worlds", "busy")

    def __init__(self, worlds: list) -> None:
        self.worlds = worlds
        self.busy = False  # being read one world at a time: the reading inside it does not fork it again


class _Partial:
    """A value with unknown parts, as typed (command_strings.py: `CMD="vllm serve $MODEL ${HEADLESS}"`)."""

    __slots__ = ("token",)

    def __init__(self, token: Token) -> None:
        self.token = token


def _held(value: object, partial: Optional[Token]) -> object:
    """What a world holds of a variable: its value, its partly known value, or None (unknown)."""
    return _Partial(partial) if value is None and partial is not None else value


class _Frame:
    """One open `if` whose branches assign variables: their values before it, and each finished branch's worlds."""

    __slots__ = ("before", "current", "ends", "mark", "tested")

    def __init__(self, mark: int) -> None:
        self.before: dict[str, tuple] = {}  # name -> (value or UNSET, scoped, partial, token), restored per branch
        self.current: set[str] = set()
        self.ends: list[list] = []
        self.mark = mark  # ctx forks made inside this `if`'s branches come after it
        # names an `elif`'s condition assigns: it runs before its own branch and every later one (an `elif`, the
        # `else`, none at all), which therefore do not hold the value from before the `if` (bash 5.2.15: `if [ -n
        # "$X" ]; then :; elif L=7 && [ -n "$Y" ]; then :; else vllm ... $L; fi` runs 7); not known there
        self.tested: set[str] = set()


def label(entry: list) -> str:
    """The branch an `if` entry (keyword, its condition's words) is in: `if [ $X = fp8 ]`, `elif ...`, `else`."""
    texts = ["".join(run[0] for part in w.parts for run in part.runs) for w in entry[1] or ()]
    if texts[1:3] == [":", "case"]:  # a `case` arm read as a branch (case_arms.py): `case $GPU h100)`
        keyword, texts = "case", texts[3:]
    elif entry[0] == "else":
        return "else"
    else:
        keyword, texts = entry[0], texts[1:]
    words = " ".join(" ".join(texts).split())
    return f"{keyword} {words if len(words) <= _LABEL else words[:_LABEL - 1] + '…'}"


def record(name: str, local: "Locals") -> None:
    """An assignment of `name` in the innermost open `if`'s current branch (its value is kept by
    command_strings.assigned, known there; here what it was before, and that the branch set it)."""
    entry = local.ifs[-1]
    frame = entry[2]
    if frame is None:
        frame = entry[2] = _Frame(len(local.forks))
    if name not in frame.before:
        frame.before[name] = (dict.get(local, name, UNSET) if name in local else UNSET, local.scoped.get(name),
                              local.partial.get(name), local.tokens.get(name))
    frame.current.add(name)
    arm = local.branches.arm()
    if arm is not None and arm[1] > 0 and not arm[2]:  # in an `elif`'s condition
        frame.tested.add(name)


def empty_branch(entry: list, ctx: "SplitContext") -> None:
    """At the `elif`/`else` after a branch of `entry` that may run and assigned nothing, before any branch did: that
    branch's world, every variable as before the `if`: `step`, called next, records it (`_end_branch`) as it does
    for a branch with a frame; recording it here too made two worlds of one branch (`if A or if A`)."""
    entry[2] = _Frame(len(ctx.local.forks))


def unfork(name: str, local: "Locals") -> None:
    """`name` is assigned anew: no world holds it any longer."""
    for fork in local.forks:
        for world in fork.worlds:
            world[1].pop(name, None)
            world[2].pop(name, None)
    local.forked.pop(name, None)


def step(first: str, words: "list[Word]", ctx: "SplitContext") -> None:
    """`elif`/`else`/`fi` of the innermost `if` that assigned a variable (before branches.py moves on: the
    branch's own values are still visible)."""
    local = ctx.local
    entry = local.ifs[-1]
    frame: Optional[_Frame] = entry[2]
    if frame is not None:
        _end_branch(frame, entry, ctx)
    if first == "elif":
        entry[0], entry[1] = "elif", words
    elif first == "else":
        entry[0], entry[1] = "else", words  # (a `case`'s `*)` arm names itself: case_arms.py)
        entry[3] = True
    if first != "fi":
        return
    local.ifs.pop()
    if frame is None:
        return
    if not entry[3] and not entry[5][1]:  # no `else`: when no condition holds (and none surely does), nothing is
        frame.ends.append([("else", dict.fromkeys(frame.tested), {}, {})])  # assigned, but by an `elif`'s test
    if entry[6]:  # an `if` after `&&`/`||` that may not run at all: nothing it assigns is (bash 5.2.15:
        frame.ends.append([("not run", {}, {}, {})])  # `grep -q x f && if true; then L=5; fi` keeps L)
    _close(frame, ctx)


def _end_branch(frame: _Frame, entry: list, ctx: "SplitContext") -> None:
    """Keep the worlds a branch leaves, and give its variables back their values from before the `if`."""
    local = ctx.local
    values, typed = {}, {}
    for name in frame.current:
        if name in ctx.arrays:  # an array (`A=(...)` is an assignment too): its values are below
            continue
        value = _held(*local.known(name)) if name not in local.forked else None
        values[name] = value
        token = local.tokens.get(name)
        if value is not None and token is not None and token is not frame.before[name][3]:
            typed[name] = _value_token(token)
    arrays_frame = ctx.array_ifs[-1] if ctx.array_ifs else None
    arrays = {n: ctx.arrays.get(n) for n in arrays_frame.current} if arrays_frame is not None else {}
    for name in frame.tested - values.keys():  # an earlier `elif`'s test ran before this branch: not known
        values[name] = None
    worlds = [(label(entry), values, typed, arrays)]
    for fork in local.forks[frame.mark:]:  # an `if` nested in this branch: its worlds inside this one
        if not any(w[1] or w[3] for w in fork.worlds):
            continue  # what it set was assigned again after it
        worlds = [(f"{a[0]}, {b[0]}", {**a[1], **b[1]}, {**a[2], **b[2]}, {**a[3], **b[3]})
                  for a, b in product(worlds, fork.worlds)]
    for fork in local.forks[frame.mark:]:
        for world in fork.worlds:
            for name in world[1]:
                local.forked.pop(name, None)
    del local.forks[frame.mark:]
    if not entry[5][0]:  # a branch the script's own values rule out leaves no world (decided_tests.py)
        frame.ends.append(worlds)
    for name in frame.current:
        value, scoped, partial, token = frame.before[name]
        if value is UNSET:
            dict.pop(local, name, None)
        else:
            dict.__setitem__(local, name, value)
        for held, kept in ((local.scoped, scoped), (local.partial, partial), (local.tokens, token)):
            if kept is None:
                held.pop(name, None)
            else:
                held[name] = kept
    for name in frame.tested:  # what an `elif`'s test assigned holds in the branches after it: not known
        dict.__setitem__(local, name, None)
        local.scoped.pop(name, None)
        local.partial.pop(name, None)
    frame.current = set()


def _close(frame: _Frame, ctx: "SplitContext") -> None:
    """After the `fi`: what every branch agrees on is known; where they differ, a Fork (or unknown beyond the
    bound, or where the `if` is in a loop or `case`)."""
    local = ctx.local
    names = {n for worlds in frame.ends for world in worlds for n in world[1]}
    arrays_frame = ctx.array_ifs[-1] if ctx.array_ifs else None  # the same `if`'s arrays (array_branches.py)
    held = {n: v[0] if isinstance(v[0], (tuple, Alternatives)) else None  # not a value: unset before the `if`
            for n, v in (arrays_frame.before.items() if arrays_frame is not None else ())}
    # A name no branch of this `if` assigned can still be in a branch's worlds: a fork from before the `if`
    # (`if a; then SDMA=x; fi`) merged into one made inside it when a branch read it into an assignment
    # (scalar_forks._forked_assignments appends the merged fork after this frame's mark). What it held before
    # this `if` is then several values, not one: unknown in the other branches (it was a KeyError that dropped
    # every command of the script, sweep 21b).
    worlds = [(lab, {n: vals[n] if n in vals else _held(frame.before[n][0], frame.before[n][2])
                     if n in frame.before else None for n in names},
               typed, {**held, **arrays})
              for ends in frame.ends for lab, vals, typed, arrays in ends]
    path = local.branches.path[:-1]  # where the `if` itself is
    if OPAQUE in path:
        for name in names:
            dict.__setitem__(local, name, None)
        return
    agreed = {n for n in names if len({_key(w[1][n]) for w in worlds}) == 1}
    differ = sorted(names - agreed)
    unique: dict = {}
    for lab, vals, typed, arrays in worlds:
        key = tuple(_key(vals[n]) for n in differ) + tuple(id(a) for a in arrays.values())
        if key in unique:
            unique[key][0] += " or " + lab
        else:
            unique[key] = [lab, {n: vals[n] for n in differ}, {n: t for n, t in typed.items() if n in differ},
                           arrays]
    fork = Fork([tuple(w) for w in unique.values()]) if differ and 1 < len(unique) <= MAX_WORLDS else None
    heads = {n: _head(n, frame, worlds) for n in differ}  # what every value begins with (branch_heads.py)
    for name in names:
        if local.ifs:  # an enclosing `if`'s branch set it too
            record(name, local)
        value = worlds[0][1][name] if name in agreed else None
        if value is UNSET:
            dict.pop(local, name, None)
            continue
        partial = value.token if isinstance(value, _Partial) else heads.get(name)
        value = None if partial is not None else value
        if path and (value is not None or partial is not None):  # known in the enclosing branch only (branches.py)
            dict.__setitem__(local, name, None)
            local.scoped[name] = (tuple(path), value, partial)
        else:
            dict.__setitem__(local, name, value)
            if partial is not None:
                local.partial[name] = partial
        if name not in agreed or value is None:
            ctx.unsure.add(name)
    if fork is not None:
        local.forks.append(fork)
        for name in differ:
            local.forked[name] = fork


def _head(name: str, frame: _Frame, worlds: list) -> Optional[Token]:
    """The common head of the values the worlds hold of `name`, located where the value before the `if` is typed
    (else where the first world's is)."""
    from .branch_heads import common_head
    values, tokens = [], []
    for _lab, vals, typed, _arrays in worlds:
        value = vals.get(name)
        if isinstance(value, _Partial):
            values.append(value.token.text)
            tokens.append(value.token)
        elif isinstance(value, str):
            values.append(value)
            token = typed.get(name)
            tokens.append(token if token is not None and token.text == value else None)
        else:  # unset, or unknown as a whole in a world: no head
            return None
    _value, _scoped, partial, token = frame.before.get(name, (None, None, None, None))
    before = partial if partial is not None else _value_token(token) if token is not None else None
    located = before if before is not None and before.text in values else \
        next((t for t in tokens if t is not None), None)
    return common_head(name, values, tokens, located)


def _key(value: object) -> object:
    return "\0unset" if value is UNSET else ("\0partial", value.token.text, value.token.starts) \
        if isinstance(value, _Partial) else value


def remap(name: str, local: "Locals", change: Callable[[object], object]) -> None:
    """An array the worlds hold changed after the `fi` (`A+=(...)`): in each world as it does there."""
    for fork in local.forks:
        for world in fork.worlds:
            if name in world[3]:
                world[3][name] = change(world[3][name])


def _value_token(token: Token) -> Optional[Token]:
    """The value of a `NAME=value` token, at the positions it is typed at."""
    cut = token.text.find("=") + 1
    if cut <= 0:
        return None
    return Token(token.text[cut:], token.start, token.end, token.starts[cut:], token.ends[cut:], token.refs,
                 token.item)
