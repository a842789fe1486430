"""`ctxlint models lock` end to end against a loopback stand-in for the Hugging Face Hub,
then an offline `check` that uses the lock file."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hub_standin import HubStandIn, Repo

pytest.importorskip("huggingface_hub")

SHA = "0123456789abcdef0123456789abcdef01234567"
PRIVATE_CONFIG = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
                  "intermediate_size": 14336, "num_hidden_layers": 32, "num_attention_heads": 32,
                  "num_key_value_heads": 8, "vocab_size": 128256, "max_position_embeddings": 131072,
                  "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                                   "original_max_position_embeddings": 8192, "rope_type": "llama3"},
                  "tie_word_embeddings": False, "torch_dtype": "bfloat16", "auto_map": {"x": "remote.code"},
                  "secret_note": "not an architecture fact"}
SMALL_CONFIG = {"model_type": "qwen3", "hidden_size": 1024, "intermediate_size": 3072, "num_hidden_layers": 28,
                "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 128, "vocab_size": 151936,
                "max_position_embeddings": 40960, "tie_word_embeddings": True, "torch_dtype": "bfloat16"}

DEPLOY = """apiVersion: apps/v1
kind: Deployment
metadata: {{name: {name}}}
spec:
  template:
    spec:
      nodeSelector: {{nvidia.com/gpu.product: NVIDIA-L4}}
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          args: ["--model", "{model}"{extra}]
          resources: {{limits: {{nvidia.com/gpu: 1}}}}
"""


def _tree(tmp_path: Path) -> Path:
    tree = tmp_path / "deploy"
    tree.mkdir()
    (tree / ".git").mkdir()  # config discovery stops here: the lock file goes beside it
    for name, model, extra in (("private", "acme/private-8b", ', "--max-model-len", "32768"'),
                               ("open", "acme/open-0.6b", ""), ("gone", "acme/deleted-model", ""),
                               ("known", "Qwen/Qwen3-8B", ', "--max-model-len", "8192"'),
                               ("local", "/models/in-house", "")):
        (tree / f"{name}.yaml").write_text(DEPLOY.format(name=name, model=model, extra=extra))
    return tree


def _ctxlint(args, env, cwd):
    return subprocess.run([sys.executable, "-m", "ctxlint", *args], env=env, cwd=cwd, capture_output=True,
                          text=True, timeout=120)


@pytest.fixture
def hub():
    repos = {"acme/private-8b": Repo(SHA, PRIVATE_CONFIG, {"BF16": 8030261248}, token="hf_secret"),
             "acme/open-0.6b": Repo("f" * 40, SMALL_CONFIG, {"BF16": 596049920})}
    with HubStandIn(repos) as server:
        yield server


def _env(tmp_path: Path, hub, offline: bool) -> dict:
    env = dict(os.environ)
    env.update(HF_ENDPOINT=hub.url, HF_TOKEN="hf_secret", HF_HUB_OFFLINE="1" if offline else "0",
               HF_HOME=str(tmp_path / "hf-home"), HF_HUB_CACHE=str(tmp_path / "hf-cache"),
               HF_HUB_DISABLE_TELEMETRY="1", NO_PROXY="127.0.0.1,localhost")
    return env


def test_lock_fetches_what_the_catalog_lacks_and_check_uses_it_offline(tmp_path, hub) -> None:
    tree = _tree(tmp_path)
    before = _ctxlint(["check", "--format", "json", "."], _env(tmp_path, hub, offline=True), tree)
    unresolved = [f for f in json.loads(before.stdout)["findings"] if f["rule"] == "CTX208"]
    assert any("acme/private-8b" in f["message"] and "ctxlint models lock" in f["message"] for f in unresolved)

    locked = _ctxlint(["models", "lock", "."], _env(tmp_path, hub, offline=False), tree)
    assert locked.returncode == 1, locked.stderr  # acme/deleted-model is not on the Hub
    assert "acme/private-8b: locked at 0123456789ab (8.03B parameters in safetensors)" in locked.stdout
    assert "acme/open-0.6b: locked at ffffffffffff" in locked.stdout
    assert "acme/deleted-model: NOT locked: not found on the Hub" in locked.stdout
    assert "Qwen/Qwen3-8B: resolved (catalog), nothing to lock" in locked.stdout
    assert "/models/in-house: a local path" in locked.stdout
    assert "hf_secret" not in locked.stdout + locked.stderr
    lock = json.loads((tree / ".ctxlint-models.lock").read_text())
    entry = lock["models"]["acme/private-8b"]
    assert entry["revision"] == SHA and entry["safetensors"] == {"BF16": 8030261248}
    assert "auto_map" not in entry["config"] and "secret_note" not in entry["config"]  # architecture facts only
    assert sorted(lock["models"]) == ["acme/open-0.6b", "acme/private-8b"]
    requests = list(hub.requests)

    after = _ctxlint(["check", "--format", "json", "."], _env(tmp_path, hub, offline=True), tree)
    findings = json.loads(after.stdout)["findings"]
    assert not [f for f in findings if f["rule"] == "CTX208" and "acme/private-8b" in f["message"]]
    assert [f for f in findings if f["rule"] == "CTX208" and "acme/deleted-model" in f["message"]]
    assert hub.requests == requests  # check never touched the network

    again = _ctxlint(["models", "lock", "."], _env(tmp_path, hub, offline=False), tree)
    assert "acme/private-8b: already locked (acme/private-8b@0123456789ab)" in again.stdout


def test_private_model_without_token_says_so(tmp_path, hub) -> None:
    tree = _tree(tmp_path)
    env = _env(tmp_path, hub, offline=False)
    env.pop("HF_TOKEN")
    result = _ctxlint(["models", "lock", "."], env, tree)
    assert "acme/private-8b: NOT locked: not found on the Hub (a private repository needs HF_TOKEN)" in result.stdout


def test_a_broken_lock_file_is_a_config_error(tmp_path, hub) -> None:
    tree = _tree(tmp_path)
    (tree / ".ctxlint-models.lock").write_text("{broken")
    result = _ctxlint(["check", "."], _env(tmp_path, hub, offline=True), tree)
    assert result.returncode == 2 and ".ctxlint-models.lock is not valid JSON" in result.stderr


def test_a_gguf_file_is_no_hub_id_to_lock(tmp_path, hub) -> None:
    # sweep 30: `models lock` told a .gguf model to "put its config.json beside the deploy file"; it is a file, whose
    # header ctxlint reads where it finds it
    tree = tmp_path / "deploy"
    tree.mkdir()
    (tree / ".git").mkdir()
    (tree / "start.sh").write_text("#!/bin/bash\nllama-server -m /app/m-Q4_K_M.gguf -c 8192\n")
    result = _ctxlint(["models", "lock", "."], _env(tmp_path, hub, offline=False), tree)
    assert "  /app/m-Q4_K_M.gguf: a GGUF file, whose header ctxlint reads (install `ctxlint[gguf]`) when it " \
           "finds the file at /app/m-Q4_K_M.gguf or as m-Q4_K_M.gguf beside the deploy file, or add it under " \
           "`models:`\n" in result.stdout, result.stdout + result.stderr
