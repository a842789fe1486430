"""Values assigned inside an `if` branch (engines/branches.py): known to the later commands of that branch and of
`if`s nested in it; unknown after it, in loops and `case`, and after `&&`."""
from __future__ import annotations

import pytest

from ctxlint.engines.shellwords import split_shell


def last_value(text: str) -> tuple[str, bool]:
    token = split_shell(text, defaults=True).commands[-1].tokens[-1]
    return token.text, bool(token.unresolved)


@pytest.mark.parametrize("text", [
    'if [ "$R" = 0 ]; then\n  MML=8192\n  vllm serve m --max-model-len $MML\nfi\n',
    'if [ "$R" = 0 ]; then\n  MML=8192\n  if [ -n "$D" ]; then echo; else vllm serve m --max-model-len $MML; fi\nfi\n',
    'if [ "$R" = 0 ]; then :; else\n  MML=8192\n  vllm serve m --max-model-len $MML\nfi\n',
    'if [ "$R" = 0 ]; then\n  MML=8192\n  eval "vllm serve m --max-model-len $MML"\nfi\n',
    'if [ "$R" = 0 ]; then\n  eval "MML=8192"\n  vllm serve m --max-model-len $MML\nfi\n',
    # a plain `case`'s arm is a branch too (case_arms.py; before: unknown)
    'case "$R" in\n  a) MML=8192; vllm serve m --max-model-len $MML ;;\nesac\n',
])
def test_a_value_assigned_in_a_branch_is_known_later_in_that_branch(text):
    assert last_value(text) == ("8192", False)


@pytest.mark.parametrize("text", [
    'if [ "$R" = 0 ]; then MML=8192; fi\nvllm serve m --max-model-len $MML\n',                 # after the branch
    'if [ "$R" = 0 ]; then MML=8192; else vllm serve m --max-model-len $MML; fi\n',            # in another branch
    'for x in 1 2; do\n  MML=8192\n  vllm serve m --max-model-len $MML\ndone\n',                 # a loop's next round
    'while true; do if [ -n "$D" ]; then MML=8192; vllm serve m --max-model-len $MML; fi; done\n',
    'if [ "$R" = 0 ]; then\n  [ -n "$D" ] && MML=8192\n  vllm serve m --max-model-len $MML\nfi\n',   # after &&
    'if [ "$R" = 0 ]; then\n  [ -n "$D" ] && eval "MML=8192"\n  vllm serve m --max-model-len $MML\nfi\n',
    'if [ "$R" = 0 ]; then\n  MML=8192\n  read MML\n  vllm serve m --max-model-len $MML\nfi\n',
])
def test_a_value_assigned_in_a_branch_is_unknown_where_it_may_not_hold(text):
    assert last_value(text) == ("$MML", True)
