"""`unset NAME` and a function's `local NAME` take a value away (engines/shell_unset.py). Each expected value is
what bash 5.2.15 gives, printed with `vllm() { echo "$@"; }` in front of the script."""
from __future__ import annotations

import pytest

from ctxlint.engines.shellwords import split_shell

RUN = "vllm serve Qwen/Qwen2.5-7B-Instruct"


def argvs(text: str, resolver=None) -> list[list[str]]:
    return [c.argv for c in split_shell(text, resolver, defaults=True).commands]


def test_unset_takes_the_value_away_and_the_environment_s_too():
    # Before: `unset LEN` was ignored, `${LEN:-8192}` read 200000 (a false CTX109).
    env = {"LEN": "100000"}.get
    for resolver in (None, env):
        assert argvs(f"LEN=200000\nunset LEN\n{RUN} --max-model-len ${{LEN:-8192}} ${{LEN-7}} $LEN", resolver) \
            == [[*RUN.split(), "--max-model-len", "8192", "7", "$LEN"]]  # bash: "" for the last (left unknown)
    assert argvs(f"unset -v LEN\n{RUN} --max-model-len ${{LEN:-8192}}", env)[0][-1] == "8192"
    # in a branch it may not run: unknown after it, never the old value
    assert argvs(f"LEN=200000\nif [ -n \"$Q\" ]; then unset LEN; fi\n{RUN} --max-model-len ${{LEN:-8192}}")[0][-1] \
        == "${LEN:-8192}"
    assert argvs(f"LEN=1\nunset LEN\nLEN=4096\n{RUN} --max-model-len $LEN")[0][-1] == "4096"


def test_unset_of_a_function_an_array_and_one_element():
    assert argvs(f"f() {{ {RUN}; }}\nunset -f f\nf\n") == [["f"]]
    assert argvs(f"f() {{ {RUN}; }}\nunset f\nf\n") == [["f"]]  # no variable `f`: bash takes the function
    assert argvs(f"f=1\nf() {{ {RUN}; }}\nunset f\nf\n") == [RUN.split()]  # the variable goes, not the function
    assert argvs(f"A=(--max-model-len 200000)\nunset A\n{RUN} \"${{A[@]}}\"") == [RUN.split()]
    (command,) = split_shell(f"A=(--a 1 --max-model-len 200000)\nunset 'A[3]'\n{RUN} \"${{A[@]}}\"",
                             defaults=True).commands
    assert "200000" not in command.argv and any(t.unresolved for t in command.tokens)


@pytest.mark.parametrize("declare", ["local LEN", "declare LEN", "typeset LEN", "local -i LEN", "local A LEN"])
def test_a_function_s_local_name_without_a_value_is_unset_until_it_returns(declare):
    # Before: `local LEN` kept the global 200000 inside the function (a false CTX109).
    text = f"LEN=200000\nf() {{\n  {declare}\n  {RUN} --max-model-len ${{LEN:-8192}}\n}}\nf\nc $LEN\n"
    assert [a[-1] for a in argvs("#!/usr/bin/env bash\n" + text)] == ["8192", "200000"]
    # dash's `local L` keeps the global value (and it has no `declare`): a script bash may not read, unknown
    for shebang in ("#!/bin/sh\n", ""):
        assert [a[-1] for a in argvs(shebang + text)] == ["${LEN:-8192}", "200000"]


def test_local_with_a_value_and_declare_g_are_as_before():
    text = f"LEN=4096\nf() {{ local LEN=200000; {RUN} --max-model-len $LEN; }}\nf\n{RUN} --max-model-len $LEN"
    assert [a[-1] for a in argvs(text)] == ["200000", "4096"]
    text = f"LEN=200000\nf() {{ declare -g LEN; {RUN} --max-model-len ${{LEN:-8192}}; }}\nf"
    assert argvs(text)[0][-1] == "200000"
    # a name unset before the call is unset again after it, not the environment's
    text = f"#!/bin/bash\nunset LEN\nf() {{ local LEN=1; }}\nf\n{RUN} --max-model-len ${{LEN:-8192}}"
    assert argvs(text, {"LEN": "100000"}.get)[0][-1] == "8192"


@pytest.mark.parametrize("shebang, expected", [("#!/bin/bash\n", "4096"), ("#!/bin/sh\n", "${L:-8192}")])
def test_unset_with_both_f_and_v_unsets_nothing_in_bash_and_is_unknown_in_dash(shebang, expected):
    # bash 5.2.15: "unset: cannot simultaneously unset a function and a variable", L stays 4096; dash 0.5.12 goes
    # by the last flag (`-fv` unsets the variable). Before: `${L:-8192}` was 8192 in a bash script too
    text = shebang + "L=4096\nunset -fv L\nvllm serve m --max-model-len ${L:-8192}\n"
    assert split_shell(text, defaults=True).commands[0].argv[-1] == expected
