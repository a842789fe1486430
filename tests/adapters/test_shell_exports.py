"""A script's exported variables are the environment of the engine it starts (engines/shell_exports.py): TGI
reads every flag from an env var, llama.cpp LLAMA_ARG_*; a variable assigned without export stays the script's."""
from __future__ import annotations

import pytest

from ctxlint.adapters import adapt_file
from ctxlint.engines.shellwords import split_shell
from ctxlint.file_reader import parse_bytes
from helpers import run

TGI = "text-generation-launcher --model-id Qwen/Qwen2.5-7B-Instruct\n"


def context(text: str, name: str = "serve.sh"):
    """(value, line, col) of each role's context length."""
    result = adapt_file(parse_bytes(("#!/bin/bash\n" + text).encode(), name))
    return [(r.context_length.value, r.context_length.source.line, r.context_length.source.col)
            if r.context_length is not None else None for d in result.deployments for r in d.roles]


def exported(text: str) -> list[dict]:
    return [{a.name: a.value for a in c.exported} for c in split_shell(text, defaults=True).commands]


@pytest.mark.parametrize("text, expected", [
    ("export MAX_TOTAL_TOKENS=65536\nexport MAX_INPUT_TOKENS=60000\n" + TGI, [(65536, 2, 25)]),
    ("MAX_TOTAL_TOKENS=65536\nexport MAX_TOTAL_TOKENS\n" + TGI, [(65536, 2, 18)]),  # at the assignment
    ("export MAX_TOTAL_TOKENS\nMAX_TOTAL_TOKENS=65536\n" + TGI, [(65536, 3, 18)]),  # the attribute is the name's
    ("export A=1 MAX_TOTAL_TOKENS=65536\nMAX_TOTAL_TOKENS=50000\n" + TGI, [(50000, 3, 18)]),  # a later value
    ("declare -x MAX_TOTAL_TOKENS=65536\n" + TGI, [(65536, 2, 29)]),
    ("typeset -rx MAX_TOTAL_TOKENS=65536\n" + TGI, [(65536, 2, 30)]),
    ("set -a\nMAX_TOTAL_TOKENS=65536\nset +a\nMAX_INPUT_TOKENS=1\n" + TGI, [(65536, 3, 18)]),
    ("set -eo allexport\nMAX_TOTAL_TOKENS=65536\n" + TGI, [(65536, 3, 18)]),
    ("f() {\n  export MAX_TOTAL_TOKENS=65536\n}\nf\n" + TGI, [(65536, 3, 27)]),  # a function's export is global
    ("export MAX_TOTAL_TOKENS=65536\nbash -c \"" + TGI.strip() + "\"\n", [(65536, 2, 25)]),
    ("export MAX_TOTAL_TOKENS=65536\nMAX_TOTAL_TOKENS=16384 " + TGI, [(16384, 3, 18)]),  # the prefix wins
    ("export MAX_TOTAL_TOKENS=65536\nMAX_TOTAL_TOKENS=16384 bash -c '" + TGI.strip() + "'\n", [(16384, 3, 18)]),
    # not in the engine's environment: no context length set (the engine's default)
    ("MAX_TOTAL_TOKENS=65536\n" + TGI, [None]),
    ("export MAX_TOTAL_TOKENS=65536\nexport -n MAX_TOTAL_TOKENS\n" + TGI, [None]),
    ("export MAX_TOTAL_TOKENS=65536\nunset MAX_TOTAL_TOKENS\n" + TGI, [None]),
    ("declare -x MAX_TOTAL_TOKENS=65536\ndeclare +x MAX_TOTAL_TOKENS\n" + TGI, [None]),
    ("f() {\n  local MAX_TOTAL_TOKENS=65536\n  export MAX_TOTAL_TOKENS\n}\nf\n" + TGI, [None]),
    ("export MAX_TOTAL_TOKENS\n" + TGI, [None]),  # exported but never set: not in the environment
    # the container gets only its `-e` variables
    ("export MAX_TOTAL_TOKENS=65536\ndocker run ghcr.io/huggingface/text-generation-inference:3.0 "
     "--model-id Qwen/Qwen2.5-7B-Instruct\n", [None]),
    # llama.cpp's LLAMA_ARG_CTX_SIZE (the repro): 40,960 was its default for Qwen3-8B
    ("export LLAMA_ARG_CTX_SIZE=65536\nllama-server -m /models/Qwen3-8B-Q4_K_M.gguf -np 1\n", [(65536, 2, 27)]),
])
def test_exported_variables_reach_the_engine_and_others_do_not(text, expected):
    assert context(text) == expected


def test_branches_and_unknown_values():
    text = ("if [ \"$X\" = 1 ]; then\n  export MAX_TOTAL_TOKENS=65536\n  " + TGI +
            "else\n  export MAX_TOTAL_TOKENS=16384\nfi\n" + TGI)
    assert context(text)[0] == (65536, 3, 27)  # the branch's own value
    # after the `fi`: unknown
    assert split_shell(text, defaults=True).commands[1].exported[0].token.unresolved[-1].why == "branch"
    # a name exported only in a branch may be in the environment or not
    assert split_shell("A=1\nif x; then export A; fi\nc\n", defaults=True).commands[-1].exported[0].token.unresolved
    # after `source FILE`, a name exported but never set here may be set by the file
    cmd = split_shell("source env.sh\nexport A\nc\n", defaults=True).commands[-1]
    assert cmd.exported[0].token.unresolved[-1].why == "sourced"
    assert exported("export A=1 B=$X\nc\n") == [{"A": "1", "B": "$X"}]
    assert split_shell("A=1\nc\n", defaults=True).commands[0].exported == ()


def test_an_exported_value_not_known_is_ctx008_at_the_export(tmp_path):
    path = tmp_path / "serve.sh"
    path.write_text("#!/bin/bash\nexport MAX_TOTAL_TOKENS=$(cat len.txt)\nexport MAX_INPUT_TOKENS=$IN\n" + TGI)
    result = run(["check", "--isolated", "--select", "CTX008", str(path)])
    assert result.out == (
        f"{path}:3:25: CTX008 [info] values ctxlint cannot resolve: --max-input-tokens from env (env "
        "MAX_INPUT_TOKENS has no literal value: MAX_INPUT_TOKENS is set from ${IN}); --max-total-tokens from env "
        "(env MAX_TOTAL_TOKENS has no literal value: MAX_TOTAL_TOKENS is set from a command substitution, not "
        "evaluated); the checks that need them are skipped (set them literally) (unresolved-value)\n")
