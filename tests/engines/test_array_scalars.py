"""A scalar assignment to an array sets element 0, and `declare -a NAME` makes an array (engines/array_scalars.py).

bash 5.2.15: `declare -a A; A+=" --x 1"` gives one element ` --x 1`; `B=(a b); B+=" --z"` gives `a --z` and `b`;
`$A` is `${A[0]}`.
"""
from __future__ import annotations

from ctxlint.engines.shellwords import split_shell
from helpers import run


def words(text: str) -> list[tuple[str, bool]]:
    return [(t.text, bool(t.unresolved)) for t in split_shell(text, defaults=True).commands[-1].tokens[1:]]


def test_declare_a_then_a_scalar_append_is_element_0():
    # Before: `${A[@]}` and `"${A[0]}"` of the name `declare -a` made were unknown, `$A` began with an unknown
    assert words('declare -a A\nA+=" --x 1"\nc $A ${A[@]} "${A[0]}"') == [
        ("--x", False), ("1", False), ("--x", False), ("1", False), (" --x 1", False)]
    assert words('declare -a A\nc "${A[@]}" $A') == []  # an empty array: no word at all
    assert words('A=5\ndeclare -a A\nA+=" --x"\nc "${A[@]}"') == [("5 --x", False)]  # a scalar becomes element 0


def test_a_scalar_assignment_to_an_array_replaces_only_element_0():
    # Before: the array kept its old elements, as if `A="--z"` had not run
    assert words('A=(a b)\nA="--z"\nc ${A[@]}') == [("--z", False), ("b", False)]
    assert words('A=(a b)\nA+=" --z"\nc "${A[@]}"') == [("a --z", False), ("b", False)]
    assert words('A=(a b)\nc $A') == [("a", False)]


def test_what_may_not_run_leaves_the_array_unknown():
    assert words('declare -a A\nfor x in 1; do A+=" --x"; done\nc "${A[@]}"') == [("${A[@]}", True)]
    assert words('A=(a b)\n[ -n "$Q" ] && A="--z"\nc "${A[@]}"') == [("${A[@]}", True)]


def test_a_launch_reads_the_flags_appended_to_element_0(tmp_path):
    # Before: CTX201 at the engine's default 131,072 ("nothing sets --max-model-len")
    (tmp_path / "serve.sh").write_text('#!/bin/bash\n#SBATCH --gres=gpu:l4:1\ndeclare -a ARGS\nARGS+=" --max-model-len '
                                       '8192"\nvllm serve meta-llama/Llama-3.1-8B-Instruct ${ARGS[@]}\n')
    assert run(["check", "--isolated", str(tmp_path / "serve.sh")]).out == ""
