"""An `if`'s own condition list runs whenever the `if` does, and the status it ends with picks the branch
(engines/if_conditions.py); a redirection that may fail makes its command's status unknown, and a here-document
fed to a command bash never runs is never read (engines/redirect_status.py). Each expected value is what bash
5.2.15 prints for the script with `vllm() { echo "${@: -1}"; }` in front (checked)."""
from __future__ import annotations

import pytest

from ctxlint.engines.shellwords import split_shell

RUN = "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len"


def last_words(text: str) -> list[str]:
    commands = split_shell(f"#!/bin/bash\nL=4096\n{text}\n{RUN} $L\n", defaults=True).commands
    return [c.argv[-1] for c in commands if c.argv[0] == "vllm" and c.argv[2] == "Qwen/Qwen2.5-7B-Instruct"]


@pytest.mark.parametrize("text, last", [
    # before: 133 (the else read as the only world) or a reading per branch, one of them the value before the `if`
    ("if true && L=8192; then :; else L=133; fi", "8192"), ("if false || L=8192; then :; else L=133; fi", "8192"),
    ("if L=8192; then :; fi", "8192"), ("if L=8192; then :; else :; fi", "8192"),
    ("if true && L=2 && false; then L=3; elif true; then L=8192; else L=4; fi", "8192"),
    ("if ! true && L=2; then L=3; else L=8192; fi", "8192"), ("if true && L=2; then L=8192; fi", "8192"),
    ("if true; then if L=8192 && false; then :; else :; fi; fi", "8192"),
    ("if L=8192; grep -q x /etc/hostname; then :; else :; fi", "8192"),
    ("if true && L=16384; then L=$((L / 2)); fi", "8192"),
])
def test_an_if_condition_list_runs_and_decides(text, last):
    assert last_words(text) == [last]


@pytest.mark.parametrize("text", [
    # what the list cannot decide stays a reading per branch, or unknown, never one branch's value
    "if grep -q x /etc/hostname && L=2; then L=3; fi", "for i in 1 2; do if true && L=2; then :; fi; L=3; done",
])
def test_an_undecided_condition_is_no_value(text):
    assert "4096" not in last_words(text) or len(last_words(text)) > 1


@pytest.mark.parametrize("text, last", [
    # a redirection that may fail: the status is not known (bash 5.2.15 prints 8192 for the first, the redirection
    # fails; before: the `||` side was dropped as never run, and its launch lost)
    ("true > /nonexistent/x || L=8192", "$L"), ("true < /nonexistent && L=2", "$L"), (": > \"$LOG\" || L=2", "$L"),
    # a copy of a descriptor the script may not have opened (bash 5.2.15: `true >&3 || L=2` prints "3: Bad file
    # descriptor" and assigns 2; before: read as true, the `||` side dropped and L 4096)
    ("true >&3 || L=2", "$L"), ("true 2>&5 || L=2", "$L"), ("true <&4 && L=2", "$L"),
    # no file opened: the status is the command's (as before)
    ("true > /dev/null && L=8192", "8192"), (": 2>&1 && L=8192", "8192"), ("false 2>/dev/null || L=8192", "8192"),
    ("true >&2 && L=8192", "8192"), ("true <<< x && L=8192", "8192"), ("true >&- && L=8192", "8192"),
    ("true 1>&2 && L=8192", "8192"), ("true 3>/dev/null && L=8192", "8192"),
    # an assignment keeps its value where its redirection fails (bash 5.2.15: 8192)
    ("L=8192 > /nonexistent/x", "8192"),
])
def test_a_redirection_that_may_fail(text, last):
    assert last_words(text) == [last]


def test_a_redirection_that_may_fail_keeps_the_launch_after_it():
    text = "true > /nonexistent/x || vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192\n"
    assert [c.argv[-1] for c in split_shell(text, defaults=True).commands] == ["8192"]  # before: none


