"""DeepSeek-V4's checkpoints: FP8 (quantization_config: e4m3, 128x128 blocks) with `expert_dtype: fp4`, the routed
experts in MXFP4 (4 bits + one UE8M0 scale per 32 = 4.25 bits), the other linear layers FP8, the embeddings and LM
head 16-bit (ai-dynamo/aiconfigurator@095f58a51c4ca8e61b66ec108d86f223f8d559ce:aic-core/src/aiconfigurator_core/
model_configs/deepseek-ai--DeepSeek-V4-{Pro,Flash}_config.json). Read as FP8 throughout, V4-Pro's 1,547e9 expert
parameters weighed 8 bits instead of 4.25: 1,502 GiB of weights instead of 827. KV physics stays unsupported."""
from __future__ import annotations

from ctxlint.physics.gpu_weights import weights_per_gpu
from ctxlint.physics.hf_config import arch_from_hf_config
from ctxlint.physics.models import lookup_model
from ctxlint.physics.weights import format_by_key, weight_bytes

FP8 = {"quant_method": "fp8", "fmt": "e4m3", "weight_block_size": [128, 128]}
CFG = {"architectures": ["DeepseekV4ForCausalLM"], "model_type": "deepseek_v4", "num_hidden_layers": 61,
       "num_attention_heads": 128, "num_key_value_heads": 1, "head_dim": 512, "hidden_size": 7168,
       "qk_rope_head_dim": 64, "index_head_dim": 128, "index_n_heads": 64, "sliding_window": 128,
       "compress_ratios": [128, 128] + [4, 128] * 29 + [4], "max_position_embeddings": 1048576}


def test_the_config_fields_say_fp8_with_mxfp4_experts():
    def key(**extra):
        return arch_from_hf_config({**CFG, **extra}, "DeepSeek-V4-Pro").weights
    assert key(quantization_config=FP8, expert_dtype="fp4") == "fp8+mxfp4-experts"
    assert key(quantization_config={**FP8, "expert_dtype": "fp4"}) == "fp8+mxfp4-experts"  # a conversion's place
    assert key(quantization_config=FP8, expert_dtype="FP4 ") == "fp8+mxfp4-experts"
    # DeepSeek's own switch to an all-FP8 checkpoint: drop expert_dtype (or say fp8); nothing to mix without FP8
    assert key(quantization_config=FP8) == "fp8"
    assert key(quantization_config=FP8, expert_dtype="fp8") == "fp8"
    assert key(expert_dtype="fp4") is None
    assert key(quantization_config=FP8, expert_dtype=["fp4"]) == "fp8"  # bad input: no crash, no guess


def test_the_catalog_holds_it_and_v4_stays_unsupported_for_kv():
    for name in ("deepseek-ai/DeepSeek-V4-Pro", "deepseek-ai/DeepSeek-V4-Flash"):
        arch = lookup_model(name)
        assert arch.weights == "fp8+mxfp4-experts" and arch.unsupported, name
    assert format_by_key("fp8+mxfp4-experts").label == "FP8 with MXFP4 experts"


def test_experts_at_mxfp4_the_rest_at_fp8_embeddings_at_16_bits():
    fmt = format_by_key("fp8+mxfp4-experts")
    # 10 params: 6 experts (4.25 bits), 1 embed + 1 LM head (16 bits), 2 other linear (8 bits)
    assert weight_bytes(10, 1, 1, 6, 0, fmt) == 6 * 4.25 / 8 + 2 * 1 + 2 * 2
    assert weight_bytes(10, None, None, None, None, fmt) == 10  # split unknown: all at FP8, never below
    arch = lookup_model("deepseek-ai/DeepSeek-V4-Pro")
    term, formula, notes = weights_per_gpu(arch, 8, 1)
    assert formula == "1573e9 params as FP8 with MXFP4 experts = 791.17 GiB / (8 x 1)"  # 826.75 GiB at 1611.21e9
    # 1547.3962e9 x 4.25/8 + (1572.9972 - 1547.3962 - 2 x 0.9267)e9 x 1 + 2 x 0.9267e9 x 2 bytes, / 8 GPUs
    expected = (1547.3962e9 * 4.25 / 8 + (1572.9972 - 1547.3962 - 1.8534) * 1e9 + 1.8534e9 * 2) / 8
    assert abs(term.point - expected) < 1e3
    assert notes[0] == ("weights FP8 with MXFP4 experts: 4.25 bits per quantized weight (MoE experts; other linear "
                        "layers FP8, embeddings and LM head at 16 bits)")


def test_a_quantization_flag_is_checked_as_over_its_fp8_quant_method():
    from ctxlint.resolution.quant_flag import decide

    fmt, fp8 = format_by_key("fp8+mxfp4-experts"), format_by_key("fp8")
    # --quantization fp8 over it: the checkpoint's mixed format is kept (the flag's FP8 would weigh the experts 8 bits)
    assert decide("vllm", "fp8", fmt, fp8)[0] is fmt
    # a flag vLLM refuses over an FP8 quant_method is refused over this one alike
    assert decide("vllm", "awq", fmt, format_by_key("awq"))[2] == decide("vllm", "awq", fp8, format_by_key("awq"))[2]


def test_a_locked_config_keeps_expert_dtype():
    # `ctxlint models lock` keeps ARCH_KEYS (and quantization_config's _QUANT_KEYS): without expert_dtype a locked
    # V4 would weigh FP8 throughout again
    from ctxlint.resolution.lockfile import arch_facts

    for cfg in ({**CFG, "quantization_config": FP8, "expert_dtype": "fp4"},
                {**CFG, "quantization_config": {**FP8, "expert_dtype": "fp4"}}):
        assert arch_from_hf_config(arch_facts(cfg), "DeepSeek-V4-Pro").weights == "fp8+mxfp4-experts"
