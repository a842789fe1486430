"""`${NAME:=word}` and `${NAME=word}` assign (engines/default_assigns.py). Each expected value is what bash 5.2.15
prints for the launcher script with `vllm() { echo "${@: -1}"; }` in front (checked), L unset by the caller."""
from __future__ import annotations

import pytest

from ctxlint.engines.shellwords import split_shell

RUN = "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len"


def last_words(text: str) -> list[str]:
    commands = split_shell(f"#!/bin/bash\n{text}\n{RUN} $L\n", defaults=True).commands
    return [c.argv[-1] for c in commands if c.argv[0] == "vllm" and c.argv[2] == "Qwen/Qwen2.5-7B-Instruct"]


@pytest.mark.parametrize("text, last", [
    # before: unknown (`L is not set in the file`), or the empty value for `L=`
    (": ${L:=8192}", "8192"), (": ${L=8192}", "8192"), ("L=\n: ${L:=8192}", "8192"), (": \"${L:=8192}\"", "8192"),
    ("echo ${L:=8192} > /dev/null", "8192"), ("M=${L:=8192}", "8192"),
    ("if [ -n \"$X\" ]; then : ${L:=8192}; else L=8192; fi", "8192"),
    # a value the script set is kept (bash: 4096), as before
    ("L=4096\n: ${L:=8192}", "4096"), ("L=4096\n: ${L=8192}", "4096"),
])
def test_an_assigning_default_assigns(text, last):
    assert last_words(text) == [last]


@pytest.mark.parametrize("text", [
    # `:-` and `-` assign nothing: L stays unset (bash prints the flag alone), unknown here as before
    ": ${L:-8192}", ": ${L-8192}",
    # where the command may not run, or runs in a subshell of its own, L is not known (bash: unset in each)
    "grep -q x /etc/hostname && : ${L:=8192}", ": ${L:=8192} | cat", "( : ${L:=2} )", ": ${L:=2} &",
    "for i in $LIST; do : ${L:=8192}; done",
])
def test_what_may_not_assign_is_not_a_value(text):
    assert last_words(text) == ["$L"]


def test_a_null_value_stays_null_without_the_colon():
    # bash 5.2.15: `L=; : ${L=8192}` leaves L empty, so --max-model-len gets no value (as before)
    assert last_words("L=\n: ${L=8192}") == ["--max-model-len"]


def test_the_assigned_default_is_checked(tmp_path):
    from helpers import run

    path = tmp_path / "serve.sh"
    path.write_text("#!/bin/bash\n: ${MAX_LEN:=200000}\nvllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len $MAX_LEN\n")
    out = run(["check", "--isolated", "-q", str(path)]).out
    assert "CTX109 [error] 200,000 > 32,768" in out  # before: CTX008, MAX_LEN not set in the file


@pytest.mark.parametrize("text, last", [
    # a child shell's assignment (`bash -c`, `sh -c`), an assigning default's too, stays in that shell: bash
    # 5.2.15 prints 9, 9, 9 and 5 (before: 8, 8, 8 and 8, the child's value read as the script's)
    ("bash -c ': ${M:=8}'\nL=${M:-9}", "9"), ("sh -c 'M=8'\nL=${M:-9}", "9"), ("bash -c \"M=8\"\nL=${M:-9}", "9"),
    ("export L=5\nbash -c 'L=8; : ${L:=7}'", "5"),
])
def test_a_child_shell_assigns_nothing_of_the_script(text, last):
    assert last_words(text) == [last]
