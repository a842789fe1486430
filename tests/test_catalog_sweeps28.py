"""Catalog entries the catalog28 sweeps found missing (tools/catalog/sweeps28.yaml): each resolves with the
numbers of the config.json it was transcribed from, its KV a token as the engines cache it, and the folder
names the sweeps' launch files serve it from resolve to it."""
from __future__ import annotations

import json

import pytest

from ctxlint.physics.kv import kv_bytes_per_token_per_gpu
from ctxlint.physics.models import lookup_model
from ctxlint.physics.served import serving_dtype
from helpers import run


@pytest.mark.parametrize("model_id, layers, kv_heads, head_dim, positions, total_b, kv_bytes", [
    # 2 (K and V) x layers x KV heads x head_dim x 2 bytes a token, from each config.json's keys
    # SOLAR: 48 Llama layers, 32 / 8 heads of 4096 / 32 = 128
    ("upstage/SOLAR-10.7B-Instruct-v1.0", 48, 8, 128, 4096, 10.7315, 2 * 48 * 8 * 128 * 2),
    # Llama-3-8B's network, vocab 128288
    ("NousResearch/Hermes-2-Pro-Llama-3-8B", 32, 8, 128, 8192, 8.0305, 2 * 32 * 8 * 128 * 2),
    # 5120 / 32 = 160 a head, 8 KV heads
    ("stabilityai/stablelm-2-12b-chat", 40, 8, 160, 4096, 12.1429, 2 * 40 * 8 * 160 * 2),
    # GLM-4-9B in transformers' own format: 2 KV heads of head_dim 128
    ("zai-org/glm-4-9b-chat-hf", 40, 2, 128, 131072, 9.3998, 2 * 40 * 2 * 128 * 2),
    # a reward model: InternLM2-7B's network and a v_head of 4096 x 1, no 92544 x 4096 LM head (7.3587, not 7.7377)
    ("internlm/internlm2-7b-reward", 32, 8, 128, 32768, 7.3587, 2 * 32 * 8 * 128 * 2),
    # multi-head attention 40 x 128
    ("OrionStarAI/Orion-14B-Base", 40, 40, 128, 4096, 14.4983, 2 * 40 * 40 * 128 * 2),
    ("deepseek-ai/deepseek-coder-7b-instruct-v1.5", 30, 32, 128, 4096, 6.9104, 2 * 30 * 32 * 128 * 2),
    # MoE: 40 experts of 512, 8 active; 1536 / 24 = 64 a head
    ("ibm-granite/granite-3.0-3b-a800m-instruct", 32, 8, 64, 4096, 3.2988, 2 * 32 * 8 * 64 * 2),
    # 64 heads of 4096 / 64 = 64; a plain MLP (9.3955, not the 11.81 a gated one would count)
    ("adept/persimmon-8b-chat", 36, 64, 64, 16384, 9.3955, 2 * 36 * 64 * 64 * 2),
    # ChatGLM2: 2 KV groups (multi_query_group_num) of kv_channels 128; seq_length 32768
    ("THUDM/chatglm2-6b", 28, 2, 128, 32768, 6.2435, 2 * 28 * 2 * 128 * 2),
    # GPT-NeoX 6144 / 48 = 128, MHA
    ("stabilityai/stablelm-tuned-alpha-7b", 16, 48, 128, 4096, 7.8677, 2 * 16 * 48 * 128 * 2),
    # Qwen-1: MHA 40 x kv_channels 128; max_position_embeddings 8192 (seq_length 2048 is also kept)
    ("Qwen/Qwen-14B-Chat", 40, 40, 128, 8192, 14.1667, 2 * 40 * 40 * 128 * 2),
])
def test_catalog28_entries_resolve_from_their_configs(model_id, layers, kv_heads, head_dim, positions, total_b,
                                                      kv_bytes):
    arch = lookup_model(model_id)
    assert (arch.num_layers, arch.num_kv_heads, arch.head_dim, arch.max_position_embeddings) == \
        (layers, kv_heads, head_dim, positions)
    assert arch.total_params_b == total_b
    # as served with dtype auto (stablelm-2-12b-chat's float32 checkpoint in 16 bits)
    assert kv_bytes_per_token_per_gpu(serving_dtype(arch, None, []), "sglang") == kv_bytes


def test_qwen14b_chat_keeps_its_seq_length():
    # the length vLLM and SGLang derive is the smallest position key, seq_length 2048
    assert lookup_model("Qwen/Qwen-14B-Chat").position_keys == (("max_position_embeddings", 8192),
                                                               ("seq_length", 2048))


