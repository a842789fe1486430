"""An and-or list whose statuses the script itself decides: `false && { L=7; vllm serve ...; }` runs nothing after
the `&&`, `true && L=7` surely assigns.

bash runs the command after `&&` only if the one before returned 0, the one after `||` only if it did not, and an
and-or list's status is that of the last command it ran (bash manual, Lists: "command2 is executed if, and only
if, command1 returns an exit status of zero (success)"; `||`: "non-zero"). Most commands' statuses depend on what
ctxlint cannot know (a file, the network, the hardware), so what follows them may or may not run
(guarded_braces below, `conditional`). A few are known here: `true` and `:` return 0, `false` 1, a plain
assignment with no command substitution 0 (bash manual, Simple Command Expansion: "the command exits with a status
of zero" when no command substitution was performed, and a readonly name's failure is not ruled out here, so not
one the script made readonly), a test decided_tests.decide settles (`[ -n "" ]`, `[[ -z $X ]]` of a value the script
set), and `!` before any of them inverts it. Where the status before an `&&`/`||` is known, the command after it
(a simple command, or a `{ }`, `( )`, `if`, loop or `case` whole) surely runs, read as any unconditional one, or
surely does not: what it assigns and starts is dropped, as a branch bash never runs is (decided_tests.py). Each
expected value in tests/engines/test_and_or_lists.py is bash 5.2.15's.
"""
from __future__ import annotations

from typing import Optional, Sequence

from .branches import OPAQUE
from .decided_tests import decide
from .shell_commands import compound_spans, literal

_LOGIC = frozenset({"&&", "||"})
_STATUS_WORDS = frozenset({"true", "false", ":", "!", "[", "[[", "test"})
_PIPES = frozenset({"|", "|&"})
_KNOWN = {"true": 0, ":": 0, "false": 1}
# the keywords before an `if`'s condition or a branch's first command: its and-or list starts after them (`if true &&
# L=35; then`: L=35 runs). Not `while`/`until`/`do` (a loop's condition and body run again), nor `elif`: its
# condition runs only where the earlier ones failed, and what it assigns there holds in the branches after it too
# (scalar_branches.py reads it as its own branch's), so it stays unknown there
_LEADS = frozenset({"if", "then", "else"})
SKIP = object()  # AndOr.step: bash never runs the group


def reader(groups: Sequence, ends: dict, redirected: frozenset = frozenset()) -> tuple:
    """(groups, reader) for shell_commands.and_or_reader: the groups guarded_braces marks, and an AndOr where an
    and-or list may have a status the script decides before its `&&`/`||` (`false && ...`, `[ -n "" ] || ...`,
    `L=1 && ...`), else None."""
    marked = guarded_braces(groups)
    for index, op in ends.items():
        if op in _LOGIC and 0 <= index < len(groups) and isinstance(groups[index][0], list) and groups[index][0]:
            words = groups[index][0]
            first = literal(words[_leads(words)]) if _leads(words) < len(words) else ""
            if first in _STATUS_WORDS or "=" in first:
                return marked, AndOr(marked, groups, ends, redirected)
    return marked, None


def guarded_braces(groups: Sequence) -> Sequence:
    """`groups` with every group of a `{ ...; }` run after `&&` or `||` marked as may not run (True): `cmd && { L=7;
    L=8; }` runs the braces whole or not at all, yet only the `{ L=7` group follows the `&&`; the `L=8` after the `;`
    was read as sure (bash 5.2.15: `grep -q x f || { L=7; L=8; }` leaves L as it was where the grep finds x). An
    `if`, loop or `case` there is ctx.flow's."""
    if not any(conditional and words and literal(words[0]) in ("{", "!") for words, conditional in groups):
        return groups  # the cheap test: no brace group after `&&`/`||`
    spans = compound_spans(groups)
    marked = list(groups)
    for index, (words, conditional) in enumerate(groups):
        opener = [literal(w) for w in words[:2]] if conditional and isinstance(words, list) else []
        if "{" not in opener or (opener[0] != "{" and opener[0] != "!") or index not in spans:
            continue
        for inner in spans[index]:
            if marked[inner][1] is False:
                marked[inner] = (marked[inner][0], True)
    return marked


