"""Ids NVIDIA's srt-slurm recipes and 2026 sweeps serve, resolved from the catalog (tools/catalog/derivatives.yaml),
with the KV bytes a token costs on vLLM in bf16 worked by hand from the base's config.json."""
from __future__ import annotations

from ctxlint.physics.kv import kv_bytes_per_token_per_gpu
from ctxlint.physics.models import FULL, LINEAR
from ctxlint.resolution.resolve import resolve


def test_deepseek_r1_fp4_v2_is_deepseek_r1_in_nvfp4():
    # The cards: "the quantized version of ... DeepSeek R1 0528" (R1-0528 is R1's network), "additionally quantizes
    # the wo module". DeepSeek-R1 config.json: 61 layers, MLA kv_lora_rank 512 + qk_rope_head_dim 64, 163,840
    # positions. vLLM caches the latent once a layer: 61 x (512 + 64) x 2 B = 70,272, the same on every TP rank
    for model in ("nvidia/DeepSeek-R1-0528-FP4-v2", "nvidia/DeepSeek-R1-FP4-v2", "/mnt/models/deepseek-r1-0528-fp4-v2/"):
        found = resolve(model)
        arch = found.arch
        assert (arch.name, found.weights.key) == ("deepseek-ai/DeepSeek-R1", "nvfp4")
        assert "which it derives from (NVIDIA's second NVFP4 quantization of DeepSeek-R1" in found.how
        assert (arch.num_layers, arch.kv_lora_rank, arch.qk_rope_head_dim, arch.max_position_embeddings) == \
            (61, 512, 64, 163840)
        assert kv_bytes_per_token_per_gpu(arch, "vllm") == 61 * (512 + 64) * 2 == 70_272
        assert kv_bytes_per_token_per_gpu(arch, "vllm", tp=4) == 70_272
    # the first release resolves as before (by name: the NVFP4 tag removed)
    assert resolve("nvidia/DeepSeek-R1-0528-FP4").weights.key == "nvfp4"
    # only the releases a card names: no rule strips a trailing "-v2" (DeepSeek-V2 is another network)
    assert not resolve("nvidia/DeepSeek-R1-0528-FP4-v3").resolved


def test_qwen3_5_397b_nvfp4_v2_is_qwen3_5_397b_in_nvfp4():
    # Qwen3.5-397B-A17B config.json: 60 layers, full_attention_interval 4 (15 full, 45 Gated DeltaNet), 2 KV heads
    # x 256 on the full layers, 262,144 positions: 15 x 2 (K, V) x 2 x 256 x 2 B = 30,720 a token
    found = resolve("nvidia/Qwen3.5-397B-A17B-NVFP4-V2")
    arch = found.arch
    assert (arch.name, found.weights.key) == ("Qwen/Qwen3.5-397B-A17B", "nvfp4")
    assert (arch.num_layers, arch.count(FULL), arch.count(LINEAR), arch.num_kv_heads, arch.head_dim,
            arch.max_position_embeddings) == (60, 15, 45, 2, 256, 262144)
    assert kv_bytes_per_token_per_gpu(arch, "vllm") == 15 * 2 * 2 * 256 * 2 == 30_720


def test_dialogpt_large_is_gpt2_large_with_multi_head_attention():
    # config.json (microsoft/DialoGPT-large): gpt2, n_layer 36, n_head 20, n_embd 1280, n_positions 1024, vocab 50257.
    # Every head keeps its K and V (head_dim 1280 / 20 = 64): 36 x 2 x 20 x 64 x 2 B = 184,320 a token; TP 4 splits
    # the 20 heads 5 a rank: 46,080. Parameters: 772.2M counted (tied embeddings, 4 x MLP); GPT-2 large's 774.0M
    # also holds its learned positions (1,024 x 1,280) and biases (11,520 a layer), which the count leaves out
    found = resolve("microsoft/DialoGPT-large")
    arch = found.arch
    assert (found.via, arch.num_layers, arch.count(FULL), arch.num_kv_heads, arch.head_dim,
            arch.max_position_embeddings, round(arch.total_params_b, 4)) == ("catalog", 36, 36, 20, 64, 1024, 0.7722)
    assert kv_bytes_per_token_per_gpu(arch, "vllm") == 36 * 2 * 20 * 64 * 2 == 184_320
    assert kv_bytes_per_token_per_gpu(arch, "vllm", tp=4) == 46_080


def test_tinyllama_3t_checkpoint_is_the_chat_model_s_network():
    # fine-tunes of the 3T checkpoint keep TinyLlama-1.1B-Chat-v1.0's config: 22 layers, 4 KV heads x 64
    # (2,048 / 32), 2,048 positions: 22 x 2 x 4 x 64 x 2 B = 22,528 a token
    found = resolve("TinyLlama/TinyLlama-1.1B-intermediate-step-1431k-3T")
    arch = found.arch
    assert (arch.name, arch.num_layers, arch.num_kv_heads, arch.head_dim, arch.max_position_embeddings) == \
        ("TinyLlama/TinyLlama-1.1B-Chat-v1.0", 22, 4, 64, 2048)
    assert "which it derives from (the pretrained 3T-token checkpoint" in found.how
    assert kv_bytes_per_token_per_gpu(arch, "vllm") == 22 * 2 * 4 * 64 * 2 == 22_528


def test_internvl3_5_8b_flash_is_internvl3_5_8b_s_decoder():
    # the paper: Flash is InternVL3.5 "extended with an additional visual resolution router"; the decoder is
    # InternVL3_5-8B's Qwen3-8B llm_config: 36 layers, 8 KV heads x 128, 40,960 positions:
    # 36 x 2 x 8 x 128 x 2 B = 147,456 a token
    found = resolve("OpenGVLab/InternVL3_5-8B-Flash")
    arch = found.arch
    assert (arch.name, arch.num_layers, arch.num_kv_heads, arch.head_dim, arch.max_position_embeddings) == \
        ("OpenGVLab/InternVL3_5-8B", 36, 8, 128, 40960)
    assert "visual resolution router" in found.how
    assert kv_bytes_per_token_per_gpu(arch, "vllm") == 36 * 2 * 8 * 128 * 2 == 147_456