def test_persimmon_mlp_is_counted_plain():
    # 36 x (4 x 4096^2 attention + 2 x 4096 x 16384 MLP) + 2 x 262144 x 4096 (untied) = 9.3952e9, + biases and norms
    assert 36 * (4 * 4096 ** 2 + 2 * 4096 * 16384) + 2 * 262144 * 4096 == 9_395_240_960
    assert lookup_model("adept/persimmon-8b-chat").total_params_b == pytest.approx(9.3952, abs=5e-4)
    # and a user's config.json of the format is counted the same way (adept/persimmon-8b-base's dims)
    from ctxlint.physics.hf_config import arch_from_hf_config

    config = {"architectures": ["PersimmonForCausalLM"], "model_type": "persimmon", "hidden_size": 4096,
              "intermediate_size": 16384, "num_attention_heads": 64, "num_hidden_layers": 36,
              "num_key_value_heads": 64, "vocab_size": 262144, "tie_word_embeddings": False,
              "max_position_embeddings": 16384}
    assert arch_from_hf_config(config).total_params_b == pytest.approx(9.3952, abs=5e-4)


@pytest.mark.parametrize("derivative, base", [
    # the R1 paper: R1-Zero is RL on DeepSeek-V3-Base, R1's network (OpenRouter: 163,840 tokens)
    ("deepseek-ai/DeepSeek-R1-Zero", "deepseek-ai/DeepSeek-R1"),
    # DeepSeek-V2's README: the Lite chat model is the SFT of DeepSeek-V2-Lite
    ("deepseek-ai/DeepSeek-V2-Lite-Chat", "deepseek-ai/DeepSeek-V2-Lite"),
    # BigScience's xmtf table: bloomz-7b1 is bloom-7b1 finetuned on xP3
    ("bigscience/bloomz-7b1", "bigscience/bloom-7b1"),
])
def test_catalog28_derivatives_take_their_base_network(derivative, base):
    assert lookup_model(derivative).name == base


@pytest.mark.parametrize("path, model_id", [
    # the folders and names the sweeps' launch files serve them by
    ("/mnt/hf_models/Qwen-14B-Chat", "Qwen/Qwen-14B-Chat"),   # STHSF/llm-inf multi_node/run_ray_local.sh
    ("/home/tutu/models/DeepSeek-R1-Zero", "deepseek-ai/DeepSeek-R1"),  # tutu329/server-install ds-r1z-671b-8.sh
    ("THUDM/glm-4-9b-chat-hf", "zai-org/glm-4-9b-chat-hf"),   # THUDM's repositories moved to zai-org
    ("/raid/models/deepseek/DeepSeek-V2-Lite-Chat", "deepseek-ai/DeepSeek-V2-Lite"),  # ome's storage path
])
def test_catalog28_model_folders_resolve_by_name(path, model_id):
    from ctxlint.resolution.resolve import resolve

    found = resolve(path)
    assert (found.via, found.arch.name) == ("name", model_id)


def _capacity(engine: str) -> dict:
    return json.loads(run(["capacity", "--model", "openbmb/MiniCPM3-4B", "--engine", engine, "--engine-version",
                           "0.10.0", "--available-kv-gib", "10", "--format", "json"]).out)


def test_minicpm3_kv_is_the_latent_on_sglang():
    # SGLang's ModelConfig gives MiniCPM3ForCausalLM AttentionArch.MLA: 62 layers x (256 + 32) x 2 bytes
    data = _capacity("sglang")
    assert data["kv_bytes_per_token_per_gpu"] == 62 * (256 + 32) * 2 == 35_712
    assert data["pool_tokens"] == 300_666


def test_minicpm3_kv_is_full_heads_on_vllm():
    # vLLM's MiniCPM3Attention caches 40 heads of K (64 + 32) and V padded to 96: 62 x 2 x 40 x 96 x 2 bytes
    data = _capacity("vllm")
    assert data["kv_bytes_per_token_per_gpu"] == 62 * 2 * 40 * 96 * 2 == 952_320
    assert data["pool_tokens"] == 11_264


def test_minicpm3_kv_is_not_sized_on_an_engine_not_read():
    data = _capacity("llamacpp")
    assert data["kv_bytes_per_token_per_gpu"] is None
    assert data["errors"] == [
        "openbmb/MiniCPM3-4B: how llamacpp caches MiniCPM3's low-rank attention (the latent, as SGLang does, or full "
        "heads, as vLLM does) was not read; state the pool the engine logs (kv_pool_tokens, or the "
        "ctxlint.io/kv-pool-tokens annotation on a workload)"]


