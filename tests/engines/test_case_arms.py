"""A `case` whose arms assign, read as the `if`/`elif`/`else` bash runs it as (engines/case_arms.py): one reading
per arm, `*)` the `else`, no `*)` a reading with the values from before. Each expectation is what bash 5.2.15 runs
with `vllm() { echo "[$*]"; }` in front, for each value of the caller's $GPU (checked)."""
from __future__ import annotations

import pytest

from ctxlint.engines.shellwords import split_shell

from .test_scalar_branches import readings

RUN = "vllm serve m --max-model-len"


def test_each_arm_is_a_reading_of_its_own():
    # before: L "set inside a branch or loop", unknown (CTX008); $CMD not known at all: no launch read
    text = f'case "$GPU" in\n  h100) L=200000 ;;\n  a100) L=100000 ;;\nesac\n{RUN} ${{L:-8192}}\n'
    assert readings(text) == [(RUN.split() + ["200000"], "case $GPU h100)"),
                              (RUN.split() + ["100000"], "case $GPU a100)"),
                              (RUN.split() + ["8192"], "else")]  # no arm matches: L as before, unset
    text = f'case "$GPU" in\n  h100) CMD="{RUN} 200000" ;;\n  *) CMD="{RUN} 4096" ;;\nesac\n$CMD\n'
    assert readings(text) == [(RUN.split() + ["200000"], "case $GPU h100)"),
                              (RUN.split() + ["4096"], "case $GPU *)")]


def test_the_value_is_where_its_arm_types_it():
    text = f'case "$GPU" in\n  h100) L=200000 ;;\n  *) L=4096 ;;\nesac\n{RUN} $L\n'
    first, second = [c for c in split_shell(text, defaults=True).commands if c.argv[:1] == ["vllm"]]
    assert first.tokens[-1].start == text.index("200000") and second.tokens[-1].start == text.index("4096")


@pytest.mark.parametrize("subject, value", [("h100", "200000"), ("b200", "4096")])
def test_a_known_word_runs_the_arm_it_matches(subject, value):
    text = f'G={subject}\ncase $G in\n  h100) L=200000 ;;\n  *) L=4096 ;;\nesac\n{RUN} $L\n'
    assert readings(text) == [(RUN.split() + [value], "")]


def test_a_star_arm_alone_surely_runs():
    assert readings(f'L=1\ncase "$GPU" in\n  *) L=2 ;;\nesac\n{RUN} $L\n') == [(RUN.split() + ["2"], "")]


@pytest.mark.parametrize("pattern, subject, expected", [
    ("h*", "h100", ["200000"]), ("h?00", "h100", ["200000"]), ("h*", "a100", ["4096"]),
    ("h[0-9]*", "h100", ["200000", "4096"]),  # a bracket expression: not decided here (bash: 200000)
    ("h*", "$GPU", ["200000", "4096"]),  # the caller's word: either
])
def test_a_glob_pattern(pattern, subject, expected):
    text = f'G={subject}\ncase $G in\n  {pattern}) L=200000 ;;\n  *) L=4096 ;;\nesac\n{RUN} $L\n'
    assert [r[0][-1] for r in readings(text)] == expected


def test_a_value_is_known_later_in_its_own_arm():
    text = f'case "$R" in\n  a) L=8192; {RUN} $L ;;\nesac\n'
    [cmd] = [c for c in split_shell(text, defaults=True).commands if c.argv[:1] == ["vllm"]]
    assert cmd.tokens[-1].text == "8192" and not cmd.tokens[-1].unresolved


@pytest.mark.parametrize("text", [
    f'case "$G" in\n  a|b) L=1 ;;\n  *) L=2 ;;\nesac\n{RUN} $L\n',                   # a `|` pattern
    f'case "$G" in\n  a) L=1 ;&\n  *) L=2 ;;\nesac\n{RUN} $L\n',                    # a fall-through
    f'case "$G" in\n  a) L=1 ;;&\n  *) L=2 ;;\nesac\n{RUN} $L\n',                   # `;;&`: tests the next
    f'case "$G" in\n  a) L=1;;&\n  *) L=2 ;;\nesac\n{RUN} $L\n',                    # (bash: a runs `*)` too)
    f'case "$G" in a) L=1 ;;& *) L=2 ;; esac\n{RUN} $L\n',
    f'case "$G" in\n  a) [ -n "$X" ] && L=1 ;;\n  *) L=2 ;;\nesac\n{RUN} $L\n',     # `&&` in an arm
    f'case "$G" in\n  a) if [ -n "$X" ]; then L=1; fi ;;\n  *) L=2 ;;\nesac\n{RUN} $L\n',  # a compound command
    f'for g in a b; do\n  case "$g" in\n    a) L=1 ;;\n    *) L=2 ;;\n  esac\ndone\n{RUN} $L\n',  # in a loop
    f'[ -n "$X" ] && case "$G" in\n  a) L=1 ;;\n  *) L=2 ;;\nesac\n{RUN} $L\n',        # may not run
])
def test_any_other_case_stays_not_known(text):
    result = split_shell(text, defaults=True)
    [cmd] = [c for c in result.commands if c.argv[:1] == ["vllm"]]
    assert cmd.tokens[-1].unresolved and getattr(cmd, "branch", "") == "", text