class AndOr:
    """Follows the and-or lists of one command list as shellwords._build_commands reads its groups in order."""

    __slots__ = ("groups", "raw", "ends", "spans", "status", "skip_to", "sure", "final", "redirected")
    SKIP = SKIP

    def __init__(self, groups: Sequence, raw: Sequence, ends: dict, redirected: frozenset = frozenset()) -> None:
        self.groups, self.raw, self.ends = groups, raw, ends  # raw: before guarded_braces marked the `{ }` groups
        self.redirected = redirected  # groups with a redirection that may fail (shell_commands.may_fail)
        self.spans = compound_spans(groups)
        self.status: Optional[int] = None  # the status of the list so far, when known
        self.skip_to = -1  # the groups up to this index never run
        self.sure = range(0)  # the groups of an element that surely runs: their own `conditional`
        self.final: tuple = (-1, None)  # (the last group of the and-or list that ended last, its status if known)

    def step(self, index: int, conditional, ctx):
        """The group's `conditional` as it should be read (False where it surely runs), or SKIP where bash never
        runs it."""
        if index <= self.skip_to:
            return SKIP
        if index in self.sure and index != self.sure.start:
            return self.raw[index][1] if conditional is not None else conditional
        words = self.groups[index][0]
        end = self._element_end(index)
        # a subshell's `(` and a function's definition are groups of their own (subshells.Mark,
        # function_defs.Defined), never marked as after the `&&` before them
        logic = conditional or conditional is None and (getattr(words, "opens", False) or hasattr(words, "items"))
        before = self.ends.get(index - 1) if logic else None
        if logic and before in _LOGIC and self.status is not None and not ctx.discard:
            runs = (self.status == 0) == (before == "&&")
            if not runs:  # the status stays that of the command before, for the next `&&`/`||`
                self.skip_to = end
                self._after(end)
                return SKIP
            self.sure = range(index, end + 1)
            conditional = conditional and False
        elif conditional:  # may or may not run: the list's status is no longer known
            self.status = None
            self._after(end)
            return conditional
        # a pipeline's last command is not its status: a `!` before the pipeline inverts it and `set -o pipefail`
        # takes the last failing one (bash manual, Pipelines; bash 5.2.15: `! false | false && L=2` assigns)
        piped = self.ends.get(index - 1) in _PIPES
        lead = _leads(words) if isinstance(words, list) else 0
        if 0 < lead < len(words) and not piped:  # `if true && L=35; then`: a list of its own starts in the compound
            self.status = _status(words[lead:], ctx, index in self.redirected) \
                if self.ends.get(index) not in _PIPES else None
            self._after(index)
            return conditional
        self.status = _status(words, ctx, index in self.redirected) \
            if end == index and isinstance(words, list) and not piped else None
        self._after(end)
        return conditional

    def _after(self, end: int) -> None:
        """After the element ending at group `end`: the list goes on only past an `&&` or `||`."""
        if self.ends.get(end) not in _LOGIC:
            self.final = (end, self.status)
            self.status = None

    def _element_end(self, index: int) -> int:
        """The last group of the list element starting at group `index`: a compound command's or subshell's whole,
        and a pipeline's (`false && a | b` runs neither)."""
        end = self._command_end(index)
        while self.ends.get(end) in _PIPES and end + 1 < len(self.groups):
            end = self._command_end(end + 1)
        return end

    def _command_end(self, index: int) -> int:
        words = self.groups[index][0]
        span = self.spans.get(index)
        if span is not None and span.start == index:
            return span.stop - 1
        if getattr(words, "opens", False):  # a subshell's `(`: to the `)` paired with it (subshells.marked)
            return next((k for k in range(index + 1, len(self.groups))
                         if getattr(self.groups[k][0], "pair", None) is words), index)
        return index


def _leads(words) -> int:
    """How many of the words are keywords in front of a command's first word (`else if true`: 2)."""
    k = 0
    while k < len(words) and literal(words[k]) in _LEADS:
        k += 1
    return k


def _status(words, ctx, redirected: bool = False) -> Optional[int]:
    """The exit status of a simple command when the script decides it, else None. A redirection that may fail
    makes the command fail whatever it is (bash 5.2.15: `true > /nonexistent/x || L=2` assigns, status 1; an
    assignment's value is still set), so its status is not known."""
    if not words or redirected:
        return None
    first = literal(words[0])
    if first == "!":
        inner = _status(words[1:], ctx)
        return None if inner is None else int(inner == 0)
    if len(words) == 1 and first in _KNOWN:
        return _KNOWN[first]
    if all(_plain_assignment(w, ctx) for w in words):
        return 0
    if first in ("[", "[[", "test") and OPAQUE not in ctx.local.branches.path:  # not in a loop (branches._decide)
        lone, ctx.lone_test = ctx.lone_test, True
        try:
            taken = decide([words[0]] + list(words), ctx)  # decide() skips a keyword first
        finally:
            ctx.lone_test = lone
        return None if taken is None else int(not taken)
    return None


def _plain_assignment(word, ctx) -> bool:
    """`NAME=value` with no command substitution, to a name the script has not made readonly."""
    if not word.parts or word.parts[0].kind != "lit" or word.parts[0].quoted:
        return False
    head = "".join(run[0] for run in word.parts[0].runs)
    name, eq, _ = head.partition("=")
    if not eq or not name.isidentifier() or name in ctx.readonly:
        return False
    # `$( )` gives its status, inside a default too (`M=${X:-$(false)}`: 1 where X is unset, bash 5.2.15), and
    # `${X?}` exits where X is unset
    return not any(part.kind == "cmd" or part.kind == "var" and any(
        c in "".join(run[0] for run in part.runs) for c in ("?", "$(", "`")) for part in word.parts)
