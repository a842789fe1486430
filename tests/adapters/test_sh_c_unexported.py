"""A child shell (`bash -c '...'`) gets only the script's exported variables (bash manual, Environment): `LEN=8;
bash -c 'echo $LEN'` prints an empty line. Before, a variable the script set but never exported was read inside the
child at the script's value (a CTX109 on a 1,000,000 the engine never gets); now it is not known there (CTX008 says
why), while an exported one and `set -a`'s are passed as before."""
from __future__ import annotations

import pytest

from helpers import run

LAUNCH = "bash -c 'vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len $LEN'\n"
CTX109 = ("CTX109 [error] 1,000,000 > 32,768 x 1 = 32,768: the unified context length 1,000,000 exceeds the model's "
          "trained positions times its RoPE scaling factor by 967,232 tokens.")
CTX008 = ("CTX008 [info] values ctxlint cannot resolve: --max-model-len ${LEN} (LEN is set by the script but not "
          "exported: the child shell gets it only if the script's own environment had it); the checks that need them "
          "are skipped (set them literally) (unresolved-value)")


def check(tmp_path, body: str) -> list[str]:
    path = tmp_path / "serve.sh"
    path.write_text("#!/bin/bash\n#SBATCH --gres=gpu:h100:1\n" + body)
    return run(["check", "--isolated", "-q", str(path)]).out.replace(str(path), "serve.sh").splitlines()


def test_an_unexported_variable_is_not_the_childs(tmp_path):
    assert check(tmp_path, "LEN=1000000\n" + LAUNCH) == [f"serve.sh:4:62: {CTX008}"]
    # escaped in a double-quoted string, `\$LEN` is the child's to expand too
    assert check(tmp_path, 'LEN=1000000\nbash -c "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len \\$LEN"\n') \
        == [f"serve.sh:4:62: {CTX008}"]


@pytest.mark.parametrize("body, line", [
    ("export LEN=1000000\n" + LAUNCH, 4),
    ("LEN=1000000\nexport LEN\n" + LAUNCH, 5),
    ("set -a\nLEN=1000000\n" + LAUNCH, 5),
    # the parent's shell expands a double-quoted string before the child runs
    ('LEN=1000000\nbash -c "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len $LEN"\n', 4),
])
def test_an_exported_variable_is_the_childs(tmp_path, body, line):
    assert check(tmp_path, body)[0].startswith(f"serve.sh:{line}:62: {CTX109}")


def test_the_childs_assignments_stay_the_childs(tmp_path):
    # the child sets its own LEN; the script's LEN after it is still the script's
    out = check(tmp_path, 'LEN=1000000\nbash -c "LEN=2000000; vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len '
                          '\\$LEN"\nvllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len $LEN --port 1\n')
    assert [line.split(" exceeds")[0] for line in out if "CTX109" in line] == [
        "serve.sh:4:75: CTX109 [error] 2,000,000 > 32,768 x 1 = 32,768: the unified (line 4) context length 2,000,000",
        "serve.sh:5:53: CTX109 [error] 1,000,000 > 32,768 x 1 = 32,768: the unified (line 5) context length 1,000,000"]
