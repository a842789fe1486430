"""A compose service whose `build` Compose refuses, or whose Dockerfile is missing or not readable, is said (CTX008 at
the value that names the build) instead of silence; a Dockerfile's bytes that are not UTF-8 read as U+FFFD, as a
script's do (lint/adapters/compose_build.py unread_note, lint/dockerfile.py read_dockerfile). Modelled on
av__harbor's services/compose.vllm.yml, a `vllm` service whose `build: {context: ./services/vllm, dockerfile:
Dockerfile}` a copy of the compose file alone leaves unread: it was no deployment and no finding."""
from __future__ import annotations

import pytest

from helpers import run

HARBOR = """\
services:
  vllm:
    build:
      context: ./services/vllm
      dockerfile: Dockerfile
    ipc: host
    command: ["${HARBOR_VLLM_MODEL_SPECIFIER}"]
"""
NOT_KNOWN = "what it runs (its engine, ENTRYPOINT, CMD and ENV) is not known, and it is not checked (unresolved-value)"


def _check(tmp_path, compose: str, **files):
    (tmp_path / "compose.yaml").write_text(compose)
    for path, data in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_bytes(data)
    return run(["check", "--isolated", str(tmp_path / "compose.yaml")])


def test_an_engine_service_whose_dockerfile_is_missing_is_said_at_its_build(tmp_path):
    out = _check(tmp_path, HARBOR)
    assert out.out == (f"{tmp_path}/compose.yaml:5:19: CTX008 [info] the service vllm builds its image, but its "
                       f"Dockerfile {tmp_path}/services/vllm/Dockerfile is not found: {NOT_KNOWN}\n")


@pytest.mark.parametrize("compose, at", [
    ("services:\n  llm:\n    build: 42\n", "3:12"),
    ("services:\n  llm:\n    build: [a, b]\n", "3:12"),
    ("services:\n  llm:\n    build: {context: 7}\n", "3:22"),
    ("services:\n  llm:\n    build: {context: ., dockerfile: [a]}\n", "3:37"),
])
def test_a_build_compose_refuses_is_said_for_any_service(tmp_path, compose, at):
    # compose-spec schema: `build` is a string or a mapping, its context and dockerfile strings
    what = "its `build` is no path or mapping" if "context" not in compose else \
        f"its build {'dockerfile' if 'dockerfile' in compose else 'context'} is no string"
    assert _check(tmp_path, compose).out == (
        f"{tmp_path}/compose.yaml:{at}: CTX008 [info] the service llm builds its image, but {what}: {NOT_KNOWN}\n")


def test_a_missing_dockerfile_is_said_where_the_service_reserves_gpus(tmp_path):
    compose = ("services:\n  app:\n    build: ./x\n    deploy: {resources: {reservations: {devices: "
               "[{driver: nvidia, count: 1, capabilities: [gpu]}]}}}\n")
    assert _check(tmp_path, compose).out == (f"{tmp_path}/compose.yaml:3:12: CTX008 [info] the service app builds its "
                                             f"image, but its Dockerfile {tmp_path}/x/Dockerfile is not found: "
                                             f"{NOT_KNOWN}\n")


def test_a_dockerfile_that_is_a_directory_is_said(tmp_path):
    (tmp_path / "services/vllm/Dockerfile").mkdir(parents=True)
    assert "Dockerfile is not a file: what it runs" in _check(tmp_path, HARBOR).out


def test_a_web_app_s_missing_dockerfile_stays_quiet(tmp_path):
    assert _check(tmp_path, "services:\n  api:\n    build: ./web\n    ports: ['8080:80']\n").out == ""


def test_a_dockerfile_not_in_utf8_is_read_with_replacement_characters(tmp_path):
    dockerfile = b'FROM vllm/vllm-openai:v0.9.0\nLABEL note="caf\xe9"\nCMD ["Qwen/Qwen2.5-7B-Instruct", ' \
                 b'"--max-model-len", "40000"]\n'
    out = _check(tmp_path, "services:\n  llm:\n    build: .\n", Dockerfile=dockerfile)
    # read (a deployment, the CMD's value checked) where it was "not readable (UnicodeDecodeError)" before
    assert "in 1 file, 1 deployment" in out.err, out
    assert "not readable" not in out.out
    alone = run(["check", "--isolated", str(tmp_path / "Dockerfile")])
    assert alone.out.startswith(f"{tmp_path}/Dockerfile:1:1: CTX011 [info] a Dockerfile, which ctxlint does not read: "
                                "its CMD (line 3) is not checked"), alone.out  # was CTX001 "not valid UTF-8"


@pytest.mark.parametrize("build", [
    "github.com/org/vllm-fork",  # compose-go paths/context.go isRemoteContext: a remote context, not ./github.com
    "{context: 'github.com/org/vllm-fork', dockerfile: docker/Dockerfile}",
    "https://github.com/org/vllm.git#main",
    "~/vllm",  # compose-go paths/resolve.go absPath: the host's home, not ./~
    "{dockerfile_inline: 'FROM vllm/vllm-openai:v0.9.0'}",
])
def test_a_build_from_a_remote_context_or_the_host_s_home_is_no_missing_dockerfile(tmp_path, build):
    assert _check(tmp_path, f"services:\n  vllm:\n    build: {build}\n    ipc: host\n").out == ""


@pytest.mark.parametrize("service", ["ollama:\n    build: ./ollama",
                                     "webui:\n    build: ./webui\n    environment: {OLLAMA_BASE_URL: 'http://ollama:11434'}"])
def test_an_ollama_word_is_no_engine_s(tmp_path, service):
    assert _check(tmp_path, f"services:\n  {service}\n").out == ""