def test_minicpm3_layout_follows_the_class_when_model_type_is_absent(tmp_path):
    # openbmb's first config.json (revision f03dca5) names the class but has no model_type key
    config = {"architectures": ["MiniCPM3ForCausalLM"], "hidden_size": 2560, "num_hidden_layers": 62,
              "intermediate_size": 6400, "max_position_embeddings": 32768, "num_attention_heads": 40,
              "num_key_value_heads": 40, "qk_nope_head_dim": 64, "qk_rope_head_dim": 32, "q_lora_rank": 768,
              "kv_lora_rank": 256, "vocab_size": 73448, "torch_dtype": "bfloat16"}
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    data = json.loads(run(["capacity", "--model", str(path), "--engine", "vllm", "--engine-version", "0.10.0",
                           "--available-kv-gib", "10", "--format", "json"]).out)
    assert data["kv_bytes_per_token_per_gpu"] == 952_320


def test_minicpm3_on_llamacpp_asks_for_the_pool(tmp_path):
    # a llama.cpp server of MiniCPM3 gets CTX208 (not derivable), never a verdict from a KV size not read
    deploy = tmp_path / "dep.yaml"
    deploy.write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: minicpm\nspec:\n  template:\n    spec:\n"
        "      nodeSelector:\n        cloud.google.com/gke-accelerator: nvidia-l4\n      containers:\n"
        "      - name: llama\n        image: ghcr.io/ggml-org/llama.cpp:server-cuda-b4000\n"
        "        args: [\"-hf\", \"openbmb/MiniCPM3-4B\", \"-c\", \"8192\"]\n"
        "        resources:\n          limits:\n            nvidia.com/gpu: 1\n")
    result = run(["check", "--isolated", str(deploy)])
    assert result.out == (
        f"{deploy}:9:43: CTX208 [info] KV pool of unified not declared and not derivable: openbmb/MiniCPM3-4B: how "
        "llamacpp caches MiniCPM3's low-rank attention (the latent, as SGLang does, or full heads, as vLLM does) was "
        "not read; state the pool the engine logs (kv_pool_tokens, or the ctxlint.io/kv-pool-tokens annotation on a "
        "workload); capacity checks skip these roles (capacity-not-derivable)\n")


def test_minicpm3_lm_head_is_tied_by_its_class_default():
    # no tie_word_embeddings key; MiniCPM3Config (remote code and transformers') defaults it to True, and the official
    # bf16 model.safetensors is 8.15 GB. A layer: q 2560 x 768 + 768 x 40 x 96, kv 2560 x (256 + 32) + 256 x 40 x
    # (64 + 64), o 40 x 64 x 2560, MLP 3 x 2560 x 6400, norms 2 x 2560 + 768 + 256 = 62,674,944; x 62, + the final
    # norm 2560 and one 73448 x 2560 table = 4,073,875,968
    assert 62 * 62_674_944 + 2560 + 73448 * 2560 == 4_073_875_968
    assert lookup_model("openbmb/MiniCPM3-4B").total_params_b == 4.0739
    # a user's config.json, the first one without model_type (revision f03dca5), is counted the same way
    from ctxlint.physics.hf_config import arch_from_hf_config

    config = {"architectures": ["MiniCPM3ForCausalLM"], "hidden_size": 2560, "num_hidden_layers": 62,
              "intermediate_size": 6400, "max_position_embeddings": 32768, "num_attention_heads": 40,
              "num_key_value_heads": 40, "qk_nope_head_dim": 64, "qk_rope_head_dim": 32, "q_lora_rank": 768,
              "kv_lora_rank": 256, "vocab_size": 73448, "torch_dtype": "bfloat16"}
    assert arch_from_hf_config(config).total_params_b == 4.073875968
    # a config that states the head untied keeps it
    assert arch_from_hf_config({**config, "tie_word_embeddings": False}).total_params_b == 4.261902848


def test_a_reward_models_head_is_a_score_not_a_vocabulary():
    # InternLM2ForRewardModel: InternLM2Model + v_head Linear(4096, 1), whatever tie_word_embeddings says
    from ctxlint.physics.hf_config import arch_from_hf_config

    config = {"architectures": ["InternLM2ForRewardModel"], "model_type": "internlm2", "hidden_size": 4096,
              "intermediate_size": 14336, "num_attention_heads": 32, "num_hidden_layers": 32,
              "num_key_value_heads": 8, "vocab_size": 92544, "tie_word_embeddings": False,
              "max_position_embeddings": 32768, "torch_dtype": "float16"}
    reward = arch_from_hf_config(config)
    causal = arch_from_hf_config({**config, "architectures": ["InternLM2ForCausalLM"]})
    assert (reward.lm_head_params_b, causal.lm_head_params_b) == (4096 / 1e9, 92544 * 4096 / 1e9)
    assert round((causal.total_params_b - reward.total_params_b) * 1e9) == 92544 * 4096 - 4096
