"""`(( EXPR ))` and `let`: bash's arithmetic commands assign in the current shell (lint/engines/arith_commands.py;
bash manual, Shell Arithmetic). Read as commands before, `(( L++ ))` left L unchanged and `((L=L*2))` made it the
text `L*2`, a false CTX301 at the `--max-model-len $L` after it."""
from __future__ import annotations

import pytest

from ctxlint.engine import lint_text
from ctxlint.engines.shellwords import split_shell


def _argv(text: str) -> list:
    return [c.argv for c in split_shell(text, defaults=True).commands]


@pytest.mark.parametrize("update, value", [
    ("(( L++ ))", "4097"), ("(( ++L ))", "4097"), ("(( L-- ))", "4095"), ("(( L += 2 ))", "4098"),
    ("((L=L*2))", "8192"), ("(( L = $L / 2 ))", "2048"), ("(( L %= 1000 ))", "96"), ("let L++", "4097"),
    ("let 'L = L * 2'", "8192"), ("(( L < 3 ))", "4096"),  # a comparison assigns nothing
])
def test_one_update_of_a_known_integer_is_its_new_value(update, value):
    assert _argv(f"L=4096\n{update}\nvllm serve m --max-model-len $L\n") == \
        [["vllm", "serve", "m", "--max-model-len", value]]


@pytest.mark.parametrize("update", [
    "(( L = L * 2, M = 1 ))",  # a comma list
    "(( L = M++ ))",  # another variable changes too
    "(( L += N ))",  # N is the environment's, not known
    "for i in 1 2; do (( L++ )); done",  # a loop: any number of times
    "[ -n \"$X\" ] && (( L++ ))",  # may not run
])
def test_an_update_not_decidable_leaves_the_value_unknown(update):
    assert _argv(f"L=4096\n{update}\nvllm serve m --max-model-len ${{L:-unknown}}\n") == \
        [["vllm", "serve", "m", "--max-model-len", "${L:-unknown}"]]


def test_let_assigns_each_word():
    assert _argv("L=5\nlet L=L*2 M=3\nvllm serve m $L $M\n") == [["vllm", "serve", "m", "10", "3"]]


def test_nested_subshells_are_not_arithmetic():
    assert _argv("L=5\n( (L=7) )\nvllm serve m $L\n") == [["vllm", "serve", "m", "5"]]


def test_the_doubled_length_is_checked_not_refused():
    text = ("#!/bin/bash\nL=4096\n((L=L*2))\n"
            "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len $L\n")
    assert [f.rule for f in lint_text(text, "serve.sh").findings] == ["CTX208"]  # was CTX301 on 'L*2'
