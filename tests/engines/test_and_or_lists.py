"""What a command after `&&` or `||` assigns may not happen: bash runs it only on the status of the command before
(bash manual, Lists). Each expected value is what bash 5.2.15 prints for the script with `vllm() { echo "$@"; }`
in front (checked); where the left side's status is not read here (`grep -q ...`) the value is unknown (`$L`),
never the one a branch bash may skip assigns."""
from __future__ import annotations

import pytest

from ctxlint.engines.shellwords import split_shell

RUN = "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len"


def last_words(text: str) -> list[str]:
    commands = split_shell(f"#!/bin/bash\nL=4096\n{text}\n{RUN} $L\n", defaults=True).commands
    return [c.argv[-1] for c in commands if c.argv[0] == "vllm"]


@pytest.mark.parametrize("text", [
    # bash 5.2.15 prints 4096 for each: the braces never run. Before, the L=8192 after the `;` inside them was read
    # as sure (8192), while only the first group of the braces was taken as after the `||`
    "true || { L=2048; L=8192; }", "false && { L=2048; L=8192; }", "false && { export L=2048; L=8192; }",
    "{ false; } && { L=2048; L=8192; }", "false && { L=2048\n  L=8192; }", "false && { L=2048; declare -i L=8192; }",
    "[[ -n \"\" ]] && { L=2048; L=8192; }", "! true && { L=2048; L=8192; }",
])
def test_what_braces_after_and_or_assign_may_not_happen(text):
    assert last_words(text) == ["$L"]


@pytest.mark.parametrize("text", [
    # bash 5.2.15 prints 4096 for `grep -q x /etc/hostname && ...` on a host without an x in its name, 8192 on one
    # with: a line break (or a blank line, or a comment) after `&&`/`||` is blank space, the command after it no
    # less conditional. Before, each was read as a sure 8192.
    "grep -q x /etc/hostname &&\n  L=8192", "grep -q x /etc/hostname ||\n  L=8192",
    "grep -q x /etc/hostname && # a comment\n  L=8192", "grep -q x /etc/hostname &&\n\n  L=8192",
    "grep -q x /etc/hostname ||\n{\n  L=2048\n  L=8192\n}",
])
def test_a_line_break_after_and_or_keeps_the_next_command_conditional(text):
    assert last_words(text) == ["$L"]


@pytest.mark.parametrize("text, last", [
    # what surely runs is read as before: braces closed before a later sure assignment, a subshell's own values,
    # `set --` inside braces that may not run (bash 5.2.15: 8192, 4096, 4096)
    ("false && { { L=2048; }; L=1; }; L=8192", "8192"), ("true || ( L=8192 )", "4096"),
    ("grep -q x y && { L=2; set -- 9; }\nL=4096", "4096"),
])
def test_what_surely_runs_is_unchanged(text, last):
    assert last_words(text) == [last]


def test_a_launch_inside_braces_sees_its_values_as_before():
    # inside the braces the first assignment ran before the launch: as in an `if` branch, read as the typed value
    text = "grep -q x y && {\n  L=8192\n  " + RUN + " 8192\n}"
    assert last_words(text) == ["8192", "$L"]
