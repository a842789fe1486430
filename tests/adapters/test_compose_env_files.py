"""Compose's env files: the project's `.env` interpolates the compose file, a service's `env_file:` is its
container's environment, each value at its place in its file (adapters/dotenv.py, compose_env_files.py)."""
from __future__ import annotations

import json

from helpers import run

from ctxlint.adapters.dotenv import parse_env, substitute

ENV = """# comment
export MODEL=Qwen/Qwen3-8B  # a comment after a space
CTX="32768"
Q='a $X b'
ARGS="--max-model-len ${CTX} --tp ${TP:-2}"
BARE
Y: yaml
U=${NOPE}
HASH=a#b
E="multi
line"
"""


def test_dotenv_values_as_compose_reads_them():
    found = parse_env(ENV, "/p/.env")
    assert found.error is None
    got = [(e.name, e.value, e.node.source("other").line, e.node.source("other").col) for e in found.entries]
    assert got == [("MODEL", "Qwen/Qwen3-8B", 2, 14), ("CTX", "32768", 3, 5), ("Q", "a $X b", 4, 3),
                   ("ARGS", "--max-model-len 32768 --tp 2", 5, 6), ("BARE", None, 6, 1), ("Y", "yaml", 7, 4),
                   ("U", None, 8, 3), ("HASH", "a#b", 9, 6), ("E", "multi\nline", 10, 3)]
    assert found.entries[0].node.source("other").file == "/p/.env"  # a finding on it names the env file
    assert [e.why for e in found.entries if e.value is None] == [
        "is taken from the environment of the shell that runs Compose (not known here)",
        "refers to a variable no env file sets"]


def test_dotenv_errors_stop_compose_where_they_are():
    for text, message, at in (("A=1\nbad key=2\n", "key cannot contain a space", 4),
                              ("A=1\nB%=2\n", "unexpected character '%' in variable name", 5),
                              ("A='never closed\n", "unterminated quoted value", 2)):
        found = parse_env(text, "/p/.env")
        assert (found.error, [e.name for e in found.entries]) == ((message, at), ["A"] if at > 2 else []), text


def test_substitution_takes_the_files_value_before_a_default():
    env = {"SET": "v", "EMPTY": "", "UNKNOWN": None}
    assert [substitute(t, env) for t in ("${SET:-d}", "${EMPTY:-d}", "${EMPTY-d}", "${NONE:-d}", "${NONE}",
                                         "${UNKNOWN:-d}", "$$SET", "${SET:+alt}", "${NONE:+alt}", "${NONE:?e}")] == [
        "v", "d", "", "d", None, None, "$SET", "alt", "", None]


def _deployment(path) -> dict:
    """The one deployment `ctxlint audit` finds in the file."""
    (dep,) = json.loads(run(["audit", "--isolated", "--format", "json", str(path)]).out)["deployments"]
    return dep


def _write(tmp_path, files):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return tmp_path / "compose.yaml"


def test_the_project_env_interpolates_the_compose_file(tmp_path):
    # the model, the image's release and a default the .env overrides: before, all three were the host's
    # (unknown) and the service had no model
    path = _write(tmp_path, {".env": "MODEL=Qwen/Qwen3-8B\nTAG=v0.10.1\nCTX=65536\n", "compose.yaml": (
        "services:\n  vllm:\n    image: vllm/vllm-openai:${TAG}\n"
        "    command: --model ${MODEL} --max-model-len ${CTX:-4096}\n")})
    dep = _deployment(path)
    assert (dep["model"], dep["engine_version"], dep["engine_context"]) == ("Qwen/Qwen3-8B", "0.10.1", 65536)
    out = run(["check", "--isolated", "--select", "CTX109", str(path)]).out
    # the value is said where .env writes it (review: a finding at `${CTX:-4096}` never said where 65,536 came from)
    assert out.startswith(f"{tmp_path / '.env'}:3:5: CTX109 [error] 65,536 > 40,960 x 1 = 40,960")


def test_env_files_are_the_containers_environment_at_their_place(tmp_path):
    path = _write(tmp_path, {".env": "MODEL=Qwen/Qwen3-8B\n", "engine.env": "# engine\nLEN=65536\n",
                             "compose.yaml": (
                                 "services:\n  vllm:\n    image: vllm/vllm-openai:v0.10.1\n"
                                 "    entrypoint: [\"/bin/sh\", \"-c\"]\n"
                                 "    env_file:\n      - engine.env\n      - path: missing.env\n"
                                 "        required: false\n"
                                 "    command: [\"vllm serve ${MODEL} --max-model-len $$LEN\"]\n")})
    out = run(["check", "--isolated", "--select", "CTX109", str(path)]).out
    assert out.startswith(f"{tmp_path / 'engine.env'}:2:5: CTX109 [error] 65,536 > 40,960 x 1 = 40,960")


def test_environment_overrides_an_env_file_and_an_env_file_reads_the_project(tmp_path):
    path = _write(tmp_path, {".env": "LEN=8192\n", "engine.env": "LEN=65536\nMAX=${LEN}\n", "compose.yaml": (
        "services:\n  vllm:\n    image: vllm/vllm-openai:v0.10.1\n    entrypoint: [\"/bin/sh\", \"-c\"]\n"
        "    env_file: engine.env\n    environment:\n      LEN: \"4096\"\n"
        "    command: [\"vllm serve Qwen/Qwen3-8B --max-model-len $$LEN --max-num-batched-tokens $$MAX\"]\n")})
    dep = _deployment(path)
    assert dep["engine_context"] == 4096  # `environment` over the env file
    # MAX=${LEN} takes the project's LEN (8192) first, as compose-go's lookup does: 8192 >= 4096, no CTX304
    assert run(["check", "--isolated", "--select", "CTX304", str(path)]).out == ""


