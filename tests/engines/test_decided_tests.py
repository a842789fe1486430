"""An `if` whose test the script's own values decide (engines/decided_tests.py): a branch that cannot run leaves no
world, so its values (a flag with no value, a refusal) are never checked; a test on what the caller sets stays
a world per branch."""
from __future__ import annotations

import json

import pytest

from ctxlint.engines.decided_tests import decide
from ctxlint.engines.shellwords import split_shell
from tests.helpers import run

APPEND = ('MODEL="Qwen/Qwen3-0.6B"\n{set}CMD="vllm serve ${{MODEL}} --port 1212"\n'
          'if {test}; then\n    CMD+=" --max-model-len ${{MAX_MODEL_LEN}}"\nfi\neval "${{CMD}}"\n')


def readings(text: str) -> list[tuple[list[str], str]]:
    return sorted((c.argv, c.branch) for c in split_shell(text, defaults=True).commands if c.argv[:1] == ["vllm"])


def test_an_append_under_a_test_of_an_empty_variable_never_runs():
    # Before: the `if` world read `--max-model-len` with no value: CTX301 "expected one argument" on a script
    # whose MAX_MODEL_LEN="" makes bash skip the branch (Lhongpei/myHypotheSAEs serve.sh's shape).
    text = APPEND.format(set='MAX_MODEL_LEN=""\n', test='[ -n "${MAX_MODEL_LEN}" ]')
    assert readings(text) == [(["vllm", "serve", "Qwen/Qwen3-0.6B", "--port", "1212"], "")]


def test_an_append_under_a_test_the_script_makes_true_is_certain():
    text = APPEND.format(set="MAX_MODEL_LEN=8192\n", test="[[ -n $MAX_MODEL_LEN ]]")
    assert readings(text) == [(["vllm", "serve", "Qwen/Qwen3-0.6B", "--port", "1212", "--max-model-len", "8192"],
                               "")]


def test_a_test_of_what_the_caller_sets_keeps_a_world_per_branch():
    text = APPEND.format(set="", test='[ -n "${MAX_MODEL_LEN}" ]')
    assert readings(text) == [
        (["vllm", "serve", "Qwen/Qwen3-0.6B", "--port", "1212"], "else"),
        (["vllm", "serve", "Qwen/Qwen3-0.6B", "--port", "1212", "--max-model-len", "${MAX_MODEL_LEN}"],
         "if [ -n ${MAX_MODEL_LEN} ]")]


def test_branches_after_one_that_surely_runs_are_dead(tmp_path):
    script = tmp_path / "serve.sh"
    script.write_text('LEN=""\nif [[ -z $LEN ]]; then\n    CMD="vllm serve Qwen/Qwen3-0.6B --max-model-len 4096"\n'
                      'elif [ "$X" = y ]; then\n    CMD="vllm serve Qwen/Qwen3-0.6B --max-model-len"\n'
                      'else\n    CMD="vllm serve Qwen/Qwen3-0.6B --max-model-len"\nfi\neval "${CMD}"\n')
    check = run(["check", "--isolated", "--format", "json", str(script)])
    assert [(f["rule"], f["line"], f["column"]) for f in json.loads(check.out)["findings"]] == [("CTX208", 9, 7)]
    audit = json.loads(run(["audit", "--isolated", "--format", "json", str(script)]).out)
    assert [(d["engine_context"], d["name"]) for d in audit["deployments"]] == [(4096, "serve")]


@pytest.mark.parametrize("test, held, expected", [
    ("[ -n $X ]", "", False), ("[ -z $X ]", "", True), ('[ "$X" ]', "a", True), ("test -n ${X}", "a", True),
    ("[ -z abc ]", None, False), ("[ ! -n $X ]", "", None), ("[ $X = a ]", "a", None), ("[ -n ${X:-d} ]", "", None),
    ("[ -n $X", "", None), ("[ -n $Y ]", "", None)])
def test_only_the_plainest_tests_of_what_the_script_set_are_decided(test, held, expected):
    assign = "" if held is None else f"X='{held}'\n"
    text = f"{assign}if {test}; then\n  CMD='vllm serve m --port 1'\nfi\n"
    assert _decisions(text) == [expected]


def _decisions(text: str) -> list:
    """What decide() says of each `if` of the text, with the script's values as the splitter holds them there."""
    import ctxlint.engines.branches as branches
    seen: list = []
    real = branches.decide
    branches.decide = lambda words, ctx: seen.append(real(words, ctx)) or seen[-1]
    try:
        split_shell(text, defaults=True)
    finally:
        branches.decide = real
    return seen


def test_decide_is_none_for_words_that_are_no_test():
    assert decide([], None) is None


