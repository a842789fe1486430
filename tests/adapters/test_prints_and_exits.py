"""An engine asked for its help or version prints and exits: no server starts, so no deployment (engine_roles.py
serves_no_role). A setup script's smoke test, `"$SERVER" --version` after building llama.cpp
(tmielsch/turboquant-setup@e1091302e539e2b992896a2803f36d793fae833a:scripts/linux/setup.sh), and `llama-server
--version 2>&1 | head -3` in pikos-apikos/Qwen3.5-35B-A3B-openclaw-AMD-Strix-Halo-dgx-spark's scripts/install.sh were
each a deployment whose model was not resolved."""
from __future__ import annotations

import json

import pytest

from helpers import run


def deployments(tmp_path, name: str, text: str) -> list:
    path = tmp_path / name
    path.write_text(text)
    return json.loads(run(["audit", "--isolated", "--format", "json", str(path)]).out)["deployments"]


@pytest.mark.parametrize("line", [
    '"$SERVER" --version', "llama-server --version 2>&1 | head -3", "llama-server -h", "vllm serve --help",
    "python3 -m sglang.launch_server --help", "text-generation-launcher --version", "trtllm-serve serve --help",
])
def test_a_help_or_version_call_is_no_deployment(tmp_path, line):
    text = f'#!/bin/bash\nSERVER="$HOME/build/bin/llama-server"\n{line}\n'
    assert deployments(tmp_path, "setup.sh", text) == []


def test_the_server_the_script_starts_after_its_smoke_test_is_still_read(tmp_path):
    text = ("#!/bin/bash\nllama-server --version\n"
            "exec llama-server -m /models/Qwen3-8B-Q4_K_M.gguf -c 8192 --port 8080\n")
    [row] = deployments(tmp_path, "serve.sh", text)
    assert (row["line"], row["engine_context"]) == (3, 8192)


def test_a_container_that_only_prints_its_help_is_no_deployment(tmp_path):
    text = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: probe}\nspec:\n  template:\n    spec:\n"
            "      containers:\n      - name: vllm\n        image: vllm/vllm-openai:v0.11.0\n"
            "        args: [--model, Qwen/Qwen3-8B, --help]\n")
    assert deployments(tmp_path, "probe.yaml", text) == []


@pytest.mark.parametrize("flag", ["--usage", "-cl", "--cache-list", "--completion-bash"])
def test_llama_cpp_s_other_print_and_exit_flags_are_no_deployment(tmp_path, flag):
    # ggml-org/llama.cpp@0017d6fb63f9590e791a7562b276148f7bd5b7fc:common/arg.cpp: `--usage` is `-h`'s spelling
    # (params.usage: usage, then exit(0)), `-cl`/`--cache-list` lists the cached models and exit(0)s,
    # `--completion-bash` prints the completion script and exit(0)s (common_params_parse)
    text = f"#!/bin/bash\nllama-server -m /models/Qwen3-8B-Q4_K_M.gguf -c 8192 {flag}\n"
    assert deployments(tmp_path, "probe.sh", text) == []


def test_another_engine_s_unknown_usage_flag_is_still_read(tmp_path):
    # only llama.cpp has these: vLLM refuses `--usage` (an unknown argument), which is a finding, not "no deployment"
    text = "#!/bin/bash\nvllm serve Qwen/Qwen3-8B --max-model-len 8192 --usage\n"
    assert len(deployments(tmp_path, "serve.sh", text)) == 1