def test_an_env_file_compose_cannot_parse_is_said_at_its_place(tmp_path):
    path = _write(tmp_path, {"engine.env": "LEN=65536\nbad key=1\n", "compose.yaml": (
        "services:\n  vllm:\n    image: vllm/vllm-openai:v0.10.1\n    env_file: engine.env\n"
        "    command: --model Qwen/Qwen3-8B\n")})
    result = run(["check", "--isolated", "--select", "CTX002", str(path)])
    assert result.out == (f"{tmp_path / 'engine.env'}:2:1: CTX002 [error] Compose refuses the env file engine.env: "
                          "key cannot contain a space (a line is KEY=value; quote a value with spaces or ` #`); "
                          "`docker compose up` stops here (schema-violation)\n")


def test_without_env_files_nothing_changes(tmp_path):
    # no .env: `${CTX:-4096}` is its default and `${MODEL}` the host's, as before
    path = _write(tmp_path, {"compose.yaml": (
        "services:\n  vllm:\n    image: vllm/vllm-openai:v0.10.1\n    env_file: gone.env\n"
        "    command: --model ${MODEL} --max-model-len ${CTX:-4096}\n")})
    dep = _deployment(path)
    assert (dep["model"], dep["engine_context"]) == ("(no model id)", 4096)


def test_a_scripts_words_take_the_project_env_too(tmp_path):
    # the words after a mounted script's path are interpolated by Compose before the container starts, from the
    # project's .env as the service's own command is: `${LEN}` was an unknown word
    path = _write(tmp_path, {".env": "LEN=65536\n",
                             "start.sh": '#!/bin/sh\nexec vllm serve Qwen/Qwen3-8B --max-model-len "$1"\n',
                             "compose.yaml": (
                                 "services:\n  vllm:\n    image: vllm/vllm-openai:v0.10.1\n"
                                 "    entrypoint: [\"/bin/sh\", \"/app/start.sh\"]\n    command: [\"${LEN}\"]\n"
                                 "    volumes: [\"./start.sh:/app/start.sh\"]\n")})
    out = run(["check", "--isolated", "--select", "CTX109", str(path)]).out
    assert out.startswith(f"{path}:5:16: CTX109 [error] 65,536 > 40,960 x 1 = 40,960")


def test_a_multi_line_command_splits_what_env_gives_into_words(tmp_path):
    # review (sko00o/playground): Compose interpolates, then splits the string; `${EXTRA_ARGS}` of several words
    # was one word no flag took, and the engine's default context was reported
    path = _write(tmp_path, {".env": 'EXTRA_ARGS="--max-model-len 131072 --tensor-parallel-size 2"\n',
                             "compose.yaml": (
                                 "services:\n  vllm:\n    image: vllm/vllm-openai:v0.10.1\n    command: |\n"
                                 "      --model Qwen/Qwen2.5-7B-Instruct\n      ${EXTRA_ARGS:-\"\"}\n")})
    dep = _deployment(path)
    assert dep["engine_context"] == 131072
    out = run(["check", "--isolated", "--select", "CTX109", str(path)]).out
    assert out.startswith(f"{path}:6:7: CTX109 [error] 131,072 > 32,768 x 1 = 32,768")


def test_a_name_without_a_value_is_the_projects_and_overrides_an_env_file(tmp_path):
    # review: `- MAX_LEN` in `environment` takes the .env value and wins over `env_file` (compose-go
    # WithServicesEnvironmentResolved); it was skipped, and the env file's 131,072 gave a false CTX109
    compose = ("services:\n  vllm:\n    image: vllm/vllm-openai:v0.10.1\n    entrypoint: [\"/bin/sh\", \"-c\"]\n"
               "    env_file: [a.env]\n    environment:\n      - MAX_LEN\n"
               "    command: [\"vllm serve Qwen/Qwen3-8B --max-model-len $$MAX_LEN\"]\n")
    path = _write(tmp_path, {".env": "MAX_LEN=16384\n", "a.env": "MAX_LEN=131072\n", "compose.yaml": compose})
    dep = _deployment(path)
    assert dep["engine_context"] == 16384
    (tmp_path / ".env").unlink()  # the shell's then, not known: never the env file's
    out = run(["check", "--isolated", "--select", "CTX008,CTX109", str(path)]).out
    assert "CTX109" not in out and "(MAX_LEN is the shell's value (not known here)" in out


def test_a_bom_and_a_required_name_that_is_set(tmp_path):
    # review: compose-go drops a UTF-8 BOM (a false CTX002 before), and `${A:?msg}` of a set A is its value
    path = _write(tmp_path, {"compose.yaml": (
        "services:\n  vllm:\n    image: vllm/vllm-openai:v0.10.1\n"
        "    command: --model ${MODEL:?set MODEL} --max-model-len ${LEN}\n")})
    (tmp_path / ".env").write_bytes("\ufeffMODEL=Qwen/Qwen3-8B\nLEN=8192\n".encode("utf-8"))
    dep = _deployment(path)
    assert (dep["model"], dep["engine_context"], dep["findings"]["errors"]) == ("Qwen/Qwen3-8B", 8192, 0)
