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


def test_local_a_in_a_function_is_a_new_array():
    # bash 5.2: a `local -a A` (or `declare -a A`) in a function is a new empty array, whatever the global A
    # holds, and the global comes back after the call. Before, element 0 of the global array was appended to:
    # `--max-model-len --max-model-len 4096 200000`, a false CTX301 twice.
    text = 'A=(--max-model-len 200000)\nf() { %s; A+=" --max-model-len 4096"; c ${A[@]}; }\nf\nc "${A[@]}"\n'
    for declare in ("local -a A", "declare -a A", "typeset -a A"):
        assert [c.argv for c in split_shell(text % declare, defaults=True).commands] == [
            ["c", "--max-model-len", "4096"], ["c", "--max-model-len", "200000"]], declare
    assert words('A=(a b)\nf() { local -a A=x; A+=(y); c "${A[@]}"; }\nf') == [("x", False), ("y", False)]
    # `declare -g` is the global array; `local A` of an array's name is a scalar: its words are not read as it
    assert words('A=(a b)\nf() { declare -ga A; A+=" --x"; c "${A[@]}"; }\nf') == [("a --x", False), ("b", False)]
    assert words('A=(a b)\nf() { local A; A+=" --x"; c "${A[@]}"; }\nf') == [("${A[@]}", True)]


def test_a_launch_with_a_local_array_in_a_function_is_clean(tmp_path):
    (tmp_path / "serve.sh").write_text('#!/bin/bash\n#SBATCH --gres=gpu:l4:1\nA=(--max-model-len 200000)\nf() { local '
                                       '-a A; A+=" --max-model-len 4096"; vllm serve meta-llama/Llama-3.1-8B-Instruct '
                                       '${A[@]}; }\nf\n')
    assert run(["check", "--isolated", str(tmp_path / "serve.sh")]).out == ""
