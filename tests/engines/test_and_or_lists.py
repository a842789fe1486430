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
    # bash 5.2.15 prints 4096 for a host without an x in its name, 8192 for one with: the braces may not run.
    # Before, the L=8192 after the `;` inside them was read as sure (8192), while only the first group of the braces
    # was taken as after the `&&`
    "grep -q x /etc/hostname && { L=2048; L=8192; }", "grep -q x /etc/hostname || { L=2048; L=8192; }",
    "grep -q x /etc/hostname && { export L=2048; L=8192; }", "{ false; } && { L=2048; L=8192; }",
    "grep -q x /etc/hostname && { L=2048\n  L=8192; }", "grep -q x /etc/hostname && { L=2; declare -i L=8192; }",
])
def test_what_braces_after_and_or_assign_may_not_happen(text):
    assert last_words(text) == ["$L"]


@pytest.mark.parametrize("text", [
    # bash 5.2.15 prints 4096 for each: the status before the `&&`/`||` is known, and what follows never runs
    # (before: 8192 for the braces, unknown for the others, and the launch inside read as one)
    "true || { L=2048; L=8192; }", "false && { L=2048; L=8192; }", "false && { export L=2048; L=8192; }",
    "false && { L=2048\n  L=8192; }", "false && { L=2048; declare -i L=8192; }", "[[ -n \"\" ]] && { L=2; L=8192; }",
    "! true && { L=2048; L=8192; }", ": || L=8192", "false && L=8192", "X=\"\"\n[ -n \"$X\" ] && L=8192",
    "X=\ntest \"$X\" && L=8192", "false && (( L++ ))", "false && let L=9", "false && L=8192 | cat",
    "false &&\n  L=8192", "false && for i in 1; do L=8192; done", "false && case x in x) L=8192;; esac",
    "false && { L=8192; " + RUN + " 8192; }", "true || ( " + RUN + " 8192 )", "false && " + RUN + " 8192 | cat",
    "false && if true; then L=8192; " + RUN + " 8192; fi", "readonly M=3\nM=4 && L=8192",
])
def test_what_a_decided_status_rules_out_never_runs(text):
    assert last_words(text) == ["4096"]


@pytest.mark.parametrize("text, last", [
    # bash 5.2.15: what surely runs after a known status is read as any unconditional command (before: unknown)
    ("true && L=8192", "8192"), ("false || L=8192", "8192"), ("false && L=2 || L=8192", "8192"),
    ("true && L=8192 || L=2", "8192"), ("true || L=2 && L=8192", "8192"), ("false && echo | L=2 || L=8192", "8192"),
    ("X=a\n[ -n \"$X\" ] && { L=2; L=8192; }", "8192"), ("X=a\n[[ -z $X ]] || L=8192", "8192"),
    ("! false && L=8192", "8192"), ("M=3 && L=8192", "8192"), ("true && : && L=8192", "8192"),
    ("true && (( L *= 2 ))", "8192"), ("true && export L=8192", "8192"), ("true && M=1 L=8192", "8192"),
    ("f() { true && L=8192; }\nf", "8192"), ("false && f() { L=2; }; true && L=8192", "8192"),
    ("L=2\nfalse && f() { L=2; }\nf() { L=8192; }\ntrue || f() { L=2; }\nf", "8192"),
    # and what may not: a command substitution's status, a loop's later pass, a status set inside braces
    ("M=$(false) && L=2", "$L"), ("for i in 1 2; do\n  [ -n \"$A\" ] && L=2\n  A=x\ndone", "$L"),
    ("true && { false && L=2; }", "$L"),
    # an `if` whose condition is a lone true, : or false: decided as a test is (before: a reading per branch)
    ("if true; then L=8192; fi", "8192"), ("if false; then L=2; else L=8192; fi", "8192"),
    ("if false; then L=2; " + RUN + " 2; fi", "4096"),
])
def test_what_a_decided_status_lets_run(text, last):
    assert last_words(text) == [last]


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


@pytest.mark.parametrize("text", [
    # a pipeline's status is not its last command's alone: `!` before the pipeline inverts it, and pipefail takes
    # the last failing one. bash 5.2.15 prints 8192 for the first three, 4096 for the last. Before, the last
    # command's status was read as the pipeline's and what followed was dropped (the launch too) or read as sure
    "! false | false && L=8192", "{ true || false | false && L=8192; }", "set -o pipefail\nfalse | true || L=8192",
    "set -o pipefail\nfalse | true && L=8192",
])
def test_a_pipelines_status_is_not_its_last_commands(text):
    assert last_words(text) == ["$L"]


@pytest.mark.parametrize("text", [
    # bash 5.2.15 runs the launch in each (a lost deployment before: the launch was dropped)
    "! false | false && " + RUN + " 8192", "{ true || false | false && " + RUN + " 8192; }",
    "for i in 1; do true || false | false && " + RUN + " 8192; done",
])
def test_a_launch_after_a_pipeline_is_read(text):
    assert "8192" in last_words(text)


@pytest.mark.parametrize("text, lasts", [
    # an `if` after `&&`/`||` whose status is not known may not run at all: bash 5.2.15 prints 4096 for each on a
    # host without an x in its name (8192, or 2048, on one with). Before, a decided `if` (a lone true, a test of
    # the script's own value) was read as surely run (a sure 8192), and one with an `else` as either branch only
    ("grep -q x /etc/hostname && if true; then L=8192; fi", ["8192", "4096"]),
    ("X=a\ngrep -q x /etc/hostname && if [ -n \"$X\" ]; then L=8192; fi", ["8192", "4096"]),
    ("grep -q x /etc/hostname && if false; then L=2; else L=8192; fi", ["8192", "4096"]),
    ("grep -q x /etc/hostname && if grep -q y /etc/hostname; then L=2048; else L=8192; fi", ["2048", "8192", "4096"]),
])
def test_an_if_after_and_or_may_not_run(text, lasts):
    assert sorted(last_words(text)) == sorted(lasts)


@pytest.mark.parametrize("text, last", [
    # a function defined in a branch bash never runs is not defined: bash 5.2.15 prints 4096, 4096, 8192 (f is no
    # command after the first two). Before, f was defined and its body run: L=2 read as sure, the launch as one
    ("if false; then f() { L=2; }; fi\nf", "4096"),
    ("X=\nif [ -n \"$X\" ]; then f() { L=2; " + RUN + " 2; }; fi\nf", "4096"),
    ("if false; then f() { L=2; }; else f() { L=8192; }; fi\nf", "8192"),
])
def test_a_function_defined_in_a_branch_never_run_is_not_defined(text, last):
    assert last_words(text) == [last]
