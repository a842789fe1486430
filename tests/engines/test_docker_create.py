"""`docker create` (`docker container create`, podman's and nerdctl's) makes the container `docker start` runs:
its options, image and command are `docker run`'s, so it is read as `run` is (sweep 46: three `docker create
... vllm/vllm-openai:v0.6.3 --model ... --max-model-len 8192` in one setup script gave no deployment)."""
from __future__ import annotations

import pytest

from ctxlint.engines import split_shell
from ctxlint.engines.detect import detect
from ctxlint.engines.docker_run import parse_run


def _detections(line: str) -> list[tuple[str, str]]:
    return [(d.engine, d.launcher) for cmd in split_shell(line, defaults=True).commands for d in detect(cmd.tokens)]


@pytest.mark.parametrize("verb", ["docker create", "docker container create", "podman create", "nerdctl create"])
def test_create_reads_as_run(verb):
    line = f"{verb} --name v --gpus all -p 8001:8000 vllm/vllm-openai:v0.6.3 --model Qwen/Qwen3-8B"
    assert _detections(line) == [("vllm", "image:vllm/vllm-openai:v0.6.3")]
    # a program after an image whose entrypoint is not the engine, as after `run`
    assert _detections(f"{verb} --name s lmsysorg/sglang:v0.4.6 python3 -m sglang.launch_server --model-path m") == \
        [("sglang", "sglang.launch_server")]
    words = line.split()
    assert words[parse_run(words).image] == "vllm/vllm-openai:v0.6.3"


@pytest.mark.parametrize("line", [
    "docker network create vllm-net", "docker volume create models", "docker buildx create --use",
    "docker compose create vllm", "docker start vllm-llama3-8b",
])
def test_other_create_commands_name_no_image(line):
    assert parse_run(line.split()) is None
    assert _detections(line) == []


def test_a_create_script_is_one_deployment_per_container(tmp_path):
    from tests.helpers import run

    path = tmp_path / "setup.sh"
    path.write_text("#!/bin/bash\n" + "".join(
        f"docker create --name v{i} --gpus all vllm/vllm-openai:v0.6.3 --model Qwen/Qwen2.5-{size}B-Instruct "
        f"--max-model-len {ctx}\n" for i, (size, ctx) in enumerate((("7", 8192), ("14", 6144)))) +
        "docker start v0\n")
    out = run(["audit", str(path), "--isolated", "--format", "json"]).out
    import json

    rows = json.loads(out)["deployments"] if isinstance(json.loads(out), dict) else json.loads(out)
    assert sorted((r["model"], r["engine_context"]) for r in rows) == [
        ("Qwen/Qwen2.5-14B-Instruct", 6144), ("Qwen/Qwen2.5-7B-Instruct", 8192)]
