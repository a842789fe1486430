"""Catalog entries the catalog31 pass sourced (tools/catalog/sweeps31.yaml), and the class defaults their
config.json leaves out: each resolves with the numbers of the file it was transcribed from and its KV a token as
the engines cache it."""
from __future__ import annotations

import pytest

from ctxlint.physics.hf_config import arch_from_hf_config
from ctxlint.physics.kv import kv_bytes_per_token_per_gpu
from ctxlint.physics.models import FULL, lookup_model
from ctxlint.physics.served import serving_dtype
from ctxlint.resolution.resolve import resolve

# mistral-community/pixtral-12b's config.json as the repository writes it (a diff from the class defaults): no
# num_attention_heads in text_config, no width or depth in vision_config
PIXTRAL_HF = {
    "architectures": ["LlavaForConditionalGeneration"], "model_type": "llava", "torch_dtype": "bfloat16",
    "text_config": {"model_type": "mistral", "hidden_size": 5120, "head_dim": 128, "intermediate_size": 14336,
                    "max_position_embeddings": 1024000, "num_hidden_layers": 40, "num_key_value_heads": 8,
                    "rope_theta": 1e9, "sliding_window": None, "vocab_size": 131072},
    "vision_config": {"model_type": "pixtral", "head_dim": 64, "image_size": 1024, "patch_size": 16},
}

# the count's pixtral-12b: a decoder layer is q and o 5120 x 4096, k and v 5120 x 1024, a 14336 SwiGLU MLP and two
# norms; 40 of them, the final norm and untied 131072 x 5120 tables; the tower PixtralVisionConfig's 24 blocks of
# 1024 (4 x 1024^2 attention, 2 x 1024 x 4096 MLP as _vision estimates it) and the 16 x 16 patch stem
PIXTRAL_LAYER = 2 * 5120 * 4096 + 2 * 5120 * 1024 + 3 * 5120 * 14336 + 2 * 5120
PIXTRAL_DECODER = 40 * PIXTRAL_LAYER + 5120 + 2 * 131072 * 5120
PIXTRAL_TOWER = 24 * (4 * 1024 ** 2 + 2 * 1024 * 4096) + 3 * 16 * 16 * 1024


def test_pixtral_12b_resolves_with_its_text_config():
    found = resolve("mistral-community/pixtral-12b")
    arch = found.arch
    assert (arch.name, found.via) == ("mistral-community/pixtral-12b", "catalog")
    assert (arch.num_layers, arch.num_attention_heads, arch.num_kv_heads, arch.head_dim) == (40, 32, 8, 128)
    assert arch.max_position_embeddings == 1024000 and set(arch.layer_kinds) == {FULL}  # sliding_window null
    # GQA in all 40 layers: 2 (K and V) x 40 x 8 KV heads x 128 x 2 bytes
    for engine in ("vllm", "sglang"):
        assert kv_bytes_per_token_per_gpu(serving_dtype(arch, None, []), engine) == 2 * 40 * 8 * 128 * 2 == 163_840
    assert kv_bytes_per_token_per_gpu(serving_dtype(arch, None, []), "vllm", tp=2) == 81_920


def test_hand_count_of_pixtral_12b():
    assert PIXTRAL_LAYER == 272_640_000 and PIXTRAL_DECODER == 12_247_782_400
    assert PIXTRAL_TOWER == 302_776_320
    arch = lookup_model("mistral-community/pixtral-12b")
    assert arch.total_params_b == round((PIXTRAL_DECODER + PIXTRAL_TOWER) / 1e9, 4) == 12.5506
    assert arch.vision_params_b == round(PIXTRAL_TOWER / 1e9, 4) == 0.3028
    assert arch.embed_params_b == arch.lm_head_params_b == round(131072 * 5120 / 1e9, 4)  # untied (MistralConfig)
    # within 1.1% of the checkpoint: six bf16 shards of 25.37 GB are about 12.68B parameters (the gated vision MLP
    # and the projector the estimate leaves out)
    assert 0.985 < arch.total_params_b / (25.37 / 2) < 1.0


def test_mistral_text_config_without_num_attention_heads_reads_mistralconfig_default():
    # the engines load the file through MistralConfig, whose num_attention_heads defaults to 32; before, the parser
    # refused the file ("lacks num_hidden_layers / num_attention_heads"), so a pixtral-12b config.json beside the
    # deploy file resolved nothing
    arch = arch_from_hf_config(PIXTRAL_HF, name="pixtral-12b")
    assert (arch.num_attention_heads, arch.num_kv_heads, arch.head_dim) == (32, 8, 128)
    assert arch.total_params_b * 1e9 == pytest.approx(PIXTRAL_DECODER + PIXTRAL_TOWER)
    written = dict(PIXTRAL_HF, text_config=dict(PIXTRAL_HF["text_config"], num_attention_heads=40))
    assert arch_from_hf_config(written).num_attention_heads == 40  # a written value wins


def test_pixtral_vision_config_without_dims_takes_pixtralvisionconfig_defaults():
    from ctxlint.physics.params import _vision
    assert _vision(PIXTRAL_HF["vision_config"]) == PIXTRAL_TOWER  # before: 0, the tower left out
    assert _vision({"model_type": "pixtral", "hidden_size": 1408, "num_hidden_layers": 40, "intermediate_size": 6144,
                    "patch_size": 16}) == 40 * (4 * 1408 ** 2 + 2 * 1408 * 6144) + 3 * 16 * 16 * 1408  # written wins
    assert _vision({"model_type": "clip_vision_model", "patch_size": 14}) == 0  # no defaults for other towers


@pytest.mark.parametrize("model_type", ["llama", "qwen2", None])
def test_other_formats_without_num_attention_heads_are_still_refused(model_type):
    # only MistralConfig's default is known to be what the engines read; elsewhere a missing count stays an error
    config = {"num_hidden_layers": 4, "hidden_size": 256, "vocab_size": 1000}
    if model_type:
        config["model_type"] = model_type
    with pytest.raises(ValueError, match="num_attention_heads"):
        arch_from_hf_config(config)


@pytest.mark.parametrize("heads", [None, 32])
def test_mistral_config_without_num_key_value_heads_reads_mistralconfig_default_8(heads):
    # MistralConfig's num_key_value_heads defaults to 8, not to num_attention_heads (huggingface/transformers@
    # 0b07a74c673bdf8fbd472a1c7df139b357495414: src/transformers/models/mistral/configuration_mistral.py), and the
    # engines read the loaded config's value: a Mistral config.json that omits it caches 8 KV heads, not 32 (4x the
    # KV a token). With num_attention_heads also left out this file was refused before; now both are the defaults.
    text = {k: v for k, v in PIXTRAL_HF["text_config"].items() if k != "num_key_value_heads"}
    if heads:
        text["num_attention_heads"] = heads
    arch = arch_from_hf_config(dict(PIXTRAL_HF, text_config=text))
    assert (arch.num_attention_heads, arch.num_kv_heads) == (32, 8)
    assert kv_bytes_per_token_per_gpu(serving_dtype(arch, None, []), "vllm") == 163_840
    # an explicit null is MistralConfig's "backward compatibility" case: as many KV heads as query heads
    assert arch_from_hf_config(dict(PIXTRAL_HF, text_config=dict(text, num_key_value_heads=None))).num_kv_heads == 32
    # and another model type keeps its own reading (LlamaConfig: num_attention_heads)
    llama = {"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
             "vocab_size": 32000, "intermediate_size": 11008}
    assert arch_from_hf_config(llama).num_kv_heads == 32
