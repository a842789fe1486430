"""Values a script assigns inside an `if` branch, known to the later commands of that same branch:

    if [ "$NODE_RANK" -eq 0 ]; then
        PREFILL_CMD="vllm serve ${MODEL_PATH} --port $SERVER_PORT ..."
        if [[ "$DRY_RUN" -eq 1 ]]; then echo "$PREFILL_CMD"; else eval "$PREFILL_CMD" & fi
    fi

An assignment inside a branch may not run, so after the `fi` its variable is unknown (CTX008 "set inside a
branch or loop"). But bash runs a branch's list of commands in order (bash manual, Conditional Constructs,
gnu.org/software/bash/manual/html_node/Conditional-Constructs.html: "the consequent-commands list is
executed"), so a command later in the same branch, or in an `if` nested in it, runs only after the assignment
has: there its value is the one assigned. Not inside a loop or a `case` (a loop's next round sees what the last
one left, and case arms are not told apart here), nor for an assignment after `&&`/`||`; and once a nested
branch that assigns the name again closes, the name is unknown again.

Each command also learns which part of which `if` it is directly in (`arm`): a multi-node launcher's
`if [ $RANK -eq 0 ]; then <node 0's server>; else <the other nodes'>; fi` (engine_roles.follows).
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Optional

from ..records import replace
from .arg_loops import parses_arguments
from .decided_tests import decide
from .shellarrays import branch_step

OPAQUE = -1  # a loop, a `case`, or a conditional `eval`: nothing assigned inside is known anywhere
_OPENERS = frozenset({"while", "until", "for", "select", "case"})
FLOW_START = frozenset({"if"}) | _OPENERS
FLOW_END = frozenset({"fi", "done", "esac"})
BRANCH_WORDS = FLOW_START | FLOW_END | {"then", "elif", "else"}  # what Branches follows
_CLOSERS = frozenset({"fi", "done", "esac"})


class Branches:
    """The `if` branches around the command being read, innermost last, each by a number of its own."""

    __slots__ = ("path", "count", "arms")

    def __init__(self) -> None:
        self.path: list[int] = []
        self.count = 0
        # branch number -> (the `if`'s number, the part's place in it: 0 the condition, 1 `then`, ...; a body?)
        self.arms: dict[int, tuple[int, int, bool]] = {}

    def step(self, first: str) -> None:
        """Follow the keyword (`first`, a command's first word) that opens, turns or closes a branch."""
        if first == "if":
            self.open(False)
            self.arms[self.count] = (self.count, 0, False)
        elif first in ("then", "elif", "else"):
            if self.path and self.path[-1] != OPAQUE:  # the next part of the same `if`: a branch of its own
                before = self.arms.get(self.path.pop())
                self.open(False)
                if before is not None:
                    self.arms[self.count] = (before[0], before[1] + 1, first != "elif")
        elif first in _OPENERS:
            self.open(True)
        elif first in _CLOSERS and self.path:
            self.path.pop()

    def open(self, opaque: bool) -> None:
        self.count += 1
        self.path.append(OPAQUE if opaque else self.count)

    def where(self) -> Optional[tuple[int, ...]]:
        """The branch an assignment made now is known in, or None (none, or inside a loop or `case`)."""
        return tuple(self.path) if self.path and OPAQUE not in self.path else None

    def arm(self) -> Optional[tuple[int, int, bool]]:
        """The part of an `if` the command being read is directly in (not in a loop or `case` inside it)."""
        return self.arms.get(self.path[-1]) if self.path else None

    def sees(self, where: tuple[int, ...]) -> bool:
        """Is the command being read inside the branch `where` (or one nested in it)?"""
        return len(self.path) >= len(where) and tuple(self.path[:len(where)]) == where


def if_step(first: str, words: list, ctx) -> None:
    """Follow `if`/`elif`/`else`/`fi` for the values branches assign (scalar_branches.py, imported only once a
    branch has assigned one): `if` opens an entry, `elif` and `else` name the branch, `fi` closes it."""
    ifs = ctx.local.ifs
    if first == "if":
        # and the forks made before it; [the branch being read cannot run, an earlier one surely runs]; whether the
        # `if` itself may not run (after `&&`/`||`: `grep -q x f && if true; then L=5; fi` may leave L as it was)
        taken = _decide(words, ctx)
        ifs.append(["if", words, None, False, tuple(ctx.local.forks), [taken is False, taken is True],
                    ctx.skippable, [False, False]])
    elif first in ("elif", "else", "fi") and ifs:
        entry = ifs[-1]
        went_on = not entry[7][0] and not entry[5][0]  # the branch that ends may run and did not exit
        exits = _branch_ends(entry, first)
        if entry[2] is None and went_on and first != "fi" and OPAQUE not in ctx.local.branches.path:
            # a branch that assigned nothing is a world too: the values from before the `if` (scalar_branches.py
            # makes the worlds only once a branch assigns, so `if grep ...; then :; else L=3; fi` read 3 alone)
            from .scalar_branches import empty_branch
            empty_branch(entry, ctx)
        if ifs[-1][2] is not None:
            from .scalar_branches import step
            step(first, words, ctx)
        elif first == "fi":
            ifs.pop()
        elif first == "elif":
            ifs[-1][0], ifs[-1][1] = "elif", words
        else:
            ifs[-1][0], ifs[-1][1], ifs[-1][3] = "else", words, True
        if first != "fi":  # the branch that starts: dead once an earlier one surely ran (decided_tests.py)
            before = ifs[-1][5][1]
            taken = _decide(words, ctx) if first == "elif" and not before else None
            ifs[-1][5] = [before or taken is False, before or taken is True]
        elif exits:  # every way through the `if` exits: so does the script, where the `if` surely runs
            from .script_exits import exit_here
            exit_here(ctx)


def _branch_ends(entry: list, first: str) -> bool:
    """At the `elif`, `else` or `fi` (`first`) of an `if`: note in its last field ([the branch being read ran
    `exit`, a branch went on past the `fi`], script_exits.py) whether the branch that ends went on; at the `fi`,
    whether every way through the `if` exited (True: the `if` ends the script where it surely runs)."""
    state = entry[7]
    if state[0]:
        state[0] = False
    elif not entry[5][0]:  # a branch that may run and did not exit
        state[1] = True
    # no `else`: where no condition holds the `if` runs nothing and goes on, unless one surely held
    return first == "fi" and not state[1] and (entry[3] or entry[5][1]) and not entry[6]


def _decide(words: list, ctx) -> Optional[bool]:
    """decided_tests.decide, never inside a loop (a later pass may see a value set after the test: `A=""; for ...;
    do if [ -n "$A" ] ...; A=x; done`), a `case` or a conditional eval (OPAQUE)."""
    return None if OPAQUE in ctx.local.branches.path else decide(words, ctx)


def in_arm(commands: list, arm: Optional[tuple[int, int, bool]]) -> list:
    """The commands, each marked with the part of an `if` it runs in directly (unless marked already)."""
    if arm is None or not commands:
        return commands
    return [c if c.arm is not None else replace(c, arm=arm) for c in commands]


def flow_step(first: str, words: list, ctx) -> None:
    """Follow a command's first word (`words[0]`) where it opens, turns or closes an `if`, a loop or a `case`."""
    if first in FLOW_END:
        ctx.flow = max(0, ctx.flow - 1)
        if ctx.argloop is not None and ctx.flow < ctx.argloop:
            ctx.argloop = None  # the option-parsing loop's `done`
    elif first in FLOW_START:
        ctx.flow += 1
        if first in ("while", "until") and ctx.argloop is None and ctx.script and ctx.positional is None \
                and parses_arguments(words[1:]):
            ctx.argloop = ctx.flow  # the script's own arguments (not a function call's): arg_loops.py
    if first in BRANCH_WORDS:
        if_step(first, words, ctx)  # first: the branch that ends still sees its own values
        branches = ctx.local.branches
        arm = branches.arm() if first == "then" else None
        tested = tuple(branches.path) if arm is not None and arm[1] > 0 and not arm[2] else None
        branches.step(first)
        if tested is not None:  # an `elif`'s test ran and held: what it assigned is what its branch starts with
            _into_branch(tested, ctx.local)
        branch_step(first, ctx)


def _into_branch(tested: tuple, local) -> None:
    """At the `then` after an `elif`'s condition (the branch `tested`): the values it assigned, known there, are
    known in the `then` branch too, which runs only after it (bash 5.2.15: `if false; then :; elif L=4096 && [ -n x ]
    && L=7; then vllm ... $L; fi` runs 7); the branches after it read them as not known (scalar_branches.py)."""
    now = tuple(local.branches.path)
    for name, (where, value, partial) in list(local.scoped.items()):
        if where == tested:
            local.scoped[name] = (now, value, partial)


def in_condition(ctx) -> bool:
    """Is the command being read part of the innermost `if`'s own condition (after `if`, before `then`)? It runs
    whenever the `if` does, in front of its branches (if_conditions.py)."""
    local = ctx.local
    path = local.branches.path
    if not path or path[-1] == OPAQUE or not local.ifs or local.ifs[-1][0] != "if":
        return False
    arm = local.branches.arm()
    return arm is not None and arm[1] == 0


@contextmanager
def outside(ctx):
    """Read a command of an `if`'s condition as one in front of the `if`: the `if`'s flow level, branch and entry
    set aside while it is read."""
    local = ctx.local
    branch, entry = local.branches.path.pop(), local.ifs.pop()
    ctx.flow -= 1
    try:
        yield
    finally:
        ctx.flow += 1
        local.branches.path.append(branch)
        local.ifs.append(entry)
