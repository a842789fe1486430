"""SGLang's automatic mem_fraction_static for a vision-language model, and its post-capture KV sizing (an opt-in
of 0.5.21-0.5.23): two changes to the fraction mem_sglang.auto_fraction works out, each read in the wheels.

A multimodal model keeps less for weights and KV (`adjust_mem_fraction_for_vlm`, sglang-0.5.3 wheel:
sglang/srt/server_args.py:680-683, 3105-3140; sglang-0.5.23 wheel: sglang/srt/arg_groups/memory_hook.py:281-337,
417-462):

    mem_fraction_static x 0.95 x clamp(1 - 0.1 x (ratio - 1), 0.8, 1.05),
    ratio = vision layers x vision hidden^2 / (24 x 1024^2)   (ViT-L/14's: SGLang's "weight params count")

The rule came with sgl-project/sglang#6881 (merged 2025-06-05; a fixed x 0.9 before it), so releases before 0.5.3,
not read for it here, are estimated with it too. SGLang reads the layers and width off the HF config object
(`num_hidden_layers`, 24 when absent; `hidden_size`, 1024), and applies it only to a model its ModelConfig calls
multimodal (an architecture in its list; Gemma-3 and Llama-4 only with --enable-multimodal: sglang/srt/configs/
model_config.py:690-705, 820-828), not under --language-only / --language-model-only, and from 0.5.21 (at the
latest) not to a decode role. The catalog keeps
the tower's parameter count, not its layers and width, so the ratio is estimated as the count over ViT-L/14's
blocks (24 x 12 x 1024^2: attention 4h^2 and an MLP of 4h, 8h^2), and whether SGLang calls the model multimodal
is not known: the reduction lowers the point, and the band's top is the fraction without it.
"""
from __future__ import annotations

from typing import Any, Mapping, Optional, Tuple

from ctxlint.versions import parse_version

_VIT_L = 24 * 12 * 1024 ** 2  # ViT-L/14's block parameters, SGLang's baseline tower (24 layers, width 1024)
# sglang-0.5.21 and 0.5.23 wheels: `is_vlm = ... and cfg.disaggregation_mode != "decode"` (memory_hook.py:276-281,
# 283-288); 0.5.3 reduced every role (server_args.py:680-683). The release between that added it is not known.
_DECODE_KEPT = parse_version("0.5.21")
# SGLANG_ENABLE_POST_CAPTURE_KV_SIZING (EnvBool, default False: sglang-0.5.21..0.5.23 wheels, sglang/srt/
# environ.py:590/589/640) is read in 0.5.21-0.5.23; releases before 0.5.21 were not read for it.
_POST_CAPTURE = parse_version("0.5.21")
_TRUE = ("true", "1", "yes", "y")  # EnvBool.parse (sglang/srt/environ.py:143-150)


def _on(settings: Mapping[str, Any], key: str) -> bool:
    value = settings.get(key)
    return value is True or str(value).lower() in _TRUE


# Classes SGLang serves as text unless --enable-multimodal (`mm_disabled_models`: sglang-0.5.3 wheel: sglang/srt/
# configs/model_config.py:123-134; sglang-0.5.23 wheel: model_config.py:690-705, which adds Inkling), so no VLM
# reduction for them; the catalog keeps a model's (text part's) model_type, not its classes.
_TEXT_BY_DEFAULT = ("Gemma3ForConditionalGeneration", "Llama4ForConditionalGeneration",
                    "Step3VLForConditionalGeneration", "InklingForConditionalGeneration")
_TEXT_BY_DEFAULT_TYPES = ("gemma3", "llama4", "step3_vl")
# A vision config naming neither num_hidden_layers nor hidden_size: SGLang's getattr defaults (24, 1024) are ViT-L/14's
# own, so the ratio is 1 whatever the tower weighs. Gemma 4 Unified (the 12B): its vision_config is an embedder's
# (transformers==5.10.1: transformers/models/gemma4_unified/configuration_gemma4_unified.py Gemma4UnifiedVisionConfig
# defines neither key), and SGLang calls it multimodal, not text by default (sglang==0.5.13:
# sglang/srt/configs/model_config.py multimodal_model_archs, mm_disabled_models; server_args.py
# adjust_mem_fraction_for_vlm).
_VIT_L_DEFAULTS = ("Gemma4UnifiedForConditionalGeneration",)
_VIT_L_DEFAULTS_TYPES = ("gemma4_unified",)


def vision_tower(arch: Any, settings: Mapping[str, Any]) -> Optional[float]:
    """The vision tower's parameters (billions) when SGLang may serve the model as multimodal, else None."""
    params = arch.vision_params_b
    if not params or _on(settings, "enable_multimodal"):
        return params or None
    if arch.architectures:
        return None if arch.architectures[0] in _TEXT_BY_DEFAULT else params
    return None if str(arch.model_type or "").startswith(_TEXT_BY_DEFAULT_TYPES) else params


def vision_ratio(arch: Any) -> Optional[float]:
    """SGLang's complexity ratio for `arch`'s vision config where it does not follow from the tower's size (1.0:
    the config names neither its layers nor its width), else None (estimated from the parameters)."""
    if arch.architectures:
        return 1.0 if arch.architectures[0] in _VIT_L_DEFAULTS else None
    return 1.0 if str(arch.model_type or "").startswith(_VIT_L_DEFAULTS_TYPES) else None


