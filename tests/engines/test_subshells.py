"""What a subshell assigns is lost at its `)` (engines/subshells.py). Each expected value is what bash 5.2.15 gives,
printed with `vllm() { echo "$@"; }` in front of the script."""
from __future__ import annotations

import pytest

from ctxlint.engines.shellwords import split_shell

RUN = "vllm serve Qwen/Qwen2.5-7B-Instruct"


def argvs(text: str, resolver=None) -> list[list[str]]:
    return [c.argv for c in split_shell(text, resolver, defaults=True).commands]


@pytest.mark.parametrize("inside", [
    "A+=(--max-model-len 200000)", "A=(--max-model-len 200000)", "S='--max-model-len 200000'",
    "export S='--max-model-len 200000'", "S=x; S+=' --max-model-len 200000'", "unset S A",
    "f() { :; }", "declare S='--max-model-len 200000'",
])
def test_a_subshell_s_assignments_exports_and_definitions_are_lost_at_its_end(inside):
    # Before: `( A+=(--max-model-len 200000) )` left A with the flag twice, 200000 read last (a false CTX109).
    text = f"A=(--max-model-len 4096)\nS='--max-model-len 8192'\n( {inside} )\n{RUN} \"${{A[@]}}\" $S\nf"
    # (`["A+="]`: an array assigned inside `( )` is a word of its own there, as before this change)
    assert [a for a in argvs(text) if a != ["A+="]] == [
        [*RUN.split(), "--max-model-len", "4096", "--max-model-len", "8192"], ["f"]]


def test_an_engine_inside_a_subshell_runs_with_the_subshell_s_values_and_they_end_with_it():
    text = f"L=4096\n( L=200000; {RUN} --max-model-len $L ) &\n( (L=1) ; {RUN} --max-model-len $L )\n" \
           f"{RUN} --max-model-len $L\n"
    assert [a[-1] for a in argvs(text)] == ["200000", "4096", "4096"]


def test_exports_made_in_a_subshell_are_not_the_engine_s_environment():
    (command,) = split_shell("( export VLLM_X=1 )\nexport VLLM_Y=2\nvllm serve m\n", defaults=True).commands
    assert [(e.name, e.token.text) for e in command.exported] == [("VLLM_Y", "VLLM_Y=2")]


@pytest.mark.parametrize("text, last", [
    ("L=4096\n((L=200000))\n", "200000"),  # arithmetic, in the shell itself: not a subshell
    ("L=4096\ncase $M in a) L=1;; (b) L=2;; esac\n", "$L"),  # arms' patterns: a case, not a subshell
    ("L=4096\n( case $M in a) L=1;; esac; L=5 )\n", "4096"),
])
def test_arithmetic_commands_and_case_patterns_are_no_subshells(text, last):
    assert argvs(text + f"{RUN} --max-model-len $L")[-1][-1] == last


def test_a_pipeline_s_loop_and_a_command_substitution_never_leave_their_value():
    # bash 5.2 (lastpipe off) runs each element of a pipeline in a subshell: 4096 after it; `$( )` too
    # (before: unknown after the loop; its value is put back now, apart_state.py)
    assert argvs(f"L=4096\necho x | while read l; do L=200000; done\n{RUN} --max-model-len $L")[0][-1] == "4096"
    assert argvs(f"L=4096\nX=$(L=200000; echo hi)\n{RUN} --max-model-len $L")[0][-1] == "4096"


@pytest.mark.parametrize("text, lasts", [
    ("set_len() { L=200000; }\n( set_len; vllm $L )\nvllm $L", ["200000", "4096"]),  # a function it calls
    ("CMD='L=200000'\n( eval \"$CMD\" )\nvllm $L", ["4096"]),  # `eval`: the whole state is saved
    ("( ( L=1 ); L=2; vllm $L )\nvllm $L", ["2", "4096"]),  # nested
    ("f() { ( L=200000 ); vllm $L; }\nf\nf", ["4096", "4096"]),  # a function's subshell, read at each call
    ("f() { ( local L=1 ); L=200000; }\nf\nvllm $L", ["200000"]),  # a `local` inside is the subshell's only
    ("if [ -z \"$Q\" ]; then L=8192; ( L=200000 ); fi\nvllm $L", ["8192", "4096"]),  # a reading per branch
])
def test_what_a_subshell_s_calls_and_evals_set_is_lost_too(text, lasts):
    # each value as bash 5.2.15 prints it (the last: 8192 with Q empty, 4096 else)
    assert [a[-1] for a in argvs("L=4096\n" + text)] == lasts


