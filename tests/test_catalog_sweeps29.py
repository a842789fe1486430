"""Catalog entries the catalog29 sweeps found missing (tools/catalog/sweeps29.yaml), and the LFM2.5 hybrid a swept
Compose project serves: each resolves with the numbers of the config.json it was transcribed from and its KV a token
as the engines cache it."""
from __future__ import annotations

import json

import pytest

from ctxlint.physics.kv import kv_bytes_per_token_per_gpu
from ctxlint.physics.models import FULL, LINEAR, lookup_model
from ctxlint.physics.served import serving_dtype
from helpers import run


@pytest.mark.parametrize("model_id, layers, kv_heads, head_dim, positions, total_b, kv_bytes", [
    # 2 (K and V) x layers x KV heads x head_dim x 2 bytes a token, from each config.json's keys
    # Qwen1.5-4B: MHA, 20 heads of 2560 / 20 = 128. Parameters: a layer 4 x 2560^2 + 3 x 2560 x 6912 + 2 x 2560
    # (norms) = 79,303,680; x 40, + the final norm and two untied 151936 x 2560 tables = 3,950,062,080 (the count
    # leaves out Qwen2's q/k/v biases, 40 x 3 x 2560 = 307,200); the official bf16 shards are 7.90 GB
    ("Qwen/Qwen1.5-4B-Chat", 40, 20, 128, 32768, 3.9501, 2 * 40 * 20 * 128 * 2),
    # xgen: Llama, MHA 32 x 4096 / 32 = 128. A layer 4 x 4096^2 + 3 x 4096 x 11008 + 2 x 4096 = 202,383,360; x 32,
    # + 4096 + 2 x 51200 x 4096 = 6,895,702,016; the official float32 shards are 27.59 GB (4 bytes each)
    ("Salesforce/xgen-7b-8k-inst", 32, 32, 128, 8192, 6.8957, 2 * 32 * 32 * 128 * 2),
])
def test_catalog29_entries_resolve_from_their_configs(model_id, layers, kv_heads, head_dim, positions, total_b,
                                                      kv_bytes):
    arch = lookup_model(model_id)
    assert (arch.num_layers, arch.num_kv_heads, arch.head_dim, arch.max_position_embeddings) == \
        (layers, kv_heads, head_dim, positions)
    assert arch.total_params_b == total_b
    for engine in ("vllm", "sglang"):
        assert kv_bytes_per_token_per_gpu(serving_dtype(arch, None, []), engine) == kv_bytes


def test_hand_counts_of_the_catalog29_parameters():
    assert 40 * (4 * 2560 ** 2 + 3 * 2560 * 6912 + 2 * 2560) + 2560 + 2 * 151936 * 2560 == 3_950_062_080
    assert 32 * (4 * 4096 ** 2 + 3 * 4096 * 11008 + 2 * 4096) + 4096 + 2 * 51200 * 4096 == 6_895_702_016


def test_lfm25_instruct_caches_kv_in_its_six_attention_layers_only():
    # LiquidAI/LFM2.5-1.2B-Base's config.json (the Instruct is made from it): layer_types 10 "conv" and 6
    # "full_attention", 8 KV heads of 2048 / 32 = 64. vLLM builds a ShortConv layer for each non-attention layer
    # and SGLang counts the full_attention layers as its KV layers (lint/physics/layer_kinds.py cites both), so a
    # token is 6 x 2 x 8 x 64 x 2 bytes, not the 16-layer 32,768
    arch = lookup_model("LiquidAI/LFM2.5-1.2B-Instruct")
    assert arch.name == "LiquidAI/LFM2.5-1.2B-Base"
    assert (arch.layer_kinds.count(FULL), arch.layer_kinds.count(LINEAR)) == (6, 10)
    assert arch.layer_kinds[:3] == (LINEAR, LINEAR, FULL)
    for engine in ("vllm", "sglang"):
        assert kv_bytes_per_token_per_gpu(serving_dtype(arch, None, []), engine) == 6 * 2 * 8 * 64 * 2 == 12_288


# Modelled on tuandung1625/llm-serving docker-compose/docker-compose-level5-02-stream1.yaml (vLLM's API server as the
# entrypoint, flags as a list, one reserved GPU); that project serves a /model folder under the served name
# LFM2.5-1.2B-Instruct, here the model is named by its Hub id.
LFM_COMPOSE = """services:
  model:
    image: vllm/vllm-openai:v0.11.0
    entrypoint: [python3, -m, vllm.entrypoints.openai.api_server]
    command:
      - --model=LiquidAI/LFM2.5-1.2B-Instruct
      - --served-model-name=LFM2.5-1.2B-Instruct
      - --dtype=bfloat16
      - --gpu-memory-utilization=0.92
      - --max-model-len=32768
      - --max-num-seqs=32
    deploy:
      resources:
        reservations:
          devices:
            - {driver: nvidia, count: 1, capabilities: [gpu]}
"""


def test_lfm25_compose_service_gets_a_verdict(tmp_path):
    (tmp_path / "docker-compose.yaml").write_text(LFM_COMPOSE)
    (tmp_path / ".ctxlint.yaml").write_text("default-accelerator: L4\n")
    row = json.loads(run(["audit", "--format", "json", str(tmp_path)]).out)["deployments"][0]
    assert (row["model"], row["engine"], row["verdict"], row["engine_context"], row["headroom"]) == \
        ("LiquidAI/LFM2.5-1.2B-Instruct", "vllm", "fits", 32768, 46.8008)
    # 46.8027 before the conv states were counted: vLLM keeps them in the pool, 2 blocks of 16 tokens in each of 2
    # state groups a request (physics/mamba.py), 64 tokens less for the one request the headroom measures
    # the pool counts 12,288 bytes a token: 16 layers would give about 6 / 16 of its headroom
    data = json.loads(run(["capacity", "--model", "LiquidAI/LFM2.5-1.2B-Instruct", "--engine", "vllm",
                           "--engine-version", "0.11.0", "--available-kv-gib", "10", "--format", "json"]).out)
    assert (data["kv_bytes_per_token_per_gpu"], data["pool_tokens"]) == (12288.0, 873808)
    assert 10 * 2 ** 30 // (16 * 12288) * 16 == 873808
