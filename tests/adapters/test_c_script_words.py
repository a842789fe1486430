"""`sh -c` given an engine's command as several words runs only the first as its script, the rest its $0, $1...
(adapters/c_script_words.py): Compose splits a string `command:` into words (compose-go types/command.go), so
`entrypoint: ["/bin/sh", "-c"]` with `command: "vllm serve M ..."` runs `vllm` alone (its help, no server), as
Kubernetes `command: [sh, -c]` with `args:` of several items does. Before, no finding and no deployment."""
from __future__ import annotations

import pytest

from ctxlint.engine import lint_text

COMPOSE = """\
services:
  vllm:
    image: vllm/vllm-openai:v0.8.5
    entrypoint: {entrypoint}
    command: {command}
"""
K8S = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: vllm
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.8.5
          command: {command}
          args: {args}
"""
SERVE = "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 200000"


def _findings(text: str, name: str):
    report = lint_text(text, name)  # no device stated: CTX208 (capacity not derivable) is left out
    return [(f.rule, f.line, f.column, f.message) for f in report.findings if f.rule != "CTX208"], report


@pytest.mark.parametrize("entrypoint", ['["/bin/sh", "-c"]', "[sh, -c]", '["bash", "-lc"]'])
def test_a_string_command_after_sh_c_runs_only_its_first_word(entrypoint):
    found, report = _findings(COMPOSE.format(entrypoint=entrypoint, command=f'"{SERVE}"'), "compose.yaml")
    ((rule, line, column, message),) = found
    assert (rule, line, column) == ("CTX301", 5, 15)  # at `vllm`, the script sh runs
    shell = entrypoint.strip("[]").replace('"', "").replace(", ", " ")
    assert message == (
        f"`{shell}` runs only its first argument as the script and makes the rest its $0, $1, ... (serve "
        "meta-llama/Llama-3.1-8B-Instruct --max-model-len ...): Compose splits a string `command:` into words, so "
        "`vllm` with no subcommand prints vLLM's help and exits: no server starts; give the whole script as ONE "
        "`command:` list item (`command: [\"vllm serve meta-llama/Llama-3.1-8B-Instruct ...\"]`, or a `- |` block "
        "string as its one item)")
    assert report.deployments == [] or all(not d.roles for d in report.deployments)  # nothing serves


@pytest.mark.parametrize("command", [f'["{SERVE}"]', f"\n      - {SERVE}", f"\n      - |\n        {SERVE}"])
def test_the_script_as_one_list_item_is_read_whole(command):
    found, _ = _findings(COMPOSE.format(entrypoint='["/bin/sh", "-c"]', command=command), "compose.yaml")
    assert [f[0] for f in found] == ["CTX109"]  # 200,000 > the model's 131,072: the script ran, and was read


def test_kubernetes_args_of_several_items_after_sh_c():
    args = '["vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "200000"]'
    found, _ = _findings(K8S.format(command='["/bin/sh", "-c"]', args=args), "deploy.yaml")
    ((rule, line, column, message),) = found
    assert (rule, line, column) == ("CTX301", 12, 19)
    assert message.endswith("give the whole script as ONE `args:` item (`args: [\"vllm serve "
                            "meta-llama/Llama-3.1-8B-Instruct ...\"]`)")
    # the whole script as one item runs it: read, its context checked
    found, _ = _findings(K8S.format(command='["/bin/sh", "-c"]', args=f'["{SERVE}"]'), "deploy.yaml")
    assert [f[0] for f in found] == ["CTX109"]


@pytest.mark.parametrize("args, says", [
    ('["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "m"]',
     "`python3` alone is an interpreter reading its stdin, not vLLM's module: no server starts"),
    ('["text-generation-launcher", "--model-id", "m"]',
     "`text-generation-launcher` starts with none of these words (TGI on its own defaults, not the command "
     "written)"),
])
def test_other_programs_cut_short(args, says):
    found, _ = _findings(K8S.format(command='["sh", "-c"]', args=args), "deploy.yaml")
    assert [f[0] for f in found] == ["CTX301"] and says in found[0][3]


@pytest.mark.parametrize("args", [
    '["vllm serve m --max-model-len 8192", "_", "a"]',  # later items are the script's own $0, $1: no finding
    '["/start.sh", "--port", "8000"]',  # a script file given arguments: no engine's words
    '["$CMD", "x"]',
])
def test_no_finding_where_the_script_is_whole_or_no_engine(args):
    found, _ = _findings(K8S.format(command='["sh", "-c"]', args=args), "deploy.yaml")
    assert not [f for f in found if f[0] == "CTX301"]


@pytest.mark.parametrize("command, column", [(f"sh -c {SERVE}", 20), (f"/bin/bash -lc {SERVE}", 28)])
def test_a_string_command_holding_sh_c_and_the_words_runs_the_first_alone(command, column):
    # `entrypoint: []` and `command: sh -c vllm serve M ...`: Compose splits the whole string into words, the shell
    # and its -c among them, so the shell again runs `vllm` alone (was no finding and no deployment)
    (found,), report = _findings(COMPOSE.format(entrypoint="[]", command=command), "compose.yaml")
    assert found[:3] == ("CTX301", 5, column)
    assert "`vllm` with no subcommand prints vLLM's help and exits: no server starts" in found[3]
    assert found[3].endswith('quote the script as one word (`command: ' + command.split(" vllm")[0]
                             + ' "vllm serve meta-llama/Llama-3.1-8B-Instruct ..."`)')
    # quoted, the script is one word: read whole, no CTX301
    quoted = command.replace("vllm", '"vllm', 1) + '"'
    assert not [f for f in _findings(COMPOSE.format(entrypoint="[]", command=quoted), "compose.yaml")[0]
                if f[0] == "CTX301"]


@pytest.mark.parametrize("line, column, shell", [
    (f"sh -c {SERVE}", 7, "sh -c"),
    (f"timeout 1h bash -lc {SERVE}", 21, "bash -lc"),
    (f"docker run --gpus 1 --entrypoint /bin/sh vllm/vllm-openai:v0.8.5 -c {SERVE}", 69, "/bin/sh -c"),
    (f"docker run --gpus 1 nvidia/cuda:12.4.1-devel-ubuntu22.04 sh -c {SERVE}", 64, "sh -c")])
def test_a_shell_scripts_sh_c_with_the_command_as_words_runs_only_the_program(line, column, shell):
    # bash 5.2.15 (dash too): `sh -c vllm serve M ...` runs `vllm` with no arguments (the rest are $0, $1, ...);
    # before, no finding and no deployment in a shell script
    found, report = _findings(f"#!/bin/bash\n{line}\n", "serve.sh")
    assert found == [("CTX301", 2, column,
                      f"`{shell}` runs only its first argument as the script and makes the rest its $0, $1, ... "
                      "(serve meta-llama/Llama-3.1-8B-Instruct --max-model-len ...): `vllm` with no subcommand "
                      "prints vLLM's help and exits: no server starts; quote the whole script as ONE word (`-c "
                      "\"vllm serve meta-llama/Llama-3.1-8B-Instruct ...\"`)")]
    assert not report.deployments


@pytest.mark.parametrize("line", [f'sh -c "{SERVE}"', f"sh -c '{SERVE}' _ --seed 1",
                                  "sh -c 'vllm serve \"$@\"' _ meta-llama/Llama-3.1-8B-Instruct",
                                  f"sh -c \"$CMD\" {SERVE}", "sh -c echo vllm serve m", "sh -c vllm"])
def test_a_shell_scripts_sh_c_with_the_script_whole_is_not_said(line):
    found, _ = _findings(f"#!/bin/bash\n{line}\n", "serve.sh")
    assert not [f for f in found if f[0] == "CTX301"]
