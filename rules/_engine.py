"""Helpers for the CTX3xx rules: a role's engine settings, read as the engine reads them.

engine_args hold the engine's own names (flags_<engine>.py canonical names). Values
from command lines arrive converted; values from a native manifest arrive raw, so
every read goes through ctxlint.engines.values with the engine's own rules.
Environment switches (VLLM_ALLOW_LONG_MAX_MODEL_LEN, PREFILL_CHUNKING, ...) are
looked up under their variable name.
"""
from __future__ import annotations

from typing import Any, Optional, Tuple

from ctxlint.adapters.engine_args import engine_label
from ctxlint.engines.specs import flag_gone
from ctxlint.engines.values import as_bool, as_int, as_json, normalize_engine
from ctxlint.model import Deployment, Role, Val, fmt
from ctxlint.physics.context import llamacpp_rope


_IDS: dict = {}  # an engine's written name -> its id: ~13 rules ask of each deployment, a tree names few engines
_UNSEEN = object()


def engine_id(dep: Deployment) -> Optional[str]:
    """"vllm", "sglang", "tgi", "trtllm", "llamacpp", "lmdeploy", or None."""
    name = dep.engine.name
    if name is None:
        return None
    written = name.value
    if type(written) is not str:  # a str's answer is kept by its text; anything else is asked afresh
        return normalize_engine(written)
    found = _IDS.get(written, _UNSEEN)
    if found is _UNSEEN:
        found = normalize_engine(written)
        if len(_IDS) < 1024:  # bounded: any file may name any engine
            _IDS[written] = found
    return found


def label(engine: str) -> str:
    return engine_label(engine)


def first_arg(role: Role, *names: str) -> Optional[Tuple[str, Val[Any]]]:
    """The first of several spellings of a setting that the role sets, with its name."""
    for name in names:
        val = role.arg(name)
        if val is not None:
            return name, val
    return None


def int_arg(engine: Optional[str], role: Role, *names: str) -> Optional[Tuple[int, Val[Any], str]]:
    """An integer setting as the engine reads it: (value, where written, name), or None."""
    for name in names:
        val = role.arg(name)
        if val is None:
            continue
        value = as_int(engine, name.lower(), val.value)  # TGI's MAX_INPUT_TOKENS is max_input_tokens
        if value is not None:
            return value, val, name
    return None


def bool_arg(role: Role, *names: str) -> Optional[Tuple[bool, Val[Any], str]]:
    for name in names:
        val = role.arg(name)
        if val is not None and as_bool(val.value) is not None:
            return as_bool(val.value), val, name
    return None


def json_arg(role: Role, name: str) -> Any:
    val = role.arg(name)
    return None if val is None else as_json(val.value)


def shown(val: Val[Any], value: Any) -> str:
    """The value as written, with the engine's reading when they differ."""
    raw = val.raw or (val.value if isinstance(val.value, str) else "")
    if raw and str(raw) != str(value):
        return f"{raw} (= {fmt(value)})"
    return fmt(value)


# The environment switch that lets each engine start with a context above the model's
# derived length (engines.md §1.2a, §2.2a); llama.cpp does it with --override-kv.
LONG_CONTEXT_OVERRIDES = {"vllm": "VLLM_ALLOW_LONG_MAX_MODEL_LEN",
                          "sglang": "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN"}
# TGI reads max_input_tokens, its deprecated spelling, or their environment variables.
TGI_INPUT_NAMES = ("max_input_tokens", "MAX_INPUT_TOKENS", "max_input_length", "MAX_INPUT_LENGTH")
CONTEXT_SETTING = {"vllm": "max_model_len", "sglang": "context_length", "llamacpp": "ctx_size",
                   "tgi": "max_total_tokens", "trtllm": "max_seq_len", "lmdeploy": "session_len"}


def long_context_override(engine: Optional[str], role: Role) -> Optional[Tuple[str, Val[Any]]]:
    """The override switch a role turns on, as (name, value), or None."""
    if engine in LONG_CONTEXT_OVERRIDES:
        found = bool_arg(role, LONG_CONTEXT_OVERRIDES[engine])
        return (found[2], found[1]) if found is not None and found[0] else None
    if engine == "llamacpp":
        val = role.arg("override_kv")
        if val is not None and "context_length" in str(val.value):
            return "override_kv", val
    return None


def engine_context(engine: Optional[str], role: Role) -> Optional[Tuple[int, Val[Any], str]]:
    """The context length the engine is told: its own setting, else the normalized one."""
    if engine in CONTEXT_SETTING:
        found = int_arg(engine, role, CONTEXT_SETTING[engine])
        if found is not None and found[0] > 0:
            return found
    if role.context_length is not None:
        return role.context_length.value, role.context_length, "context_length"
    return None


# How each engine is told the RoPE scaling a long context needs (F: factor, N: trained positions).
ROPE_HINT = {"vllm": "--hf-overrides '{\"rope_scaling\": {\"rope_type\": \"yarn\", \"factor\": F, "
                      "\"original_max_position_embeddings\": N}}'",
              "sglang": "--json-model-override-args '{\"rope_scaling\": {\"rope_type\": \"yarn\", \"factor\": F, "
                        "\"original_max_position_embeddings\": N}}'",
              "llamacpp": "--rope-scaling yarn --rope-scale F --yarn-orig-ctx N"}


def position_limit(dep: Deployment, engine: Optional[str],
                   role: Role) -> Optional[Tuple[int, float, int, Optional[str]]]:
    """Positions a role may use: (limit, factor, trained base, where the RoPE scaling is set or None).

    RoPE scaling on the engine's command line wins over the model's own factor."""
    trained = dep.model.max_position_embeddings
    if trained is None:
        return None
    rope = engine_rope(engine, role, dep.engine.version.value if dep.engine.version is not None else None)
    if rope is not None:
        factor, base, where = rope[0], rope[1] or trained.value, rope[2]
    else:
        factor = dep.model.rope_scaling_factor.value if dep.model.rope_scaling_factor is not None else 1.0
        base, where = trained.value, None
    return int(base * factor), factor, base, where


