"""`docker run` lines whose options hold words ctxlint does not know still start their engine (sweep 39).

An array appended to in an `if` (`ENVS+=(...)`) is its known elements and then an unknown rest
(shellarrays.py); expanded among `docker run`'s options it is zero or more option words, never the image.
Taken for the image, the image was lost, and with `--entrypoint python3` the launch vanished: "no findings,
0 deployments". An `--entrypoint` program that starts an engine starts it whatever the image.
"""
from __future__ import annotations

import pytest

from ctxlint.engines.docker_run import parse_run
from helpers import run

LAUNCH = "-m sglang.launch_server --model-path Qwen/Qwen3-8B --context-length 1048576"
CTX109 = "CTX109 [error] 1,048,576 > 40,960 x 1 = 40,960: the unified context length 1,048,576 exceeds"

BRANCHED = """\
#!/bin/bash
ENVS=(-e NCCL_DEBUG=WARN)
if [ -n "$OFFLINE" ]; then
    ENVS+=(-e HF_HUB_OFFLINE=1)
fi
BASE=(--gpus all --entrypoint python3 "${ENVS[@]}")
docker run -d "${BASE[@]}" lmsysorg/sglang:v0.5.2 %s
""" % LAUNCH


def _check(tmp_path, text: str) -> str:
    path = tmp_path / "start.sh"
    path.write_text(text)
    result = run(["check", "--isolated", "--select", "CTX109", str(path)])
    return result.out + result.err


def test_an_entrypoint_launch_after_an_array_appended_in_an_if_is_read(tmp_path):
    out = _check(tmp_path, BRANCHED)
    assert f"start.sh:7:119: {CTX109}" in out and "1 deployment" in out, out


@pytest.mark.parametrize("line", [
    f'docker run --gpus all --entrypoint python3 acme/llm-runtime:2 {LAUNCH}',  # an image not named for the engine
    f'docker run --entrypoint python3 $DOCKER_OPTS --gpus all my/img:2 {LAUNCH}',  # an unknown word of options
    f'docker run --entrypoint python3 "$@" lmsysorg/sglang:v0.5.2 {LAUNCH}',
])
def test_an_entrypoint_that_starts_the_engine_is_read(tmp_path, line):
    out = _check(tmp_path, f"#!/bin/bash\n{line}\n")
    assert CTX109 in out and "1 deployment" in out, out


def test_unknown_option_words_are_not_the_image():
    texts = ["docker", "run", "--entrypoint", "python3", "-e", "A=1", "${ENVS[@]}", "img:1", "-m", "x"]
    assert parse_run(texts).image == 7
    assert parse_run(["docker", "run", "$OPTS", "img:1"]).image == 2  # a scalar may be the image itself
    assert parse_run(["docker", "run", "$OPTS", "img:1"], frozenset({2})).image == 3


def test_a_double_quoted_container_script_is_read_as_the_host_expanded_it(tmp_path):
    # sweep 42 (makiisthenes/dgx-spark-multinode-vllm-ray): `VLLM_CMD="vllm serve \"$MODEL\" ..."` run as
    # `IMAGE -c "$VLLM_CMD"`: the host's shell expands the script, the container's bash reads the result, so the
    # quotes inside the value quote; ctxlint kept them and named the model '"Qwen/Qwen3-8B"'
    text = ('#!/bin/bash\nMODEL=Qwen/Qwen3-8B\nVLLM_CMD="vllm serve \\"$MODEL\\" --max-model-len 1048576"\n'
            'docker run -d --entrypoint /bin/bash --gpus all myimg:1 -c "$VLLM_CMD"\n')
    out = _check(tmp_path, text)
    assert "'\"Qwen/Qwen3-8B\"'" not in out and "CTX109 [error] 1,048,576 > 40,960" in out
    # what the host left for the container (`\$LEN`) is the container's `-e` variable
    text = ('#!/bin/bash\ndocker run -e LEN=1048576 --entrypoint /bin/bash --gpus all myimg:1 '
            '-c "vllm serve Qwen/Qwen3-8B --max-model-len \\$LEN"\n')
    assert "CTX109 [error] 1,048,576 > 40,960" in _check(tmp_path, text)