@pytest.mark.parametrize("source", ["source ./config.sh", ". config.env"])
def test_a_sourced_file_may_set_the_variable_so_the_test_stays_undecided(source):
    # Before: MAX_MODEL_LEN="" was held past the `source` and the `if` decided false, so the reading with the
    # flag the sourced file's value turns on was dropped; the file is not read, so each branch is a world.
    text = APPEND.format(set=f'MAX_MODEL_LEN=""\n{source}\n', test='[ -n "${MAX_MODEL_LEN}" ]')
    assert readings(text) == [
        (["vllm", "serve", "Qwen/Qwen3-0.6B", "--port", "1212"], "else"),
        (["vllm", "serve", "Qwen/Qwen3-0.6B", "--port", "1212", "--max-model-len"], "if [ -n ${MAX_MODEL_LEN} ]")]


BODY = 'CMD="vllm serve m"; if [ -n "$A" ]; then CMD+=" --max-model-len 8192"; fi; eval $CMD'


@pytest.mark.parametrize("text", [
    # `A=x eval '...'`: the string eval reads sees A=x (bash manual, Simple Command Expansion)
    f"A=\"\"\nA=x eval '{BODY}'\n",
    # `A=x bash -c '...'`: the child shell gets A=x in its environment
    f"A=\"\"\nA=x bash -c '{BODY}'\n",
    # an unexported A=x is not in the child shell's environment: there $A is empty
    f"A=x\nbash -c '{BODY}'\n",
    f"A=x\nbash <<'EOF'\n{BODY}\nEOF\n",
])
def test_a_value_the_text_read_may_not_see_decides_no_test(text):
    # Before: the script's A="" (or A=x) decided the `if` inside the call, the eval string or the child shell,
    # and the branch bash does run there (or the one it skips) was dropped: one reading, the wrong one.
    assert readings(text) == [(["vllm", "serve", "m"], "else"),
                              (["vllm", "serve", "m", "--max-model-len", "8192"], "if [ -n $A ]")]


def test_a_call_prefix_decides_the_test_in_the_body_and_is_undone_after_it():
    # `A=x f`: the body sees A=x, and A is "" again after the call (bash 5.2, bash --posix, dash 0.5.12: see
    # engines/call_prefixes.py). Before, the body's test was undecided: two readings, one that bash never runs.
    assert readings(f'A=""\nf() {{ {BODY}; }}\nA=x f\n') == [(["vllm", "serve", "m", "--max-model-len", "8192"], "")]
    text = f'A=""\nf() {{ {BODY}; }}\nA=x f\nf\n'
    assert [c.argv for c in split_shell(text, defaults=True).commands] == [
        ["vllm", "serve", "m", "--max-model-len", "8192"], ["vllm", "serve", "m"]]
    # a name only the prefix sets is unset again after the call: the second call's test is the environment's
    text = f'f() {{ {BODY}; }}\nA=x f\nf\n'
    assert [(c.argv, c.branch) for c in split_shell(text, defaults=True).commands] == [
        (["vllm", "serve", "m", "--max-model-len", "8192"], ""),
        (["vllm", "serve", "m", "--max-model-len", "8192"], "if [ -n $A ]"), (["vllm", "serve", "m"], "else")]


def test_a_call_prefix_is_the_bodys_value_and_the_old_one_comes_back(tmp_path):
    # Before: the body read LEN=4096, the value before the call (no finding), where bash serves 200000.
    (tmp_path / "serve.sh").write_text("#!/bin/bash\n#SBATCH --gres=gpu:l4:1\nstart() {\n  vllm serve "
                                       "meta-llama/Llama-3.1-8B-Instruct --max-model-len $LEN\n  LEN=1\n}\n"
                                       "LEN=4096\nLEN=200000 start\necho $LEN\n")
    out = run(["check", "--isolated", "--select", "CTX109", str(tmp_path / "serve.sh")]).out
    assert out.startswith(f"{tmp_path / 'serve.sh'}:4:63: CTX109 [error] 200,000 > 131,072: ")
    split = split_shell((tmp_path / "serve.sh").read_text() + "c $LEN\n", defaults=True)
    assert split.commands[-1].argv == ["c", "4096"]  # the body's LEN=1 is undone with the prefix


def test_a_function_called_without_a_prefix_still_decides_per_call():
    text = f'f() {{ {BODY}; }}\nA=""\nf\nA=x\nf\n'
    assert [c.argv for c in split_shell(text, defaults=True).commands] == [
        ["vllm", "serve", "m"], ["vllm", "serve", "m", "--max-model-len", "8192"]]


@pytest.mark.parametrize("cond", ['[ -n "$A" ] || [ -n "$B" ]', '[ -z "$A" ] && [ -n "$B" ]',
                                  '[ -n "$A" ] ||\n   [ -n "$B" ]', '[ -n "$A" ]; [ -n "$B" ]'])