def test_the_state_saved_for_each_subshell_is_its_own_names_not_the_script_s():
    # Linear: 2,000 subshells after 2,000 assignments save a few names each, not every name the script has
    from ctxlint.engines import subshells

    saved = []
    real = subshells._state
    subshells._state = lambda name, ctx: saved.append(name) or real(name, ctx)
    try:
        for n in (1000, 2000):
            saved.clear()
            argvs("".join(f"V{i}=1\n( W=2; true ) &\n" for i in range(n)) + f"{RUN} --max-model-len $W")
            assert len(saved) == 2 * n, n  # the names each spells: W and true
    finally:
        subshells._state = real


def test_a_function_whose_body_is_a_subshell_loses_what_it_assigns_at_each_return():
    # bash 5.2.15 and dash 0.5.12 print `vllm 200000`, then `vllm 4096`. Before: 200000 kept after the call
    text = "L=4096\nf() ( L=200000; vllm $L )\nf\nvllm $L"
    assert argvs(text) == [["vllm", "200000"], ["vllm", "4096"]]


def test_a_sourced_function_whose_body_is_a_subshell_loses_what_it_assigns_too():
    lib = "f() (\n  L=200000\n)\n"
    result = split_shell("L=4096\n. ./lib.sh\nf\nvllm $L", defaults=True, sourcer=lambda path: lib)
    assert [c.argv for c in result.commands if c.argv[0] == "vllm"] == [["vllm", "4096"]]


@pytest.mark.parametrize("text, last", [
    # bash 5.2.15 and dash 0.5.12: a subshell's `set --` and `shift` are its own (`a b` after them)
    ("set -- --max-model-len 4096\n( set -- --max-model-len 200000 )\nvllm \"$@\"", ["--max-model-len", "4096"]),
    ("set -- --max-model-len 4096\n( shift )\nvllm \"$@\"", ["--max-model-len", "4096"]),
    ("L=4096\ntime ( L=200000 )\nvllm --max-model-len $L", ["--max-model-len", "4096"]),  # bash: after `time`
])
def test_a_subshell_s_positional_words_and_one_after_time_are_lost_at_its_end(text, last):
    # Before: 200000 (or `4096` alone, shifted) leaked out of the subshell
    assert argvs(text)[-1][1:] == last


@pytest.mark.parametrize("define, last", [
    # bash 5.2.15 (checked): a definition in a pipeline's element or a background job is made in that subshell, so
    # the `f` after it is the earlier definition or no function (before: 1, the subshell's body run here)
    ("echo | f() { L=1; }", "4096"), ("f() { L=1; } &", "4096"), ("f() { L=1; } | cat", "4096"),
    ("f() { L=2; }\necho | f() { L=1; }", "2"), ("f() { L=1; }", "1"),
])
def test_a_function_defined_in_a_pipeline_or_a_job_is_the_subshell_s(define, last):
    text = f"#!/bin/bash\nL=4096\n{define}\nf\n{RUN} --max-model-len $L\n"
    assert [a[-1] for a in argvs(text) if a[0] == "vllm"] == [last]


@pytest.mark.parametrize("define, last", [
    # a pipeline or job inside braces runs apart, not the braces: bash 5.2.15 (checked) defines f in the script for
    # each. Before, the braces' first group (which opens them and ends in the `|`/`&`) took the whole group apart:
    # f was not defined and the launch in its body was lost
    ("{ echo | cat; f() { L=1; }; }", "1"), ("{ echo | cat\n  f() { L=1; }\n}", "1"),
    ("{ echo | cat; f() { L=1; }; } && true", "1"), ("{ f() { L=1; }; } | cat", "4096"),
    ("echo | { f() { L=1; }; }", "4096"), ("{ L=7; f() { L=1; }; } && true &", "4096"),
])
def test_a_pipeline_inside_braces_leaves_the_braces_in_the_script(define, last):
    text = f"#!/bin/bash\nL=4096\n{define}\nf\n{RUN} --max-model-len $L\n"
    assert [a[-1] for a in argvs(text) if a[0] == "vllm"] == [last]


def test_a_launch_in_a_function_defined_after_a_pipeline_in_braces_is_read():
    text = f"#!/bin/bash\n{{ nvidia-smi | grep -q H100\n  serve() {{ {RUN} --max-model-len 8192; }}\n}}\nserve\n"
    assert [a[-1] for a in argvs(text) if a[0] == "vllm"] == ["8192"]
