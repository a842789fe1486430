"""The first vLLM release that can load a model, by its architecture class.

A vLLM deployment of unknown version is estimated under each release whose memory rules differ
(releases.py). A release that cannot load the model cannot be the one running it: gpt-oss exists
only from 0.10.1, so 0.8.5's and 0.9.0's rules (no hybrid KV cache manager: its 18 window layers
would hold the whole context) must not halve its pool. vLLM picks a model's code by the class in
config.json `architectures`, looked up in its model registry; each release below was read there, in
the package vLLM published (vllm==X: each x.y.0 from 0.8.5 to 0.34.0, 0.21.0 never published, and the
release published just before each first release), and is cited as
vllm-project/vllm@vX:vllm/model_executor/models/registry.py. The class is a key of that release's
registry and of none read before it, down to 0.8.5 (the release published just before is noted).

Listed: the classes of the catalog's models first registered after 0.8.5, the oldest release the
fold spans (a class registered by then keeps every release), and the other classes of those
families. A class not listed keeps every release: no guess. Only the registry counts, not a
release's Transformers-backend fallback (text-only Llama4ForCausalLM and Qwen3_5ForCausalLM,
registered after their families' first classes, are left out for that reason).

Not applied: classes vLLM dropped later. Its registry lists them with the last release that had
them (_PREVIOUSLY_SUPPORTED_MODELS: MllamaForConditionalGeneration "0.10.2", MiniMaxM1ForCausalLM and
BaichuanForCausalLM "0.23.0", the latter still a key of 0.24.0), but newer releases route some
families through the Transformers backend instead, which the registry alone does not tell.
"""
from __future__ import annotations

from typing import Any, Dict, Optional, Tuple

from ctxlint.versions import parse_version

REGISTRY = "vllm/model_executor/models/registry.py"

# class -> its first release (the release read before it, which lacks it)
FIRST_RELEASE: Dict[str, str] = {
    "MiMoForCausalLM": "0.9.0",                          # not in 0.8.5.post1
    "NemotronHForCausalLM": "0.9.1",                     # not in 0.9.0.1
    "HunYuanMoEV1ForCausalLM": "0.9.2",                  # not in 0.9.1
    "MiniMaxM1ForCausalLM": "0.9.2",                     # not in 0.9.1
    "Glm4MoeForCausalLM": "0.10.0",                      # not in 0.9.2
    # not in 0.10.0; https://github.com/vllm-project/vllm/releases/tag/v0.10.1: "New model families: GPT-OSS"
    "GptOssForCausalLM": "0.10.1",
    "Qwen3NextForCausalLM": "0.10.2",                    # not in 0.10.1.1
    "DeepseekV32ForCausalLM": "0.11.0",                  # not in 0.10.2
    "Qwen3VLForConditionalGeneration": "0.11.0",         # not in 0.10.2
    "Qwen3VLMoeForConditionalGeneration": "0.11.0",      # not in 0.10.2
    "KimiLinearForCausalLM": "0.11.1",                   # not in 0.11.0
    "MiniMaxM2ForCausalLM": "0.11.1",                    # not in 0.11.0
    "MiMoV2FlashForCausalLM": "0.14.0",                  # not in 0.13.0
    "KimiK25ForConditionalGeneration": "0.15.0",         # not in 0.14.1
    "GlmMoeDsaForCausalLM": "0.16.0",                    # not in 0.15.1
    "Qwen3_5ForConditionalGeneration": "0.17.0",         # not in 0.16.0
    "Qwen3_5MoeForConditionalGeneration": "0.17.0",      # not in 0.16.0
    "Gemma4ForCausalLM": "0.19.0",                       # not in 0.18.1
    "Gemma4ForConditionalGeneration": "0.19.0",          # not in 0.18.1
    "DeepseekV4ForCausalLM": "0.20.0",                   # not in 0.19.1
    "Step3p7ForConditionalGeneration": "0.23.0",         # not in 0.22.1
    "Gemma4UnifiedForConditionalGeneration": "0.23.0",   # not in 0.22.1
    # not in 0.23.0, whose release notes say "Minimax M3 is not yet supported in this version"
    # (https://github.com/vllm-project/vllm/releases/tag/v0.23.0)
    "MiniMaxM3SparseForCausalLM": "0.24.0",
    "MiniMaxM3SparseForConditionalGeneration": "0.24.0",
    "KimiK3ForConditionalGeneration": "0.27.0",          # not in 0.26.0
}

