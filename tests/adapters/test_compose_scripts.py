"""A compose service whose entrypoint (or command) runs a mounted script runs that script with the service's
environment, image and GPUs (sweep 36: Shivam-Patel-LR/vLLM-deployments' qwen3-vl-reranker-2b gave no deployment
from its compose file, and its start.sh alone a model-less one)."""
from __future__ import annotations

import json

from ctxlint.adapters import adapt_file
from ctxlint.file_reader import read_path
from helpers import run

COMPOSE = """\
services:
  rerank:
    image: vllm/vllm-openai:v0.9.0
    deploy:
      resources:
        reservations:
          devices: [{driver: nvidia, count: 1, capabilities: [gpu]}]
    volumes:
      - ./config.yaml:/app/config.yaml:ro
      - ./start.sh:/app/start.sh:ro
    environment:
      MODEL_ID: Qwen/Qwen3-8B
    entrypoint: ["/bin/sh", "/app/start.sh"]
"""
START = """\
#!/bin/sh
set -eu
hf download "${MODEL_ID}" --exclude "*.bin"
exec vllm serve "${MODEL_ID}" --config /app/config.yaml --port 8000
"""


def _tree(tmp_path, compose: str = COMPOSE, script: str = START, name: str = "start.sh"):
    (tmp_path / "docker-compose.yml").write_text(compose)
    (tmp_path / "config.yaml").write_text("max-model-len: 8192\n")
    if script is not None:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(script)
    return tmp_path / "docker-compose.yml"


def test_the_service_runs_its_mounted_script_with_its_environment_image_and_gpus(tmp_path):
    compose = _tree(tmp_path)
    result = adapt_file(read_path(str(compose)))
    [dep] = result.deployments
    [role] = dep.roles
    found = (dep.model.id.value, dep.engine.version.value, role.accelerators.count.value)
    assert found == ("Qwen/Qwen3-8B", "0.9.0", 1)
    # the engine command is the script's (its line, its file); the mounted --config is joined as beside a manifest
    assert (role.context_length.value, role.context_length.source.file) == (8192, str(tmp_path / "config.yaml"))
    assert (dep.model.id.source.file, dep.model.id.source.line) == (str(tmp_path / "start.sh"), 4)
    assert result.scripts == [str(tmp_path / "start.sh")]
    # the folder: one deployment, the compose service's, and no second model-less one from start.sh alone
    checked = run(["check", "--isolated", str(tmp_path)])
    assert "in 3 files, 1 deployment" in checked.err and "no model id" not in checked.out, checked.out
    [row] = json.loads(run(["audit", str(tmp_path), "--format", "json"]).out)["deployments"]
    assert (row["model"], row["engine_version"], row["file"]) == ("Qwen/Qwen3-8B", "0.9.0", str(compose))


def test_command_and_directory_mounts_and_a_script_as_the_program(tmp_path):
    # `command: bash -e SCRIPT` on an image whose entrypoint is no engine's, a script in a mounted directory
    compose = COMPOSE.replace("vllm/vllm-openai:v0.9.0", "lmsysorg/sglang:v0.4.6").replace(
        '    entrypoint: ["/bin/sh", "/app/start.sh"]\n', "    command: bash -e /opt/s/run.sh\n").replace(
        "./start.sh:/app/start.sh:ro", "./scripts:/opt/s")
    _tree(tmp_path, compose, 'python3 -m sglang.launch_server --model-path "$MODEL_ID" --context-length 4096\n',
          "scripts/run.sh")
    [dep] = adapt_file(read_path(str(tmp_path / "docker-compose.yml"))).deployments
    assert (dep.model.id.value, dep.engine.version.value, dep.roles[0].context_length.value) == \
        ("Qwen/Qwen3-8B", "0.4.6", 4096)
    # the entrypoint is the (executable) script itself
    compose = COMPOSE.replace('["/bin/sh", "/app/start.sh"]', "/app/start.sh")
    [dep] = adapt_file(read_path(str(_tree(tmp_path, compose)))).deployments
    assert dep.model.id.value == "Qwen/Qwen3-8B"


