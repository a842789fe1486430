"""A shell (or the engine's own program) given as arguments to an image whose ENTRYPOINT is the engine: the engine
runs with those words (CTX301 at the first), never the script as if a shell ran it (adapters/entry_words.py)."""
from __future__ import annotations

import pytest

from tests.adapters.kit import adapt, at

_SHELL = ('"the image vllm/vllm-openai:v0.11.0 starts vLLM itself (its ENTRYPOINT), and {given} appended to it: the '
          'container runs vLLM with `/bin/sh -c \\"vllm serve Qwen/Qwen3-8B --max-model-len 8192\\"` as its arguments '
          '(`vllm serve`, the entrypoint of newer images, takes `/bin/sh` for the model; the older `python3 -m '
          'vllm.entrypoints.openai.api_server` never serves it): the shell never runs the script and vLLM exits '
          'on these words; '
          '{fix}, or give the engine\'s arguments alone ({alone})"')

COMPOSE_STRING = """\
services:
  v:
    image: vllm/vllm-openai:v0.11.0
    command: /bin/sh -c "vllm serve Qwen/Qwen3-8B --max-model-len 8192"
"""
COMPOSE_LIST = """\
services:
  v:
    image: vllm/vllm-openai:v0.11.0
    command: ["/bin/sh", "-c", "vllm serve Qwen/Qwen3-8B --max-model-len 8192"]
"""
POD = """\
apiVersion: v1
kind: Pod
metadata: {name: v}
spec:
  containers:
    - name: v
      image: vllm/vllm-openai:v0.11.0
      args: ["/bin/sh", "-c", "vllm serve Qwen/Qwen3-8B --max-model-len 8192"]
"""


def _refusals(result):
    return [d for d in result.diagnostics if d.kind == "engine-rejects-value"]


@pytest.mark.parametrize("text,name,given,fix,alone", [
    (COMPOSE_STRING, "compose.yaml", "`command:` without `entrypoint:` is",
     'set `entrypoint: [\\"/bin/sh\\", \\"-c\\"]` and give the whole script as ONE `command:` list item '
     '(a string `command:` is split into words, and `/bin/sh -c` runs only the first): `command: '
     '[\\"vllm serve Qwen/Qwen3-8B --max-model-len 8192\\"]`, or a `- |` block string as its one item',
     '`command: [\\"--model\\", ...]`'),
    (COMPOSE_LIST, "compose.yaml", "`command:` without `entrypoint:` is",
     'set `entrypoint: [\\"/bin/sh\\", \\"-c\\"]` and give the whole script as ONE `command:` list item '
     '(a string `command:` is split into words, and `/bin/sh -c` runs only the first): `command: '
     '[\\"vllm serve Qwen/Qwen3-8B --max-model-len 8192\\"]`, or a `- |` block string as its one item',
     '`command: [\\"--model\\", ...]`'),
    (POD, "pod.yaml", "`args:` without `command:` are",
     'set `command: [\\"/bin/sh\\", \\"-c\\"]` and give the whole script as ONE `args:` item (`args: '
     '[\\"vllm serve Qwen/Qwen3-8B --max-model-len 8192\\"]`): `/bin/sh -c` runs only the first item',
     '`args: [\\"--model\\", ...]`'),
])
def test_a_shell_given_to_the_engine_entrypoint_is_the_engines_model_and_refused(text, name, given, fix, alone):
    import json

    result = adapt(text, name)
    [dep] = result.deployments
    [role] = dep.roles
    # vLLM is given `/bin/sh` and exits on the words after it (the old API server module never serves it): no
    # model is served, and `/bin/sh` is no model folder for CTX208 to ask a config.json in; nor is the script's
    assert dep.model.id is None
    assert role.context_length is None or role.context_length.value != 8192
    [refusal] = _refusals(result)
    assert refusal.message == json.loads(_SHELL.format(given=given, fix=fix, alone=alone))
    assert at(text, refusal.source) == "/bin/sh"