# The catalog keeps a config's model_type (its text part's, for a multimodal model), not its classes:
# the classes each of its model types stands for. Listed only where every class of that model type is
# above, so the earliest of their releases is one no class of the family precedes. Not listed:
# kimi_k2 (Kimi-K2 is DeepseekV3ForCausalLM, registered by 0.8.5; Kimi-K2.5's text part says kimi_k2
# too) and step3p7 (the catalog's transcription names Step3p7FlashForCausalLM, which no release
# registers).
MODEL_TYPES: Dict[str, Tuple[str, ...]] = {
    "mimo": ("MiMoForCausalLM",),
    "nemotron_h": ("NemotronHForCausalLM",),
    "hunyuan": ("HunYuanMoEV1ForCausalLM",),
    "minimax_m1": ("MiniMaxM1ForCausalLM",),
    "glm4_moe": ("Glm4MoeForCausalLM",),
    "gpt_oss": ("GptOssForCausalLM",),
    "qwen3_next": ("Qwen3NextForCausalLM",),
    "deepseek_v32": ("DeepseekV32ForCausalLM",),
    "qwen3_vl_text": ("Qwen3VLForConditionalGeneration",),
    "qwen3_vl_moe_text": ("Qwen3VLMoeForConditionalGeneration",),
    # Kimi-Linear (KimiLinearForCausalLM) and Kimi-K3, whose text part says kimi_linear
    "kimi_linear": ("KimiLinearForCausalLM", "KimiK3ForConditionalGeneration"),
    "minimax_m2": ("MiniMaxM2ForCausalLM",),
    "mimo_v2_flash": ("MiMoV2FlashForCausalLM",),
    "glm_moe_dsa": ("GlmMoeDsaForCausalLM",),
    "qwen3_5_text": ("Qwen3_5ForConditionalGeneration",),
    "qwen3_5_moe_text": ("Qwen3_5MoeForConditionalGeneration",),
    "gemma4_text": ("Gemma4ForConditionalGeneration", "Gemma4ForCausalLM"),
    # Gemma 4 12B, the encoder-free member, whose text part says gemma4_unified_text
    "gemma4_unified_text": ("Gemma4UnifiedForConditionalGeneration",),
    "deepseek_v4": ("DeepseekV4ForCausalLM",),
    # the catalog's transcription names MiniMaxM3ForCausalLM, which no release registers; the family
    # is registered from 0.24.0 and 0.23.0's release notes say it is not supported there
    "minimax_m3": ("MiniMaxM3SparseForCausalLM", "MiniMaxM3SparseForConditionalGeneration"),
}


def _earliest(classes) -> Tuple[str, str]:
    """(release, class): the earliest first release of `classes` (all listed)."""
    return min(((FIRST_RELEASE[c], c) for c in classes), key=lambda pair: parse_version(pair[0]))


_BY_TYPE = {model_type: _earliest(classes) for model_type, classes in MODEL_TYPES.items()}


def first_release(arch: Any) -> Optional[Tuple[str, str]]:
    """(the first release that can load `arch`, the class that release is first for), or None when
    no release is ruled out. vLLM loads a config by the first of its classes its registry resolves
    (@v0.10.1:vllm/model_executor/models/registry.py _ModelRegistry.inspect_model_cls), so a release
    that has any of them can: the earliest counts, and a class not listed may load anywhere.
    An arch without classes (a catalog entry) is looked up by its model_type."""
    names = getattr(arch, "architectures", ()) or ()
    if not names:
        return _BY_TYPE.get(getattr(arch, "model_type", None))
    if any(name not in FIRST_RELEASE for name in names):
        return None
    return _earliest(names)


def source(release: str) -> str:
    return f"vllm-project/vllm@v{release}:{REGISTRY}"