def vlm_factor(vision_params_b: Optional[float], settings: Mapping[str, Any],
               version: Optional[str], ratio: Optional[float] = None) -> Optional[Tuple[float, str]]:
    """(factor, how) the point of the automatic fraction is multiplied by for a model with a vision tower, or
    None when SGLang does not reduce it (no tower, --language-only, a decode role from 0.5.21); `ratio`: the
    complexity ratio when vision_ratio knows it."""
    if not vision_params_b or vision_params_b <= 0:
        return None
    if _on(settings, "language_only") or _on(settings, "language_model_only"):
        return None
    v = parse_version(version) if version else None
    if settings.get("disaggregation_mode") == "decode" and v is not None and v >= _DECODE_KEPT:
        return None
    known = ratio is not None
    ratio = ratio if known else vision_params_b * 1e9 / _VIT_L
    factor = 0.95 * max(0.8, min(1.05, 1 - 0.1 * (ratio - 1)))
    why = ("its vision config names no layers nor width, so SGLang takes ViT-L/14's 24 x 1024" if known else
           f"its {vision_params_b:g}B parameters / ViT-L/14's 0.302B")
    return factor, (f"x {factor:.3f} for the vision tower (SGLang's VLM reduction 0.95 x clamp(1 - 0.1 x "
                    f"({ratio:.2f} - 1), 0.8, 1.05), {ratio:.2f} = {why}; the band's top leaves it out: SGLang "
                    f"reduces only a model it serves as multimodal)")


# A multimodal model's KV budget also leaves out what it allocates after the pool is sized: SGLANG_VLM_CACHE_SIZE_MB
# (EnvInt 100) of embedding cache, + SGLANG_MM_FEATURE_CACHE_MB (1024) under --mm-feature-transport cuda_ipc or
# cuda_vmm (`mm_runtime_reservation_gb`, sglang-0.5.21 wheel: sglang/srt/mem_cache/kv_cache_configurator.py:154-171,
# 2204; 0.5.23: 202-219, 3034-3038); `rest_memory = available - slack - mm_reservation`. Releases before 0.5.21 were
# not read for it.
_MM_RESERVE = parse_version("0.5.21")


def _mib(settings: Mapping[str, Any], key: str, default: int) -> int:
    try:
        value = int(str(settings.get(key, default)).strip())
    except ValueError:
        return default  # SGLang refuses it at start; the default keeps the estimate going
    return max(0, value)


def mm_reserve(vision_params_b: Optional[float], settings: Mapping[str, Any],
               version: Optional[str]) -> Optional[Tuple[float, str]]:
    """(bytes, how) a multimodal model's KV budget leaves for its post-sizing caches, or None."""
    if not vision_params_b or _on(settings, "language_only") or _on(settings, "language_model_only"):
        return None
    v = parse_version(version) if version else None
    if v is not None and v < _MM_RESERVE:
        return None
    mib = _mib(settings, "SGLANG_VLM_CACHE_SIZE_MB", 100)
    how = f"multimodal embedding cache {mib} MiB"
    if settings.get("mm_feature_transport") in ("cuda_ipc", "cuda_vmm"):
        feature = _mib(settings, "SGLANG_MM_FEATURE_CACHE_MB", 1024)
        mib, how = mib + feature, f"{how} + feature transport pool {feature} MiB"
    return (mib * 1024 * 1024, how) if mib else None


def post_capture_planned(settings: Mapping[str, Any], version: Optional[str], mla: bool) -> bool:
    """Whether SGLang may size the pool after capturing its CUDA graphs (`post_capture_kv_sizing_planned`,
    sglang-0.5.23 wheel: sglang/srt/arg_groups/overrides.py:1791-1861): the env switch, no MLA backend, no memory
    saver or KV-cache sharding, decode graphs captured, chunked prefill on and captured up to its size (the prefill
    graphs' max is the chunk by default). Settings ctxlint does not read (DeepSeek-V4, a Mooncake pool) make SGLang
    say no, which only narrows the band again."""
    if not _on(settings, "SGLANG_ENABLE_POST_CAPTURE_KV_SIZING") or mla:
        return False
    v = parse_version(version) if version else None
    if v is not None and v < _POST_CAPTURE:
        return False
    if _on(settings, "enable_memory_saver") or _on(settings, "enable_kv_cache_sharding") \
            or settings.get("disable_cuda_graph") is True:
        return False
    cps = settings.get("chunked_prefill_size")
    return not (isinstance(cps, int) and not isinstance(cps, bool) and cps <= 0)


def post_capture_fraction(gpu_mib: float, tp: int, pp: int) -> Tuple[float, str]:
    """The fraction SGLang sets when it sizes the pool after capture: it skips the graph and activation reserve and
    keeps 1536 MiB + tp x pp / 8 x 1024, no 10 GiB floor (memory_hook.py:291-295); after capture the pool is what
    the memory then free holds, less the same headroom, capped at the pool before (sglang-0.5.23 wheel: sglang/srt/
    model_executor/model_runner_components/kv_pool_runtime.py:59-150). The graphs' own memory is not known before
    they run, so this is the band's top: the pool if they took none."""
    reserved = 1536 + tp * pp / 8 * 1024
    mfs = round((gpu_mib - reserved) / gpu_mib, 3)
    return mfs, (f"band top {mfs}: SGLANG_ENABLE_POST_CAPTURE_KV_SIZING sizes the pool after the CUDA graphs are "
                 f"captured, round(({gpu_mib:.0f} - {reserved:.0f}) / {gpu_mib:.0f}, 3) less what the graphs take, "
                 f"which is not known before they run")
