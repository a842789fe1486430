"""`coproc [NAME] COMMAND` runs COMMAND in a background subshell (engines/coprocs.py): its engine is a launch."""
from __future__ import annotations

import pytest

from ctxlint.adapters import adapt_file
from ctxlint.engines.shellwords import split_shell
from ctxlint.file_reader import read_path

RUN = "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 4096"


def argvs(text: str) -> list[list[str]]:
    return [c.argv for c in split_shell(text, defaults=True).commands]


@pytest.mark.parametrize("text", [f"coproc {RUN}", f"coproc SRV {{ {RUN}; }}", f"coproc {{ {RUN}; }}",
                                  f"coproc SRV ( {RUN} )", f"coproc ( {RUN} )", f"coproc SRV {{\n  {RUN}\n}}",
                                  f"if true; then coproc {RUN}; fi", f"coproc SRV {{ {{ {RUN}; }}; }}"])
def test_the_coprocess_command_is_read_as_a_launch(text):
    # before: one command named `coproc`, whose words start no engine
    assert argvs(text) == [RUN.split()]


def test_a_coprocess_group_is_a_subshell_and_the_script_goes_on():
    # bash 5.2.15: `coproc S { L=5; ...; }` leaves L unset after it; the next command runs at once
    text = f"coproc SRV {{ L=5; {RUN} --port $L; }}\nvllm serve m2 --port ${{L:-7}}\n"
    assert argvs(text) == [RUN.split() + ["--port", "5"], ["vllm", "serve", "m2", "--port", "7"]]
    # a simple command's first word is never a NAME, and `coproc` as an argument is no coprocess
    assert argvs("coproc env L=1 vllm serve m") == [["vllm", "serve", "m"]]
    assert argvs("echo coproc vllm serve m") == []
    assert argvs("coproc SRV while true; do vllm serve m; done") == [["vllm", "serve", "m"]]


def test_a_script_that_starts_its_engine_as_a_coprocess_is_a_deployment(tmp_path):
    path = tmp_path / "serve.sh"
    path.write_text(f"#!/bin/bash\ncoproc VLLM {{ {RUN}; }}\nwait\n")
    [dep] = adapt_file(read_path(str(path))).deployments
    [role] = dep.roles
    assert (dep.engine.name.value, dep.model.id.value, role.context_length.value) == \
        ("vllm", "Qwen/Qwen2.5-7B-Instruct", 4096)
    assert (role.context_length.source.line, role.context_length.source.col) == (2, 67)


def test_a_simple_coprocess_command_is_a_subshell_too():
    # bash 5.2.15: `L=4096; coproc L=200000; wait; echo $L` prints 4096, and `coproc f` of an `f() { L=9; }` leaves
    # L as it was: the simple command runs in the coprocess's subshell (before, `coproc` was dropped and L=200000
    # read as the script's own assignment)
    assert argvs("#!/bin/bash\nL=4096\ncoproc L=200000\nvllm serve m --max-model-len $L\n") == \
        [["vllm", "serve", "m", "--max-model-len", "4096"]]
    assert argvs("#!/bin/bash\nf() { L=9; }\nL=1\ncoproc f\nvllm serve m --max-model-len $L\n") == \
        [["vllm", "serve", "m", "--max-model-len", "1"]]
    # its redirections stay its own, and what follows `&&`, `|` or `;` is read as before
    assert argvs(f"coproc {RUN} > log 2>&1 && vllm serve m2\ncoproc vllm serve m3 | cat; vllm serve m4\n") == \
        [RUN.split(), ["vllm", "serve", "m2"], ["vllm", "serve", "m3"], ["cat"], ["vllm", "serve", "m4"]]
