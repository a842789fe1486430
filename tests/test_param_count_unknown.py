"""A model whose parameter count is not known gives no weights per GPU on any device, so the reason a role without a
stated device has no pool is that count, not the device: before, the audit said "no accelerator type" and CTX208
advised stating one, which would not have helped (sweep c32: ChenxiZhang1231/vla-rl's
qwenvl_chat/shell/rm_serve/qwen25vl_72b-serve.sh serves Qwen2.5-VL-72B-Instruct, a catalog entry without
total_params_b, at TP 8: no memory need at any TP)."""
from __future__ import annotations

import json

from helpers import run

MODELS = ("models:\n  acme/x: {num_layers: 32, num_kv_heads: 8, head_dim: 128, num_attention_heads: 32,\n"
          "           max_position_embeddings: 32768%s}\n")


def _audit(tmp_path, params: str, header: str = ""):
    # the .ctxlint.yaml beside the script is its configuration (config discovery from the file's folder)
    (tmp_path / ".ctxlint.yaml").write_text(MODELS % params)
    path = tmp_path / "serve.sh"
    path.write_text(f"#!/bin/bash\n{header}vllm serve acme/x --max-model-len 8192\n")
    [dep] = json.loads(run(["audit", "--format", "json", str(path)]).out)["deployments"]
    found = json.loads(run(["check", "--format", "json", str(path)]).out)["findings"]
    return dep, [f["message"] for f in found if f["rule"] == "CTX208"]


def test_no_parameter_count_is_the_reason_without_a_device(tmp_path):
    dep, [message] = _audit(tmp_path, "")
    assert (dep["verdict"], dep["why_unknown"]) == (
        "unknown", "weights per GPU unknown (no parameter count): give total_params_b or available_kv_gib")
    assert "the model's parameter count is not known, so no device would derive its weights per GPU: give " \
           "total_params_b" in message
    assert "state the device" not in message


def test_with_a_device_the_reason_is_the_same(tmp_path):
    dep, _ = _audit(tmp_path, "", "#SBATCH --gres=gpu:h100:1\n")
    assert dep["why_unknown"] == "weights per GPU unknown (no parameter count): give total_params_b or available_kv_gib"


def test_with_a_parameter_count_the_device_is_what_is_missing(tmp_path):
    dep, [message] = _audit(tmp_path, ", total_params_b: 8")
    assert dep["verdict"].startswith("needs >= ") and "state the device" in message
