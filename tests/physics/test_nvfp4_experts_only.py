"""An NVFP4 checkpoint whose unquantized-module list keeps the attention and the shared experts at 16 bits holds
only its routed experts in NVFP4 ("nvfp4-experts"), as an MXFP4 one with that list already did: nvidia/Kimi-K2.6-NVFP4
and Kimi-K2.7-Code-NVFP4 exclude every layer's self_attn* and mlp.shared_experts* (ai-dynamo/aiconfigurator@
095f58a51c4ca8e61b66ec108d86f223f8d559ce:aic-core/src/aiconfigurator_core/model_configs/nvidia--Kimi-K2.6-NVFP4_config.json),
and vLLM reads `ignore` or `exclude_modules` alike (vllm==0.34.0:vllm/model_executor/layers/quantization/modelopt.py,
ModelOptQuantConfigBase.from_config). Read as NVFP4 over every linear layer, their 9.4e9 attention and shared-expert
parameters weighed 4.5 bits instead of 16."""
from __future__ import annotations

import pytest

from ctxlint.physics.gpu_weights import weights_per_gpu
from ctxlint.physics.quant_config import from_quantization_config
from ctxlint.resolution.quant_flag import _family
from ctxlint.resolution.resolve import resolve

_KIMI_IGNORE = ["language_model.lm_head", "language_model.model.layers.0*",
                "language_model.model.layers.1.mlp.shared_experts*", "language_model.model.layers.1.self_attn*"]
_NVFP4_GROUP = {"group_0": {"weights": {"num_bits": 4, "type": "float", "group_size": 16}, "targets": ["Linear"]}}


@pytest.mark.parametrize("q", [
    {"quant_method": "modelopt", "quant_algo": "NVFP4", "ignore": _KIMI_IGNORE},
    {"quant_method": "modelopt", "quant_algo": "NVFP4", "exclude_modules": _KIMI_IGNORE},
    {"quant_method": "modelopt", "config_groups": _NVFP4_GROUP, "ignore": _KIMI_IGNORE},
    {"quant_method": "compressed-tensors", "format": "nvfp4-pack-quantized", "config_groups": _NVFP4_GROUP,
     "ignore": ["re:.*self_attn.*", "re:.*shared_experts.*", "lm_head"]},
])
def test_attention_and_shared_experts_kept_means_experts_only(q):
    assert from_quantization_config(q).key == "nvfp4-experts"


@pytest.mark.parametrize("ignore", [None, ["lm_head"], ["lm_head", "model.layers.0.self_attn*"],
                                    ["lm_head", "model.layers.3.mlp.shared_experts*"]])
def test_otherwise_every_linear_layer(ignore):
    # attention alone kept (nvidia/Gemma-4-31B-IT-NVFP4, a dense model) or shared experts alone: not experts-only
    q = {"quant_method": "modelopt", "quant_algo": "NVFP4", **({"ignore": ignore} if ignore else {})}
    assert from_quantization_config(q).key == "nvfp4"


def test_mxfp4_unchanged():
    q = {"quant_method": "compressed-tensors", "format": "mxfp4-pack-quantized",
         "config_groups": {"g": {"weights": {"num_bits": 4, "type": "float", "strategy": "group", "group_size": 32}}}}
    assert from_quantization_config(q).key == "mxfp4"
    assert from_quantization_config({**q, "ignore": ["re:.*self_attn.*", "re:.*shared_experts.*"]}).key == \
        "mxfp4-experts"


def test_kimi_k26_weights_per_gpu():
    arch = resolve("nvidia/Kimi-K2.6-NVFP4").arch
    assert arch.weights == "nvfp4-experts"
    term, formula, notes = weights_per_gpu(arch, 8, 1)
    # 1014.686e9 experts x 4.5 / 8 + (1026.4082 - 1014.686)e9 x 2 B, over 8 GPUs: 74.28e9 B (69.17 GiB); as NVFP4
    # over every linear layer it was 540.85 GiB / 8 = 67.61 GiB
    assert round(term.point) == round((1014.686e9 * 4.5 / 8 + (1026.4082 - 1014.686) * 1e9 * 2) / 8)
    assert formula == "1026.41e9 params as NVFP4 experts = 553.40 GiB / (8 x 1)"
    assert notes[0] == "weights NVFP4 experts: 4.5 bits per quantized weight (MoE experts only)"
    # DP 8 with EP: every GPU holds the 16-bit rest whole, 1/8 of the experts
    term, _, _ = weights_per_gpu(arch, 1, 1, expert_split=8, expert_how="DP 8 with EP")
    assert f"{term.point / 2**30:.2f}" == "88.28"


def test_flag_family():
    # --quantization modelopt_fp4 over such a checkpoint is the NVFP4 family's (ModelOpt's override)
    assert _family(from_quantization_config({"quant_method": "modelopt", "quant_algo": "NVFP4",
                                             "ignore": _KIMI_IGNORE})) == "nvfp4"
