"""SGLang's derived context length (physics.context.default_context; CTX109's refusal above it, rules/_engine.py)."""
from __future__ import annotations

from typing import Any, Mapping, Optional, Tuple

from .context import _SGLANG_KEYS, _json, _overridden
from .models import ModelArch


def sglang_default(arch: ModelArch, settings: Mapping[str, Any]) -> Tuple[int, str]:
    """SGLang's context length for the model when none is set (physics.context.default_context)."""
    keys = arch.position_keys or ((("max_position_embeddings", arch.max_position_embeddings),)
                                  if arch.max_position_embeddings else ())
    rope = (arch.rope_scaling_type, arch.rope_scaling_factor, arch.rope_original_max_position_embeddings) \
        if arch.rope_scaling_factor else None
    return sglang_derived(keys, rope, settings)[:2]


def sglang_derived(keys: Tuple[Tuple[str, int], ...], model_rope: Optional[Tuple[Optional[str], float, Any]],
                   settings: Mapping[str, Any]) -> Tuple[int, str, str]:
    """SGLang's derived context length (tokens, why, the key it read) from the config's position keys and its
    own RoPE scaling (type, factor, original positions), both as `--json-model-override-args` updates them.
    get_config ends with `config.update(model_override_args)`, so a rope_scaling there replaces the model's;
    get_context_length then takes the first key in CONTEXT_LENGTH_KEYS times the factor, with "if
    'original_max_position_embeddings' in rope_scaling: rope_scaling_factor = 1" (also for rope_type llama3)
    (sgl-project/sglang@2aa2e2d0ffda0a44ed9a022fdd9d5d042f365eee:python/sglang/srt/utils/hf_transformers_utils.py).
    So a YaRN override that states its original length leaves the length at the config's key (Qwen3's model card
    form); only that key in the same override (or SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN) raises it."""
    merged = dict(_overridden(keys, settings, "sglang"))
    name = next((k for k in _SGLANG_KEYS if k in merged), None)
    if name is None:
        return 2048, "SGLang default 2048 (the config has no position key)", ""
    derived, why = merged[name], f"{name} {merged[name]:,}"
    overrides = _json(settings.get("json_model_override_args"))
    scaling = overrides.get("rope_scaling") if isinstance(overrides, dict) else None
    if isinstance(scaling, dict):  # the override's, as SGLang reads it: presence of the key, factor 1 when absent
        factor = scaling.get("factor", 1)
        factor = float(factor) if isinstance(factor, (int, float)) and not isinstance(factor, bool) else None
        rope = (scaling.get("rope_type"), factor, "original_max_position_embeddings" in scaling)
    else:
        rope = model_rope
    if rope is not None and rope[1] and rope[0] != "llama3" and not rope[2]:
        derived = int(derived * rope[1])
        why += f" x {rope[0] or 'rope'} factor {rope[1]:g}"
    elif rope is not None and rope[1] and rope[1] != 1 and isinstance(scaling, dict):
        why += f" (the x{rope[1]:g} RoPE scaling in --json-model-override-args is not applied: it states " + \
            ("rope_type llama3)" if rope[0] == "llama3" else "original_max_position_embeddings)")
    return derived, f"SGLang derives {derived:,} from the model's {why}", name