def test_a_script_not_found_is_said_at_its_word(tmp_path):
    compose = _tree(tmp_path, script=None)
    out = run(["check", "--isolated", str(compose)]).out
    assert out == (f"{compose}:13:29: CTX008 [info] the service rerank runs script /app/start.sh from ./start.sh, not "
                   "found, so the engine it starts is not checked (a script is read through the service's bind mount, "
                   "or beside this file) (unresolved-value)\n")
    # a web server's or database's own script is none of ctxlint's business
    assert run(["check", "--isolated", str(_tree(tmp_path, COMPOSE.replace("vllm/vllm-openai:v0.9.0", "nginx:1"),
                                                 script=None))]).out == ""
    # `sh -c STRING` is a command string, read as before
    inline = COMPOSE.replace('["/bin/sh", "/app/start.sh"]', '["/bin/sh", "-c", "vllm serve Qwen/Qwen3-8B"]')
    [dep] = adapt_file(read_path(str(_tree(tmp_path, inline, script=None)))).deployments
    assert dep.model.id.value == "Qwen/Qwen3-8B"


def test_the_script_gets_the_command_words_as_its_positional_parameters(tmp_path):
    # Docker runs `entrypoint + command`: the words after the script's path are its "$@", said where compose has them
    script = '#!/bin/bash\nexec vllm serve "$MODEL_ID" "$@"\n'
    compose = COMPOSE.replace('["/bin/sh", "/app/start.sh"]\n',
                              '["/bin/bash", "/app/start.sh"]\n    command: ["--max-model-len", "1000000"]\n')
    [dep] = adapt_file(read_path(str(_tree(tmp_path, compose, script)))).deployments
    length = dep.roles[0].context_length
    assert (length.value, length.source.file, length.source.line) == (1000000, str(tmp_path / "docker-compose.yml"), 14)
    # a `*.sh` entrypoint; a `command:` running the script on an image whose entrypoint is no engine's
    [dep] = adapt_file(read_path(str(_tree(tmp_path, compose.replace('"/bin/bash", ', ''), script)))).deployments
    assert dep.roles[0].context_length.value == 1000000
    command = COMPOSE.replace("vllm/vllm-openai:v0.9.0", "nvcr.io/nvidia/pytorch:24.05-py3").replace(
        '    entrypoint: ["/bin/sh", "/app/start.sh"]\n', "    command: bash /app/start.sh --max-model-len 4096\n")
    [dep] = adapt_file(read_path(str(_tree(tmp_path, command, script)))).deployments
    assert dep.roles[0].context_length.value == 4096
    # a word Compose interpolates from the host is not known: CTX008 at it, never a guess
    out = run(["check", "--isolated", str(_tree(tmp_path, compose.replace('"1000000"', '"${LEN}"'), script))]).out
    assert ":14:35: CTX008" in out and "--max-model-len ${LEN}" in out, out


def test_the_script_gets_the_command_words_as_compose_interpolates_them(tmp_path):
    # sweep 39 (a compose service whose entrypoint script has a `case` on the service name, then `exec "$@"`):
    # Compose interpolates the whole file before the container starts, so the script gets `${CTX:-65536}` as
    # 65536, at the `${`, as the service's own command reads it; a plain `${LEN}` stays the host's, not known
    script = '#!/bin/bash\ncase "$SERVICE" in\n  sglang) echo sglang ;;\nesac\nexec "$@"\n'
    compose = COMPOSE.replace("vllm/vllm-openai:v0.9.0", "lmsysorg/sglang:v0.5.4").replace(
        '["/bin/sh", "/app/start.sh"]\n', '["/bin/bash", "/app/start.sh"]\n    command: python3 -m '
        'sglang.launch_server --model-path ${MODEL:-Qwen/Qwen3-8B} --context-length ${CTX-65536} --port $$PORT\n')
    path = _tree(tmp_path, compose, script)
    [dep] = adapt_file(read_path(str(path))).deployments
    length = dep.roles[0].context_length
    assert (dep.model.id.value, length.value, length.source.line, length.source.col) == \
        ("Qwen/Qwen3-8B", 65536, 14, 100)
    out = run(["check", "--isolated", "--select", "CTX008,CTX109", str(path)]).out
    assert ":14:100: CTX109 [error] 65,536 > 40,960 x 1 = 40,960" in out and "CTX008" not in out, out
    plain = compose.replace("${CTX-65536}", "${CTX}")
    out = run(["check", "--isolated", "--select", "CTX008", str(_tree(tmp_path, plain, script))]).out
    assert ":14:100: CTX008" in out and "--context-length ${CTX}" in out, out
