"""ModelOpt's per-layer mixed precision: which algorithm the routed experts take and which the other layers.

A ModelOpt checkpoint quantized with more than one algorithm says `quant_algo: MIXED_PRECISION` and lists every
quantized module with its own `quant_algo` under `quantized_layers` (config.json `quantization_config`, and the
same block as `quantization` in hf_quant_config.json). nvidia/MiniMax-M3-NVFP4 lists its 57 x 128 routed experts'
w1/w2/w3 as NVFP4 (group_size 16) and every other projection (attention, index projections, shared experts, the
three dense MLPs) as MXFP8; its embeddings, LM head, vision tower and router gates are in `exclude_modules`
(ai-dynamo/aiconfigurator@90f7fc0fcba7bb8082dd023da10bfc683ed99db5:aic-core/src/aiconfigurator_core/model_configs/
nvidia--MiniMax-M3-NVFP4_config.json, and its hf_quant_config.json at dbb322e6f3d36aa6b4af3650b11811d6a8ca1a49).
nvidia/DeepSeek-V4-Flash-NVFP4 and -Pro-NVFP4 list only their routed experts (`layers.N.ffn.experts`, NVFP4 group
16) beside `quant_method: fp8` and `moe_quant_algo: NVFP4`, the attention, shared experts and MTP layers left as
DeepSeek's FP8 (`ignore`), so they read as FP8 with NVFP4 experts (fp8_nvfp4_experts; ai-dynamo/aiconfigurator@
095f58a51c4ca8e61b66ec108d86f223f8d559ce:aic-core/src/aiconfigurator_core/model_configs/nvidia--DeepSeek-V4-
{Flash,Pro}-NVFP4_config.json and _hf_quant_config.json). Other NVIDIA MIXED_PRECISION checkpoints split
differently (nvidia/Qwen3.6-35B-A3B-NVFP4: FP8 attention, W4A16_NVFP4 experts, shared experts and LM head), so only
a split the list states whole is read here. vLLM serves the DeepSeek-V4 ones so: DeepseekV4FP8Config keeps FP8 for
every linear layer and gives the routed experts ModelOptNvFp4FusedMoE when `moe_quant_algo` is NVFP4 and
`expert_dtype` fp4 (vllm-project/vllm@e95bf0dfd8bc0f66724b083d56021777d8ecdc12:vllm/models/deepseek_v4/quant_config.py).
"""
from __future__ import annotations

from typing import Optional, Tuple


def _routed_expert(name: str) -> bool:
    """A routed expert's module (`...block_sparse_moe.experts.7.w1`, `...mlp.experts`), not a shared one."""
    return ".experts." in name + "." and "shared_expert" not in name


def expert_split(q: dict) -> Optional[Tuple[str, str]]:
    """(routed experts' algorithm, every other quantized layer's), upper case, when `quantized_layers` gives each
    side exactly one algorithm; None when it does not (no list, one side empty, or either side mixed)."""
    layers = q.get("quantized_layers")
    if not isinstance(layers, dict) or not layers:
        return None
    experts, rest = set(), set()
    for name, spec in layers.items():
        algo = spec.get("quant_algo") if isinstance(spec, dict) else None
        if not isinstance(name, str) or not isinstance(algo, str):
            return None
        (experts if _routed_expert(name) else rest).add(algo.upper())
    if len(experts) != 1 or len(rest) != 1:
        return None
    return experts.pop(), rest.pop()


def fp8_nvfp4_experts(q: dict) -> bool:
    """Whether an FP8 checkpoint's config (`quant_method: fp8`) keeps its routed experts in NVFP4: `moe_quant_algo:
    NVFP4`, or a MIXED_PRECISION `quantized_layers` that lists routed experts only, every one NVFP4 (nvidia/
    DeepSeek-V4-*-NVFP4 say both)."""
    if str(q.get("moe_quant_algo", "")).upper() == "NVFP4":
        return True
    layers = q.get("quantized_layers")
    if str(q.get("quant_algo", "")).upper() != "MIXED_PRECISION" or not isinstance(layers, dict) or not layers:
        return False
    return all(isinstance(name, str) and _routed_expert(name) and isinstance(spec, dict)
               and str(spec.get("quant_algo", "")).upper() == "NVFP4" for name, spec in layers.items())
