"""An `if`'s condition list: it runs whenever the `if` does, and its status picks the branch.

    if true && L=35; then :; else L=133; fi        # bash 5.2.15: L=35, the `then` branch
    if L=35; then :; fi                              # L=35 whatever the branch

branches.py opens the `if` at its keyword, so a command of the condition was read as the first branch's: what it
assigns was dropped in the other worlds (`else` read L as it was before the `if`), and a condition of more than one
command (`A && B`) was never decided. bash runs the condition list before any branch, once (bash manual,
Conditional Constructs: "The test-commands list is executed, and if its return status is zero, the
consequent-commands list is executed"), so:

* what the condition assigns is read as assigned in front of the `if` (branches.outside), not as a branch's own;
* where and_or.AndOr knows the status the list ended with (`true && L=35`: that of L=35, 0), the branch it picks
  is decided at the `then` (`decide_at_then`), as decided_tests.py decides a lone test.

Only an `if`'s own condition, not an `elif`'s (it runs only where the earlier ones failed: a world of their own)
nor a loop's (it runs again each pass). What an `elif`'s condition surely assigns is known in its own branch
(branches._into_branch), and not known in the branches after it, which it ran before (scalar_branches._Frame.tested).
"""
from __future__ import annotations

from .branches import OPAQUE


def decide_at_then(final: tuple, index: int, ctx) -> None:
    """At the `then` (group `index`) of an `if` not yet decided: the status the condition list ended with, where
    and_or.AndOr knows it (`final`: the last group of the list before the `then`, its status), picks the branch."""
    ifs = ctx.local.ifs
    end, status = final
    if status is None or end != index - 1 or not ifs or ifs[-1][0] != "if" or ifs[-1][5] != [False, False]:
        return
    if OPAQUE in ctx.local.branches.path:
        return  # inside a loop or `case`: a later pass may differ (branches._decide)
    ifs[-1][5] = [status != 0, status == 0]
