"""ModelOpt's per-layer mixed precision: which algorithm the routed experts take and which the other layers.

A ModelOpt checkpoint quantized with more than one algorithm says `quant_algo: MIXED_PRECISION` and lists every
quantized module with its own `quant_algo` under `quantized_layers` (config.json `quantization_config`, and the
same block as `quantization` in hf_quant_config.json). nvidia/MiniMax-M3-NVFP4 lists its 57 x 128 routed experts'
w1/w2/w3 as NVFP4 (group_size 16) and every other projection (attention, index projections, shared experts, the
three dense MLPs) as MXFP8; its embeddings, LM head, vision tower and router gates are in `exclude_modules`
(ai-dynamo/aiconfigurator@90f7fc0fcba7bb8082dd023da10bfc683ed99db5:aic-core/src/aiconfigurator_core/model_configs/
nvidia--MiniMax-M3-NVFP4_config.json, and its hf_quant_config.json at dbb322e6f3d36aa6b4af3650b11811d6a8ca1a49).
Other NVIDIA MIXED_PRECISION checkpoints at the same commit split differently (nvidia/Qwen3.6-35B-A3B-NVFP4: FP8
attention, NVFP4 experts, shared experts and LM head; nvidia/DeepSeek-V4-*-NVFP4 list only their experts, their
other layers FP8 by `quant_method: fp8`), so only a split the list states whole is read here.
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
