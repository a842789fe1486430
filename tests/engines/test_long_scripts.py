"""Scripts of thousands of lines that grow one value or open many `( eval ... )` subshells read the same as before,
only faster (word_expansion.py joins a word's characters by segments; subshells.py copies whole tables for a
subshell whose words may change any name). The generators below make the shapes fuzz27 found slow (a top-level
`S+="..."` over 5,000 lines took ~45 s, quadratic); the timings are in the change's report, not asserted here.
What is asserted is the output, exactly: the same words, at the same places, as a script that types them once."""
from __future__ import annotations

import pytest

from ctxlint.engines.shellwords import split_shell

N = 400
HEAD = "#!/bin/bash\nS=\"\"\n"
LAUNCH = "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192 $S\n"


def _grown(form: str, n: int = N) -> str:
    line = {"append": 'S+=" --opt{i} {i}"\n', "assign": 'S="$S --opt{i} {i}"\n'}[form]
    return HEAD + "".join(line.format(i=i) for i in range(n)) + LAUNCH


def _flags(n: int = N) -> list:
    return [word for i in range(n) for word in (f"--opt{i}", str(i))]


@pytest.mark.parametrize("form", ["append", "assign"])
def test_a_value_grown_over_many_lines_gives_every_word_at_the_reference(form):
    text = _grown(form)
    (command,) = split_shell(text, defaults=True).commands
    assert command.argv == ["vllm", "serve", "Qwen/Qwen2.5-7B-Instruct", "--max-model-len", "8192"] + _flags()
    at = text.rindex("$S")
    assert {(t.start, t.end) for t in command.tokens[5:]} == {(at, at + 2)}
    assert all(set(t.starts) == {at} and set(t.ends) == {at + 2} for t in command.tokens[5:])
    assert [r.name for t in command.tokens[5:6] for r in t.refs] == ["S"]


def test_the_value_typed_once_reads_the_same_words():
    typed = HEAD.replace('S=""', 'S="' + " ".join(_flags()) + '"') + LAUNCH
    grown = split_shell(_grown("append"), defaults=True).commands[0]
    assert split_shell(typed, defaults=True).commands[0].argv == grown.argv


def _subshells(n: int = N) -> str:
    lines = [f'V{i}=--opt{i}\n( eval "V{i}=changed; W{i}=new; export V{i}" )\n' for i in range(n)]
    return "#!/bin/bash\n" + "".join(lines) + f'vllm serve m $V0 $V{n - 1} ${{W0:-none}} ${{W{n - 1}:-none}}\n'


def test_many_eval_subshells_put_every_name_back():
    result = split_shell(_subshells(), defaults=True)
    (command,) = [c for c in result.commands if c.argv[:1] == ["vllm"]]
    assert command.argv == ["vllm", "serve", "m", "--opt0", f"--opt{N - 1}", "none", "none"]
    assert command.exported == ()  # the subshells' exports are theirs


def test_an_eval_subshell_inside_a_function_keeps_the_frame_s_locals():
    text = ("#!/bin/bash\nL=1\nf() {\n  local L=2\n  ( eval \"L=3\" )\n  vllm serve m --max-model-len \"$L\"\n}\n"
            "f\nvllm serve m --max-model-len \"$L\"\n")
    assert [c.argv[-1] for c in split_shell(text, defaults=True).commands if c.argv[:1] == ["vllm"]] == ["2", "1"]