def test_a_test_joined_to_another_before_then_stays_undecided(cond):
    # Before: the first test alone decided the `if` (A="" made `[ -n "$A" ] || [ -n "$B" ]` false and
    # `[ -z "$A" ] && [ -n "$B" ]` true), so the reading for the caller's B was dropped.
    text = f'A=""\nCMD="vllm serve m"\nif {cond}; then CMD+=" --max-model-len 8192"; fi\neval $CMD\n'
    assert sorted(c.argv for c in split_shell(text, defaults=True).commands) == [
        ["vllm", "serve", "m"], ["vllm", "serve", "m", "--max-model-len", "8192"]]


def test_a_launch_typed_in_a_branch_that_cannot_run_is_no_launch():
    # Before: only the values a dead branch assigns were dropped; an engine command typed in it was still a
    # deployment (the docs: the branches after one that surely runs "never run").
    text = ('A=""\nif [ -n "$A" ]; then vllm serve m --max-model-len 1; else vllm serve m --max-model-len 2; fi\n'
            'if [ -n "$B" ]; then vllm serve m --max-model-len 3\n'
            'elif [ -z "$A" ]; then vllm serve m --max-model-len 4\n'
            'else\n  f() { :; }\n  vllm serve m --max-model-len 5\nfi\n'
            'if [ -n "$B" ]; then\n  if [ -n "$A" ]; then vllm serve m --max-model-len 6; fi\n'
            '  vllm serve m --max-model-len 7\nfi\n')
    assert [c.argv[-1] for c in split_shell(text, defaults=True).commands] == ["2", "3", "4", "7"]


def test_a_test_inside_a_loop_stays_undecided():
    # The loop's second pass sees A=x: both launches run (a launch in a dead branch is dropped, so a test
    # decided on the first pass's value would lose the second).
    text = ('A=""\nfor i in 1 2; do\n  if [ -n "$A" ]; then vllm serve m --max-model-len 4096\n'
            '  else vllm serve m --max-model-len 8192; fi\n  A=x\ndone\n')
    assert [c.argv[-1] for c in split_shell(text, defaults=True).commands] == ["4096", "8192"]


def test_a_here_document_script_in_a_branch_that_cannot_run_is_no_launch():
    text = ('A=""\nif [ -n "$A" ]; then\n  bash <<EOF\nvllm serve m --max-model-len 1\nEOF\nelse\n'
            '  bash <<EOF\nvllm serve m --max-model-len 2\nEOF\nfi\n')
    assert [c.argv[-1] for c in split_shell(text, defaults=True).commands if c.argv[0] == "vllm"] == ["2"]


@pytest.mark.parametrize("body", ["export LEN=8192", "export LEN; LEN=8192", "readonly LEN=8192",
                                  "declare -g LEN=8192", "typeset -gx LEN=8192"])
def test_a_prefixed_name_the_body_exports_is_not_known_after_the_call(body):
    # bash 5.2 (and --posix) keep the body's value, 8192, after `LEN=200000 f`; dash gives 4096 back. Before, 4096
    # was read after the call, a value bash never passes.
    text = f'f() {{ {body}; }}\nLEN=4096\nLEN=200000 f\nc "$LEN"\n'
    assert [(t.text, bool(t.unresolved)) for t in split_shell(text, defaults=True).commands[-1].tokens] == [
        ("c", False), ("$LEN", True)]
    # so is one a function the body calls exports (each function read once: `g` and `h` call each other)
    text = 'f() { g; }\ng() { h; export LEN=8192; }\nh() { g; }\nLEN=4096\nLEN=200000 f\nc "$LEN"\n'
    assert [t.unresolved != () for t in split_shell(text, defaults=True).commands[-1].tokens] == [False, True]
    # a `local` or plain assignment in the body is undone with the prefix, as before
    text = 'f() { local LEN=1; LEN=8192; }\nLEN=4096\nLEN=200000 f\nc "$LEN"\n'
    assert split_shell(text, defaults=True).commands[-1].argv == ["c", "4096"]


def test_a_call_prefix_of_a_name_an_if_forked_is_the_bodys_value_and_the_fork_comes_back():
    # bash 5.2: the body reads 8192 whatever branch ran, and after the call LEN is the branch's again (the body's
    # own LEN=1 undone). Before, the body read each branch's value (4096, 200000), and 1 after the call.
    text = ('f() { c "$LEN"; LEN=1; }\nif [ -n "$Q" ]; then LEN=4096; else LEN=200000; fi\nLEN=8192 f\n'
            'c "$LEN"\n')
    assert [(c.argv, c.branch) for c in split_shell(text, defaults=True).commands] == [
        (["c", "8192"], ""), (["c", "4096"], "if [ -n $Q ]"), (["c", "200000"], "else")]
