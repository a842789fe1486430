"""Catalog entries the reach sweeps found missing (or without a parameter count): each now resolves with
the numbers its transcribed config.json gives (tools/catalog/*.yaml), so a deployment naming it gets a
memory need instead of 'model not resolved' / 'no parameter count'."""
import pytest

from ctxlint.physics.models import lookup_model


@pytest.mark.parametrize("model_id, layers, kv_heads, head_dim, positions, total_b", [
    # onnx-community re-export of the official config: vocab 151936, untied -> 1.777B counted
    ("deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B", 28, 2, 128, 131072, 1.777),
    # the official blame page's ffn_hidden_size 13696 (was left out): 4 KV groups x 128, 1M positions
    ("THUDM/glm-4-9b-chat-1m", 40, 4, 128, 1048576, 9.4837),
    # mlc-llm's gpt_j preset; the model card's published 6,053,381,344 parameters
    ("EleutherAI/gpt-j-6b", 28, 16, 256, 2048, 6.053381344),
    ("EleutherAI/gpt-j-6B", 28, 16, 256, 2048, 6.053381344),
    # mlc-llm's minicpm_2b_sft_bf16 preset: MHA 36 x 64, tied embeddings
    ("openbmb/MiniCPM-2B-sft-bf16", 40, 36, 64, 4096, 2.7249),
])
def test_sweep_gap_models_resolve_with_a_parameter_count(model_id, layers, kv_heads, head_dim, positions, total_b):
    arch = lookup_model(model_id)
    assert arch is not None
    assert (arch.num_layers, arch.num_kv_heads, arch.head_dim, arch.max_position_embeddings) == \
        (layers, kv_heads, head_dim, positions)
    assert arch.total_params_b == pytest.approx(total_b, abs=1e-4)


def test_kv_bytes_per_token_of_the_new_entries():
    # 2 (K and V) x layers x KV heads x head_dim x 2 bytes
    assert 2 * 28 * 16 * 256 * 2 == 458_752
    gptj = lookup_model("EleutherAI/gpt-j-6b")
    assert 2 * gptj.num_layers * gptj.num_kv_heads * gptj.head_dim * 2 == 458_752
    minicpm = lookup_model("openbmb/MiniCPM-2B-sft-bf16")
    assert 2 * minicpm.num_layers * minicpm.num_kv_heads * minicpm.head_dim * 2 == 368_640
