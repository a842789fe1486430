"""TGI's launcher exits when both max_input_tokens and max_input_length are set, by flag or env (from 2.0.0)."""
from __future__ import annotations

import pytest

from tests.helpers import run

WHY = "(max_input_length is the deprecated spelling of max_input_tokens, and TGI refuses both)"

POD = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: tgi}
spec:
  template:
    spec:
      containers:
      - name: tgi
        image: ghcr.io/huggingface/text-generation-inference:TAG
        args: [--model-id, m/m, ARGS]
        env:
        - {name: HF_HOME, value: /data}
ENV
        resources: {limits: {nvidia.com/gpu: 1}}
"""


def check(tmp_path, name: str, text: str) -> str:
    (tmp_path / name).write_text(text)
    return run(["check", str(tmp_path / name), "--select", "CTX301"]).out


def pod(tag: str, args: str, env: str = "") -> str:
    return POD.replace("TAG", tag).replace("ARGS", args).replace("ENV\n", env)


@pytest.mark.parametrize("args, env, where, message", [
    # two flags: at the later one
    ('--max-input-length, "4096", --max-input-tokens, "4000"', "", "10:82",
     "argument --max-input-tokens: --max-input-length 4096 is set too"),
    ('--max-input-tokens, "4000", --max-input-length, "4096"', "", "10:82",
     "argument --max-input-length: --max-input-tokens 4000 is set too"),
    # two variables of the container's environment: at the later one
    ("--port, '80'", '        - {name: MAX_INPUT_TOKENS, value: "4000"}\n'
                     '        - {name: MAX_INPUT_LENGTH, value: "4096"}\n', "14:43",
     "env MAX_INPUT_LENGTH: MAX_INPUT_TOKENS=4000 is set too"),
    # a flag and a variable: at the one to drop
    ('--max-input-tokens, "4000"', '        - {name: MAX_INPUT_LENGTH, value: "4096"}\n', "13:43",
     "env MAX_INPUT_LENGTH: --max-input-tokens 4000 is set too"),
])
def test_both_input_limits_refused_at_a_pinned_release(tmp_path, args, env, where, message):
    out = check(tmp_path, "tgi.yaml", pod("3.0.1", args, env))
    want = "set only MAX_INPUT_TOKENS" if "env MAX_INPUT_LENGTH: MAX_INPUT_TOKENS" in message \
        else "set only --max-input-tokens"
    assert out == f"{tmp_path / 'tgi.yaml'}:{where}: CTX301 [error] tgi 3.0.1 would refuse to start: {message} " \
                  f"{WHY}: {want} (engine-rejects-value)\n"


def test_the_release_decides(tmp_path):
    args = '--max-input-length, "4096", --max-input-tokens, "4000"'
    # 1.x had max_input_length alone: no such check there (its own parser judges --max-input-tokens)
    assert "both" not in check(tmp_path, "old.yaml", pod("1.4.5", args))
    # an unpinned image runs the newest, which refuses: said with the release it starts at
    out = check(tmp_path, "latest.yaml", pod("latest", args))
    assert "CTX301 [error] tgi 2.0.0 and later would refuse to start: argument --max-input-tokens: " \
           "--max-input-length 4096 is set too" in out
    assert check(tmp_path, "one.yaml", pod("3.0.1", '--max-input-tokens, "4000"')) == ""


def test_compose_environment_and_flag(tmp_path):
    compose = """\
services:
  tgi:
    image: ghcr.io/huggingface/text-generation-inference:2.4.1
    command: --model-id m/m --max-input-length 4096 --max-total-tokens 8192
    environment:
      MAX_INPUT_TOKENS: "4000"
"""
    out = check(tmp_path, "compose.yaml", compose)
    assert out == f"{tmp_path / 'compose.yaml'}:4:48: CTX301 [error] tgi 2.4.1 would refuse to start: argument " \
                  f"--max-input-length: MAX_INPUT_TOKENS=4000 is set too {WHY}: set only MAX_INPUT_TOKENS " \
                  "(engine-rejects-value)\n"