def test_the_engines_own_program_in_command_is_refused_once_at_its_first_word():
    text = """\
    services:
      v:
        image: vllm/vllm-openai:v0.11.0
        command: vllm serve Qwen/Qwen3-8B --max-model-len 8192
    """
    result = adapt(text, "compose.yaml")
    [dep] = result.deployments
    assert dep.model.id is None  # not `vllm`, the program's word the engine is given
    [refusal] = _refusals(result)  # the parser's "unrecognized arguments: serve ..." is this one
    assert refusal.message == (
        "the image vllm/vllm-openai:v0.11.0 starts vLLM itself (its ENTRYPOINT), and `command:` without "
        "`entrypoint:` is appended to it: the container runs vLLM with `vllm serve Qwen/Qwen3-8B` as its arguments "
        "(`vllm serve`, the entrypoint of newer images, takes `vllm` for the model; the older `python3 -m "
        "vllm.entrypoints.openai.api_server` never serves it) and exits on them, not the program they name; drop the "
        "program's words "
        "and give the engine's arguments alone (`command: [\"--model\", ...]`)")
    assert at(text, refusal.source) == "vllm"


def test_docker_run_shell_after_an_engine_image_is_said_too(tmp_path):
    from tests.helpers import run

    path = tmp_path / "run.sh"
    path.write_text('#!/bin/bash\ndocker run --gpus all vllm/vllm-openai:v0.11.0 bash -c "vllm serve Qwen/Qwen3-8B"\n')
    out = run(["check", str(path), "--isolated", "--select", "CTX301"]).out
    assert out == (
        f"{path}:2:48: CTX301 [error] the image vllm/vllm-openai:v0.11.0 starts vLLM itself (its ENTRYPOINT), and the "
        "words after the image are appended to it: the container runs vLLM with `bash -c \"vllm serve Qwen/Qwen3-8B\"` "
        "as its arguments (`vllm serve`, the entrypoint of newer images, takes `bash` for the model; the older "
        "`python3 -m vllm.entrypoints.openai.api_server` never serves it): the shell never runs the script and vLLM "
        "exits on these "
        "words; write `--entrypoint bash IMAGE -c \"...\"`, or give the engine's arguments alone (`IMAGE --model ...`) "
        "(engine-rejects-value)\n")


@pytest.mark.parametrize("line, col, words, program", [
    ("docker run --gpus all vllm/vllm-openai:v0.11.0 vllm serve Qwen/Qwen3-8B --max-model-len 8192", 48,
     "vllm serve Qwen/Qwen3-8B", "vllm"),
    ("podman run -d -p 8000:8000 docker.io/vllm/vllm-openai:v0.6.3 python3 -m vllm.entrypoints.openai.api_server "
     "--model Qwen/Qwen3-8B", 62, "python3 -m vllm.entrypoints.openai.api_server", "python3"),
])
def test_docker_run_of_the_engines_own_program_after_an_engine_image_is_refused(tmp_path, line, col, words, program):
    # Docker appends the words to the image's ENTRYPOINT: `vllm serve vllm serve M` (vllm-project.github.io#305)
    from tests.helpers import run

    path = tmp_path / "run.sh"
    path.write_text(f"#!/bin/bash\n{line}\n")
    out = run(["check", str(path), "--isolated", "--select", "CTX301"]).out
    image = line.split(" --gpus all " if "--gpus" in line else "8000:8000 ")[1].split(" ")[0]
    assert out == (
        f"{path}:2:{col}: CTX301 [error] the image {image} starts vLLM itself (its ENTRYPOINT), and the words after "
        f"the image are appended to it: the container runs vLLM with `{words}` as its arguments (`vllm serve`, "
        f"the entrypoint of newer images, takes `{program}` for the model; the older `python3 -m "
        f"vllm.entrypoints.openai.api_server` never serves it) and exits on them, not the program they name; drop "
        "the program's words and "
        "give the engine's arguments alone (`IMAGE --model ...`) (engine-rejects-value)\n")


@pytest.mark.parametrize("line", [
    # --entrypoint replaces the ENTRYPOINT, and an image that is no engine's runs the program
    "docker run --gpus all --entrypoint vllm vllm/vllm-openai:v0.11.0 serve Qwen/Qwen3-8B --max-model-len 8192",
    "docker run --gpus all registry.local/llm-runtime:1 vllm serve Qwen/Qwen3-8B --max-model-len 8192",
    "docker run --gpus all vllm/vllm-openai:v0.11.0 Qwen/Qwen3-8B --max-model-len 8192",
])
def test_docker_run_that_runs_the_program_is_read_as_before(line):
    from ctxlint.adapters import adapt_file
    from ctxlint.file_reader import parse_bytes

    result = adapt_file(parse_bytes(f"#!/bin/bash\n{line}\n".encode(), "run.sh"))
    [dep] = result.deployments
    assert dep.model.id.value == "Qwen/Qwen3-8B"
    assert dep.roles[0].context_length.value == 8192
    assert not _refusals(result)