@pytest.mark.parametrize("text, last", [
    # a here-document fed to a command bash never runs is never read (before: its launch was read)
    ("false && bash <<EOT\n" + RUN + " 2\nEOT", []), ("true || bash <<'EOT'\n" + RUN + " 2\nEOT", []),
    ("false && cat <<EOT | bash\n" + RUN + " 2\nEOT", []),
    ("false && bash <<EOT && echo x\n" + RUN + " 2\nEOT", []),
    # one that may run, or surely runs, is read as before
    ("grep -q x /etc/hostname && bash <<EOT\n" + RUN + " 2\nEOT", ["2"]),
    ("true && bash <<EOT\n" + RUN + " 2\nEOT", ["2"]), ("false && cat <<A\nx\nA\nbash <<EOT\n" + RUN + " 2\nEOT", ["2"]),
])
def test_a_here_document_of_a_command_never_run(text, last):
    assert last_words(text) == last + ["4096"]


@pytest.mark.parametrize("text", [
    # a command substitution inside a default gives the assignment its status as a bare one does (bash 5.2.15 with
    # X unset: 6; with X set: 5); before, the `if` was decided as taken (a lone reading of 5)
    "if M=${X:-$(false)}; then L=5; else L=6; fi", "if M=\"${X:-`false`}\"; then L=5; else L=6; fi",
])
def test_a_command_substitution_in_a_default_is_no_plain_assignment(text):
    assert sorted(last_words(text)) == ["5", "6"]


@pytest.mark.parametrize("text, last", [
    # a first branch that assigns nothing is a world of its own: L as before the `if` (bash 5.2.15: 4096 where
    # grep finds root, 3 where not); before, only the `else` branch's 3 was read
    ("if grep -q root /etc/passwd; then echo ok; else L=3; fi", ["4096", "3"]),
    ("if grep -q root /etc/passwd; then :; elif grep -q x /etc/hostname; then L=5; else L=3; fi", ["4096", "5", "3"]),
    ("if : ${M:=3} || :; then :; else L=5; fi", ["4096", "5"]),  # (the status of `: ${M:=3}` is not decided)
])
def test_a_branch_that_assigns_nothing_leaves_the_value_before(text, last):
    assert last_words(text) == last


def _launches(text: str) -> list[str]:
    """The --max-model-len of each launch in `text` (after L=4096), in order."""
    commands = split_shell(f"#!/bin/bash\nL=4096\n{text}\n", defaults=True).commands
    return [c.argv[-1] for c in commands if c.argv[0] == "vllm"]


@pytest.mark.parametrize("text, expected", [
    # an `elif`'s condition runs before its own branch and every later one: the `else`, or none where there is no
    # `else`, holds what it assigned, never the value from before the `if` (bash 5.2.15 prints 7 with X and Y
    # unset; before: 4096, the value from before the `if`, in the else and after the `fi`)
    (f'if [ -n "$X" ]; then :; elif L=7 && [ -n "$Y" ]; then :; else {RUN} $L; fi', ["$L"]),
    (f'if [ -n "$X" ]; then :; elif L=7 && [ -n "$Y" ]; then :; fi\n{RUN} $L', ["4096", "7", "$L"]),
    (f'if [ -n "$X" ]; then L=1; elif L=7; [ -n "$Y" ]; then L=2; fi\n{RUN} $L', ["1", "2", "$L"]),
    (f'if [ -n "$X" ]; then L=1; elif [ -n "$Y" ]; then L=2; elif L=5 && [ -n "$Z" ]; then :; else {RUN} $L; fi',
     ["$L"]),
    # its own branch starts with what it assigned where that surely ran before the `then` (before: not known)
    (f'if [ -n "$X" ]; then :; elif L=7; then {RUN} $L; fi', ["7"]),
    (f'if [ -n "$X" ]; then :; elif L=7 && [ -n "$Y" ]; then {RUN} $L; fi', ["7"]),
    # an assignment after `||` may not have run: not known, as before
    (f'if [ -n "$X" ]; then :; elif [ -n "$Y" ] || L=7; then {RUN} $L; fi', ["$L"]),
    # an `elif` with no assignment in its test: the branches after it as before
    (f'if [ -n "$X" ]; then L=1; elif [ -n "$Y" ]; then L=2; fi\n{RUN} $L', ["1", "2", "4096"]),
])
def test_an_elif_test_assigns_before_its_branch_and_the_later_ones(text, expected):
    assert _launches(text) == expected