def sglang_limit(dep: Deployment, role: Role) -> Optional[Tuple[int, str, str]]:
    """The length SGLang derives for this role, above which it refuses to start (physics.context_sglang.sglang_derived):
    the model's own position keys (the catalog's, the deployment's max_position_embeddings over them) and RoPE
    scaling, as --json-model-override-args updates them; None without the model's positions. A model factor
    stated without its original length is applied, so no refusal is claimed where SGLang may start."""
    trained = dep.model.max_position_embeddings
    if trained is None:
        return None
    from ctxlint.physics.context_sglang import sglang_derived  # only a SGLang role past its positions pays for it

    arch = dep.arch
    keys = dict(getattr(arch, "position_keys", None) or ())
    keys["max_position_embeddings"] = trained.value
    rope = None
    if arch is not None and arch.rope_scaling_factor:
        rope = (arch.rope_scaling_type, arch.rope_scaling_factor, arch.rope_original_max_position_embeddings)
    elif dep.model.rope_scaling_factor is not None:
        rope = (None, dep.model.rope_scaling_factor.value, None)
    return sglang_derived(tuple(keys.items()), rope, {k: v.value for k, v in role.engine_args})


def vllm_limit(dep: Deployment, role: Role) -> Optional[Tuple[int, str, str]]:
    """The max_model_len vLLM derives for this role, with why and the config key it read (physics.context.
    vllm_derived: the deployed release's rule, the largest of them when the release is not known), above which it
    refuses to start without VLLM_ALLOW_LONG_MAX_MODEL_LEN; None without the model's positions."""
    trained = dep.model.max_position_embeddings
    if trained is None:
        return None
    from ctxlint.physics.context import vllm_derived  # only a vLLM role within its RoPE reach pays for it

    factor = dep.model.rope_scaling_factor.value if dep.model.rope_scaling_factor is not None else None
    version = dep.engine.version.value if dep.engine.version is not None else None
    return vllm_derived(dep.arch, trained.value, factor, {k: v.value for k, v in role.engine_args},
                        str(version) if version is not None else None)


def vllm_stated_length(dep: Deployment, role: Role) -> Optional[int]:
    """The model's `model_max_length` as vLLM reads it (--hf-overrides applied), None without one: vLLM accepts a
    user's --max-model-len above its derived length up to it in every release since vllm-project/vllm#3727
    (2024-03-29, vllm/config.py _get_and_verify_max_len: "allow this override when it's smaller")."""
    if dep.arch is None:
        return None
    from ctxlint.physics.context import _keys

    value = dict(_keys(dep.arch, {k: v.value for k, v in role.engine_args}, "vllm")).get("model_max_length")
    return value if isinstance(value, int) and value > 0 else None


def vllm_yarn_keeps_length(dep: Deployment) -> bool:
    """Whether the deployed vLLM may be one (>= 0.30) whose limit a YaRN rope_scaling in --hf-overrides does not
    raise (physics.context._vllm_rule): then only max_position_embeddings in the same override does."""
    from ctxlint.versions import parse_version

    version = dep.engine.version.value if dep.engine.version is not None else None
    v = parse_version(str(version)) if version is not None else None
    return v is None or v >= parse_version("0.30.0")


def engine_rope(engine: Optional[str], role: Role,
                release: Optional[str] = None) -> Optional[Tuple[float, Optional[int], str]]:
    """RoPE scaling set on the engine's command line: (factor, original positions or None, where); a flag the
    engine release no longer has (vLLM's --rope-scaling from 0.11.1) sets nothing there."""
    scaling = None
    where = ""
    if engine in ("vllm", "lmdeploy"):
        overrides = json_arg(role, "hf_overrides")
        if isinstance(overrides, dict):
            scaling = overrides.get("rope_scaling") or overrides.get("rope_parameters")
            where = "hf_overrides"
        if scaling is None and engine == "vllm" and role.arg("rope_scaling") is not None \
                and not flag_gone(engine, "rope_scaling", release):
            scaling, where = json_arg(role, "rope_scaling"), "rope_scaling"
        if scaling is None and engine == "lmdeploy":
            found = role.arg("rope_scaling_factor")
            if found is not None and isinstance(found.value, (int, float)) and not isinstance(found.value, bool):
                return float(found.value), None, "rope_scaling_factor"
    elif engine == "sglang":
        overrides = json_arg(role, "json_model_override_args")
        if isinstance(overrides, dict):
            scaling, where = overrides.get("rope_scaling"), "json_model_override_args"
    elif engine == "llamacpp":
        values = [role.arg(name) for name in ("rope_scaling", "rope_scale", "rope_freq_scale")]
        found = llamacpp_rope(*(v.value if v is not None else None for v in values))
        if found is None:
            return None
        orig = int_arg(engine, role, "yarn_orig_ctx")
        return found[0], orig[0] if orig else None, found[1]
    elif engine == "tgi":
        kind, factor = role.arg("rope_scaling"), role.arg("rope_factor")
        if kind is not None and str(kind.value) != "none" and factor is not None:
            try:
                return float(factor.value), None, "rope_scaling"
            except (TypeError, ValueError):
                return None
        return None
    if isinstance(scaling, dict) and isinstance(scaling.get("factor"), (int, float)):
        orig = scaling.get("original_max_position_embeddings")
        return float(scaling["factor"]), orig if isinstance(orig, int) else None, where
    return None