@pytest.mark.parametrize("text", [
    # the forms CTX301's advice gives: the whole script as the one item of `command:`, quoted (the first) or a `- |`
    # block string (here)
    COMPOSE_LIST.replace('    command: ["/bin/sh", "-c", "vllm serve Qwen/Qwen3-8B --max-model-len 8192"]',
                         '    entrypoint: ["/bin/sh", "-c"]\n    command:\n      - |\n'
                         '        vllm serve Qwen/Qwen3-8B \\\n          --max-model-len 8192\n'),
    # an entrypoint of its own, a cleared one, or an image whose entrypoint is not known: the shell runs
    COMPOSE_LIST.replace("    command:", '    entrypoint: ["/bin/sh", "-c"]\n    command:').replace(
        '"/bin/sh", "-c", ', ""),
    COMPOSE_STRING.replace("    command:", '    entrypoint: ""\n    command:'),
    COMPOSE_STRING.replace("vllm/vllm-openai:v0.11.0", "registry.local/llm-runtime:1"),
    COMPOSE_STRING.replace("vllm/vllm-openai:v0.11.0", "lmsysorg/sglang:v0.4.6").replace(
        "vllm serve Qwen/Qwen3-8B --max-model-len 8192", "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B "
        "--context-length 8192"),
])
def test_a_shell_that_runs_is_read_as_before(text):
    result = adapt(text, "compose.yaml")
    [dep] = result.deployments
    assert dep.model.id.value == "Qwen/Qwen3-8B"
    assert dep.roles[0].context_length.value == 8192
    assert not _refusals(result)


def test_kubernetes_command_with_args_runs_its_shell():
    text = POD.replace('      args: ["/bin/sh", "-c",', '      command: ["/bin/sh", "-c"]\n      args: [')
    result = adapt(text, "pod.yaml")
    [dep] = result.deployments
    assert (dep.model.id.value, dep.roles[0].context_length.value) == ("Qwen/Qwen3-8B", 8192)
    assert not _refusals(result)


@pytest.mark.parametrize("command", ['/bin/sh -c "vllm serve Qwen/Qwen3-8B --max-model-len 8192"',
                                     '["bash", "-c", "vllm serve Qwen/Qwen3-8B"]', "exec vllm serve Qwen/Qwen3-8B",
                                     "vllm serve Qwen/Qwen3-8B"])
def test_a_program_word_given_to_the_engine_is_no_model_folder_to_put_a_config_in(tmp_path, command):
    # realfoxtrot/vllm-stack docker-compose.yml: beside the CTX301, CTX208 asked for `/bin/sh/config.json`
    from tests.helpers import run

    path = tmp_path / "docker-compose.yml"
    path.write_text(f"services:\n  v:\n    image: vllm/vllm-openai:v0.8.5\n    command: {command}\n")
    out = run(["check", str(path), "--isolated"]).out
    assert "CTX301" in out
    said = [line for line in out.splitlines() if "CTX208" in line]
    assert len(said) == 1 and "no model id" in said[0], out
    for word in ("/bin/sh", "bash", "exec", "'vllm'", "config.json"):
        assert word not in said[0], said[0]


@pytest.mark.parametrize("command", ['/bin/sh -c "llama-server -m /models/a.gguf --port 8080"',
                                     "exec llama-server -m /models/a.gguf --port 8080"])
def test_llama_server_image_given_a_program_is_refused_once(tmp_path, command):
    # the stray-word check (engines/llamacpp_words.py) refused `/bin/sh`, `exec` and `llama-server` again, each
    # at a word the refusal of the program's words already covers
    from tests.helpers import run

    path = tmp_path / "docker-compose.yml"
    path.write_text(f"services:\n  s:\n    image: ghcr.io/ggml-org/llama.cpp:server\n    command: {command}\n")
    out = run(["check", str(path), "--isolated", "--select", "CTX301"]).out
    assert "starts llama.cpp itself" in out
    assert "invalid argument" not in out, out