@pytest.mark.parametrize("text, expected", [
    # an arm that exits leaves no reading after the `esac`, as an `if` branch that exits (before: not followed)
    (f'case "$G" in\n  a) L=1; exit 1 ;;\n  *) L=2 ;;\nesac\n{RUN} $L\n', [RUN.split() + ["2"]]),
    (f'L=4\ncase "$G" in\n  a) L=1; exit 1 ;;\nesac\n{RUN} $L\n', [RUN.split() + ["4"]]),
    (f'case "$G" in\n  a) exit 1 ;;\n  *) exit 2 ;;\nesac\n{RUN} 5\n', []),  # every arm exits: so does the script
])
def test_an_arm_that_exits(text, expected):
    assert [r[0] for r in readings(text)] == expected


@pytest.mark.parametrize("text, expected", [
    # a `case` on one line, its first pattern in the header's group (before: as on its own lines, not followed)
    (f'case "$GPU" in h100) L=200000;; *) L=4096;; esac\n{RUN} $L\n',
     [(RUN.split() + ["200000"], "case $GPU h100)"), (RUN.split() + ["4096"], "case $GPU *)")]),
    (f'G=h100; case $G in h100) L=200000;; *) L=4096;; esac\n{RUN} $L\n', [(RUN.split() + ["200000"], "")]),
    (f'case "$GPU" in h100) CMD="{RUN} 9";; *) CMD="{RUN} 7";; esac; $CMD\n',
     [(RUN.split() + ["9"], "case $GPU h100)"), (RUN.split() + ["7"], "case $GPU *)")]),
    # its word's `${L:?x}` of an L "": bash exits at the `case`, as ctxlint read it before (not rewritten)
    (f'L=""\ncase ${{L:?x}} in a) L=1;; esac\nL=5\n{RUN} $L\n', []),
])
def test_a_case_on_one_line(text, expected):
    assert readings(text) == expected


def test_an_arm_that_exports_gives_its_value_and_no_match_the_callers():
    # bash 5.2.15: X=a runs `-tp 2`; any other X, `-tp $TP` with the caller's TP (not known: unresolved, never 2)
    result = split_shell("case $X in a) export TP=2;; esac\nvllm serve m -tp $TP", lambda name: None)
    first, second = [c for c in result.commands if c.tokens and c.tokens[0].text == "vllm"]
    assert (first.tokens[-1].text, first.branch) == ("2", "case $X a)")
    assert second.tokens[-1].unresolved and second.branch == "else"


@pytest.mark.parametrize("text, expected", [
    # `;;` (or the pattern) on a line of its own, the usual layout of a longer `case` (before: not followed)
    (f'case "$GPU" in\n  h100)\n    L=200000\n    ;;\n  *)\n    L=4096\n    ;;\nesac\n{RUN} $L\n',
     [(RUN.split() + ["200000"], "case $GPU h100)"), (RUN.split() + ["4096"], "case $GPU *)")]),
    (f'case "$GPU" in\n  h100)\n    L=200000\n    # big\n    ;;\nesac\n{RUN} ${{L:-8}}\n',
     [(RUN.split() + ["200000"], "case $GPU h100)"), (RUN.split() + ["8"], "else")]),
    # `;&` / `;;&` on a line of their own fall through: not followed (bash: h100 runs `*)` too)
    (f'case "$GPU" in\n  h100)\n    L=1\n    ;&\n  *)\n    L=2\n    ;;\nesac\n{RUN} $L\n', None),
    (f'case "$GPU" in\n  h100)\n    L=1\n    ;;&\n  *)\n    L=2\n    ;;\nesac\n{RUN} $L\n', None),
])
def test_an_arm_whose_end_is_on_a_line_of_its_own(text, expected):
    if expected is not None:
        assert readings(text) == expected
    else:
        [cmd] = [c for c in split_shell(text, defaults=True).commands if c.argv[:1] == ["vllm"]]
        assert cmd.tokens[-1].unresolved and getattr(cmd, "branch", "") == ""


@pytest.mark.parametrize("text, expected", [
    # an arm whose list starts with an arithmetic command: bash 5.2.15 runs 7 for h100, 5 otherwise. The arm is
    # a branch whose `(( ))`/`let` update is not known (as in an `if` branch), never the 3 from before the `case`
    (f'L=3\ncase "$GPU" in\n  h100) let L=7 ;;\n  *) L=5 ;;\nesac\n{RUN} $L\n', [None, "5"]),
    (f'L=3\ncase "$GPU" in\n  h100) (( L = 7 )) ;;\n  *) L=5 ;;\nesac\n{RUN} $L\n', [None, "5"]),
    (f'L=3\nif [ "$GPU" = h100 ]; then let L=7; else L=5; fi\n{RUN} $L\n', [None, "5"]),
    # its `${N:?x}` of an N "" exits in that arm only: the other arm's launch stays (before: no launch at all)
    (f'N=""\nL=3\ncase "$GPU" in\n  h100) (( ${{N:?x}} )); L=4 ;;\n  *) L=5 ;;\nesac\n{RUN} $L\n', ["5"]),
])
def test_an_arm_that_starts_with_an_arithmetic_command(text, expected):
    got = [c.tokens[-1] for c in split_shell(text, defaults=True).commands if c.argv[:1] == ["vllm"]]
    assert [None if t.unresolved else t.text for t in got] == expected


@pytest.mark.parametrize("shopt, expected", [
    ("", ["4096"]),  # bash 5.2.15: H100 does not match h100)
    ("shopt -s nocasematch\n", ["200000", "4096"]),  # it does under nocasematch (where it is on is not read)
])
def test_a_match_the_case_of_a_letter_decides(shopt, expected):
    text = f'{shopt}G=H100\ncase $G in\n  h100) L=200000 ;;\n  *) L=4096 ;;\nesac\n{RUN} $L\n'
    assert [r[0][-1] for r in readings(text)] == expected
