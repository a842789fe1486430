"""Which LMDeploy engine runs a model, and what each does with a `--cache-max-entry-count` of 1 or more.

`lmdeploy serve api_server` runs the PyTorch engine for `--backend pytorch`; any other backend (the default
`turbomind` too) is decided by `autoget_backend`: TurboMind when its `is_supported` lists the model's
architecture, else PyTorch (lmdeploy-0.18.0 wheel: lmdeploy/cli/serve.py `api_server`, lmdeploy/archs.py
`autoget_backend`, lmdeploy/turbomind/supported_models.py `SUPPORTED_ARCHS`). The list is kept from 0.14.0, the
first release with FP8 KV (which TurboMind refuses) and the releases `--num-gpu-blocks` exists in; earlier
releases listed other architectures, so there the backend is known only when stated.
"""
from __future__ import annotations

from typing import Any, Mapping, Optional

from ctxlint.engines.result import from_release

from .models import ModelArch

# SUPPORTED_ARCHS by the release that added each (InternLM/lmdeploy@refs/tags/v0.14.0, @v0.15.0, @v0.16.0 and
# the lmdeploy-0.17.0 and 0.18.0 wheels: lmdeploy/turbomind/supported_models.py), with the config.json
# model_type of each architecture, for models known by their type only (the catalog's)
_SINCE_014 = ("Qwen2ForCausalLM", "Qwen2MoeForCausalLM", "Qwen3ForCausalLM", "Qwen3MoeForCausalLM",
              "Qwen3_5ForConditionalGeneration", "Qwen3_5MoeForConditionalGeneration",
              "InternS2PreviewForConditionalGeneration", "InternVLChatModel", "InternVLForConditionalGeneration",
              "InternS1ForConditionalGeneration", "LlamaForCausalLM", "InternLM2ForCausalLM", "InternLM3ForCausalLM",
              "Glm4MoeLiteForCausalLM", "GptOssForCausalLM", "MixtralForCausalLM")
_SINCE_016 = ("Qwen2VLForConditionalGeneration", "Qwen2_5_VLForConditionalGeneration",
              "InternS2MobiusForConditionalGeneration")
TURBOMIND_SINCE = {**{a: "0.14.0" for a in _SINCE_014}, **{a: "0.16.0" for a in _SINCE_016}}
_TYPES = {"qwen2": "Qwen2ForCausalLM", "qwen2_moe": "Qwen2MoeForCausalLM", "qwen3": "Qwen3ForCausalLM",
          "qwen3_moe": "Qwen3MoeForCausalLM", "qwen3_5": "Qwen3_5ForConditionalGeneration",
          "qwen3_5_text": "Qwen3_5ForConditionalGeneration", "qwen3_5_moe": "Qwen3_5MoeForConditionalGeneration",
          "qwen3_5_moe_text": "Qwen3_5MoeForConditionalGeneration", "internvl_chat": "InternVLChatModel",
          "llama": "LlamaForCausalLM", "internlm2": "InternLM2ForCausalLM", "internlm3": "InternLM3ForCausalLM",
          "glm4_moe_lite": "Glm4MoeLiteForCausalLM", "gpt_oss": "GptOssForCausalLM", "mixtral": "MixtralForCausalLM",
          "qwen2_vl": "Qwen2VLForConditionalGeneration", "qwen2_5_vl": "Qwen2_5_VLForConditionalGeneration",
          # HF-native InternVL (transformers 5.17.0: models/internvl/configuration_internvl.py:108). Intern-S1's
          # InternS1ForConditionalGeneration is listed too, but its type is not in a source read here: not mapped
          "internvl": "InternVLForConditionalGeneration"}


def turbomind_since(arch: Optional[ModelArch]) -> Optional[str]:
    """The first release from 0.14.0 whose TurboMind takes this model; None: none of them (or not known)."""
    name = _arch_name(arch)
    if name == "Glm4MoeLiteForCausalLM" and arch.vision_params_b:
        return None  # is_supported: a GLM-4 MoE Lite with a vision_config goes to PyTorch
    return TURBOMIND_SINCE.get(name or "")


def _arch_name(arch: Optional[ModelArch]) -> Optional[str]:
    """The class is_supported looks up: config.json's architectures[0], else the listed class of the model_type."""
    if arch is None:
        return None
    return arch.architectures[0] if arch.architectures else _TYPES.get(arch.model_type or "")


def backend(arch: Optional[ModelArch], settings: Mapping[str, Any], release: Optional[str]) -> Optional[str]:
    """"pytorch" or "turbomind" as api_server picks it; None when it depends on what ctxlint does not know (the
    model, or a release before 0.14.0, or, with the release unknown, a model TurboMind took only later)."""
    if str(settings.get("backend") or "").lower() == "pytorch":
        return "pytorch"
    if arch is None or (release and not from_release("0.14.0", release)):
        return None
    if _arch_name(arch) is None:
        return None  # a type not in _TYPES may still be a listed class (the map is of listed ones): not guessed
    since = turbomind_since(arch)
    if since is None:
        return "pytorch"
    if not release:
        return "turbomind" if since == "0.14.0" else None
    return "turbomind" if from_release(since, release) else "pytorch"


def ratio_refused(engine: Optional[str], release: Optional[str]) -> Optional[bool]:
    """Does this engine at this release refuse a cache_max_entry_count of 1 or more (None: not known)?

    PyTorch asserts `0 < cache_max_entry_count < 1` from 0.4.1 (InternLM/lmdeploy@v0.4.1:lmdeploy/messages.py
    PytorchEngineConfig; lmdeploy-0.18.0 wheel: lmdeploy/messages.py). TurboMind reads it as a number of blocks
    (InternLM/lmdeploy@refs/tags/v0.14.0:src/turbomind/models/llama/BlockManager.cc `if (block_count < 1.)`), but
    TurbomindEngineConfig asserted `0 < cache_max_entry_count < 1` from 0.4.1 to 0.9.2 (@v0.4.1 and @v0.9.2:
    lmdeploy/messages.py; only `> 0` from @v0.10.0), and from 0.15.0 TurboMind aborts at start-up:
    `TM_CHECK_LT(cache_ratio, 1.) << "object-cache path no longer accepts cache_max_block_count as a block count"`
    (InternLM/lmdeploy@v0.15.0:src/turbomind/turbomind.cc, commit de8b40a48)."""
    if not release:
        return None
    since_041 = from_release("0.4.1", release)
    if engine == "pytorch":
        return True if since_041 else None  # 0.3.0-0.4.0 took it as a share above 1: not modelled
    turbomind = bool(since_041 and not from_release("0.10.0", release) or from_release("0.15.0", release))
    if engine == "turbomind":
        return turbomind
    return True if turbomind and since_041 else None  # 0.10.0-0.14.x: TurboMind reads blocks, PyTorch refuses
