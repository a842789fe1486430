"""The context length an engine uses when the deployment sets none (engines.md §0, §1.2a,
§2.2a, §3.1, §4.2, §5.1, §8.2).

Each engine derives its own default from the model's config.json, by its own rule:
- vLLM: the smallest of the position keys present (2048 when none is; a `model_max_length` in
  the config overrides it from 0.8.3), times the RoPE factor unless the type is `su`,
  `longrope` or `llama3` (yarn: `original_max_position_embeddings` x factor up to 0.29, the
  config's value as is from 0.30; longrope: the original length from 0.12; Gemma-3 skipped);
  `--disable-sliding-window` caps it at the window. vLLM refuses to start when one request of
  that length does not fit in the KV pool.
- SGLang: the first key found in its order (`max_sequence_length`, `seq_length`,
  `max_seq_len`, `model_max_length`, `max_position_embeddings`), times the factor unless
  `original_max_position_embeddings` is given or the type is `llama3`. It starts anyway and
  lowers the per-request limit to the pool, without a word at startup.
- TGI: `max_total_tokens` = 2048 before 2.0; min(`max_position_embeddings`, 4096) in 2.0-2.4.0;
  with prefill chunking (on from 3.0.0, PREFILL_CHUNKING=1 from 2.4.1) min(KV capacity,
  `max_position_embeddings`); without it, from 2.4.1, the warmup batch: max_batch_prefill_tokens.
- TensorRT-LLM: `max_seq_len` from the model's `max_position_embeddings` (x factor); the PyTorch
  backend shrinks it to the pool with a warning ("Adjusted max_seq_len").
- llama.cpp: `-c 0` (the default) is the GGUF's training context; `--fit` (on by default)
  lowers an unset context to what memory holds, down to 4096.
- LMDeploy: `session_len` from the config, then silently min() with the KV capacity.
`follows_pool` says the engine lowers its default to the pool itself: a pool below the
model's length is then a smaller served context, not a failed start.
"""
from __future__ import annotations

from typing import Any, Mapping, Optional, Tuple

from ctxlint.versions import parse_version

from ..records import record
from .models import ModelArch

_VLLM_NO_FACTOR = ("su", "longrope", "llama3")
_VLLM_YARN = ("yarn", "deepseek_yarn", "deepseek_llama_scaling")  # no factor from 0.30 (_vllm_rule)
_SGLANG_KEYS = ("max_sequence_length", "seq_length", "max_seq_len", "model_max_length", "max_position_embeddings")


@record(frozen=True)
class DefaultContext:
    tokens: int
    why: str  # "vLLM default: max_position_embeddings 131,072 of the model"
    follows_pool: bool  # the engine lowers its default to the KV pool by itself
    setting: str  # the engine's flag that would set it, for advice
    # (low, high) when lowered to an estimated pool (llama.cpp's --fit cut, a pool with a band): the engine's
    # default is then known only within it, so no rule holds a promise against `tokens` as a definite limit
    band: Optional[Tuple[int, int]] = None


def _json(value: Any) -> Any:
    global _as_json
    if _as_json is None:  # bound on first use: the engines package is not needed to import this one
        from ctxlint.engines.values import as_json as _as_json
    return _as_json(value)


_as_json = None


def _gone(name: str, release: Optional[str]) -> bool:
    """A vLLM flag the release dropped (engines.specs.flag_gone), imported on first use as _json's."""
    from ctxlint.engines.specs import flag_gone

    return flag_gone("vllm", name, release)


def rope_override(engine: Optional[str], settings: Mapping[str, Any],
                  release: Optional[str] = None) -> Optional[Tuple[float, Optional[int], str]]:
    """RoPE scaling set on the engine's command line: (factor, original positions or None, setting); vLLM's
    --rope-scaling sets nothing at a release that dropped it (it refuses to start: CTX301)."""
    scaling, where = None, ""
    if engine in ("vllm", "lmdeploy"):
        overrides = _json(settings.get("hf_overrides"))
        if isinstance(overrides, dict):
            scaling = overrides.get("rope_scaling") or overrides.get("rope_parameters")
            where = "hf_overrides"
        if scaling is None and engine == "vllm" and "rope_scaling" in settings and not _gone("rope_scaling", release):
            scaling, where = _json(settings.get("rope_scaling")), "rope_scaling"
        if scaling is None and engine == "lmdeploy":
            factor = settings.get("rope_scaling_factor")
            if isinstance(factor, (int, float)) and not isinstance(factor, bool):
                return float(factor), None, "rope_scaling_factor"
    elif engine == "sglang":
        overrides = _json(settings.get("json_model_override_args"))
        if isinstance(overrides, dict):
            scaling, where = overrides.get("rope_scaling"), "json_model_override_args"
    elif engine == "llamacpp":
        found = llamacpp_rope(settings.get("rope_scaling"), settings.get("rope_scale"), settings.get("rope_freq_scale"))
        if found is None:
            return None
        orig = settings.get("yarn_orig_ctx")
        return found[0], orig if isinstance(orig, int) and not isinstance(orig, bool) else None, found[1]
    elif engine == "tgi":
        kind, factor = settings.get("rope_scaling"), settings.get("rope_factor")
        if kind is not None and str(kind) != "none" and factor is not None:
            try:
                return float(factor), None, "rope_scaling"
            except (TypeError, ValueError):
                return None
        return None
    if isinstance(scaling, dict) and isinstance(scaling.get("factor"), (int, float)):
        orig = scaling.get("original_max_position_embeddings")
        kind = scaling.get("rope_type") or scaling.get("type")
        return float(scaling["factor"]), orig if isinstance(orig, int) else None, f"{where} ({kind or 'rope'})"
    return None


def llamacpp_rope(kind: Any, scale: Any, freq_scale: Any) -> Optional[Tuple[float, str]]:
    """llama.cpp's RoPE stretch from its flags: (factor, flag) or None. `--rope-scale N` sets rope_freq_scale = 1/N
    and `--rope-freq-scale X` sets it to X (common/arg.cpp); without `--rope-scaling` the type is the GGUF's own,
    linear when it names none, and only `none` turns the scale off (src/llama-context.cpp: rope_scaling_type
    UNSPECIFIED -> hparams.rope_scaling_type_train; NONE -> rope_freq_scale = 1). So either flag alone stretches
    the positions, by N or 1/X; `--rope-scaling` without either keeps the GGUF's scale, which is not known here."""
    if kind is not None and str(kind).strip().lower() == "none":
        return None
    for value, flag, invert in ((scale, "rope_scale", False), (freq_scale, "rope_freq_scale", True)):
        if isinstance(value, bool) or value is None:
            continue
        try:
            number = float(value)
        except (TypeError, ValueError):
            continue
        if number > 0 and number != float("inf"):
            return (1.0 / number if invert else number), flag
    return None


_POSITION_KEYS = ("max_position_embeddings", "max_sequence_length", "seq_length", "max_seq_len", "model_max_length")
_OVERRIDES = {"vllm": "hf_overrides", "sglang": "json_model_override_args"}


def _keys(arch: ModelArch, settings: Optional[Mapping[str, Any]] = None,
          engine: str = "") -> Tuple[Tuple[str, int], ...]:
    """The config's position keys, with the ones the command line overrides (vLLM's `--hf-overrides`, SGLang's
    `--json-model-override-args` change the config before either derives its limit)."""
    keys = arch.position_keys or ((("max_position_embeddings", arch.max_position_embeddings),)
                                  if arch.max_position_embeddings else ())
    return _overridden(keys, settings, engine)


def _overridden(keys: Tuple[Tuple[str, int], ...], settings: Optional[Mapping[str, Any]],
                engine: str) -> Tuple[Tuple[str, int], ...]:
    overrides = _json(settings.get(_OVERRIDES.get(engine, ""))) if settings else None
    if isinstance(overrides, dict) and any(k in overrides for k in _POSITION_KEYS):
        merged = dict(keys)
        for k in _POSITION_KEYS:
            v = overrides.get(k)
            if isinstance(v, int) and not isinstance(v, bool) and v > 0:
                merged[k] = v
        return tuple(merged.items())
    return keys


def _rope(engine: str, arch: ModelArch, settings: Mapping[str, Any], release: Optional[str] = None):
    """(type, factor, original, where) of the RoPE scaling in force: the command line's, else the model's."""
    override = rope_override(engine, settings, release)
    if override is not None:
        factor, orig, where = override
        kind = where.split("(")[-1].rstrip(")") if "(" in where else None
        return kind, factor, orig, where.split(" (")[0]
    if arch.rope_scaling_factor:
        return arch.rope_scaling_type, arch.rope_scaling_factor, arch.rope_original_max_position_embeddings, ""
    return None


def _vllm_rule(arch: ModelArch, settings: Mapping[str, Any], v, release: Optional[str] = None) -> Tuple[int, str]:
    """One release's rule (vllm/config/model.py `_get_and_verify_max_len`, by version; `release`: the one
    deployed, None when not known, as v stands for each release's rule then)."""
    keys = dict(_keys(arch, settings, "vllm"))
    if not keys:
        return 2048, "2048 (the config has no position key)"
    name, derived = min(keys.items(), key=lambda kv: kv[1])
    if "model_max_length" in keys and (v is None or v >= parse_version("0.8.3")):
        name, derived = "model_max_length", keys["model_max_length"]  # Command-R: overrides the minimum
    why = f"{name} {derived:,}"
    rope = _rope("vllm", arch, settings, release)
    # From 0.30 YaRN types take no factor: the length is max_position_embeddings as the config has it
    # (vllm-project/vllm@v0.30.0:vllm/config/model.py _get_and_verify_max_len; up to 0.29 yarn was
    # original_max_position_embeddings x factor), and a rope_scaling in --hf-overrides does not raise it:
    # dict-valued overrides are set after get_config (ModelConfig.__post_init__ -> _apply_dict_overrides), and
    # the rope_scaling setter only replaces rope_parameters (huggingface/transformers@v5.17.0:
    # src/transformers/configuration_utils.py; standardize_rope_params in modeling_rope_utils.py never writes
    # max_position_embeddings, nor at v5.10.4 / v5.25.0). Only a position key in the same override raises it.
    skip = _VLLM_NO_FACTOR + (_VLLM_YARN if v is not None and v >= parse_version("0.30.0") else ())
    if rope is not None and rope[0] == "longrope" and rope[2] and v is not None and v >= parse_version("0.12.0"):
        derived, why = rope[2], f"original_max_position_embeddings {rope[2]:,} (longrope, >= 0.12)"
    elif rope is not None and (rope[0] or "") not in skip and rope[1] and \
            not str(arch.model_type or "").startswith("gemma3"):
        kind, factor, orig, where = rope
        if kind == "yarn" and orig:
            derived, why = int(orig * factor), f"original_max_position_embeddings {orig:,} x yarn factor {factor:g}"
        else:
            derived, why = int(derived * factor), f"{why} x {kind or 'rope'} factor {factor:g}"
        if where:
            why += f" (--{where.replace('_', '-')})"
    elif rope is not None and rope[0] in _VLLM_YARN and rope[1] and rope[1] != 1 and rope[3] and v is not None \
            and v >= parse_version("0.30.0"):  # the command line's YaRN, which a user expects to lengthen it
        why += f" (the x{rope[1]:g} {rope[0]} scaling in --{rope[3].replace('_', '-')} is not applied: from 0.30 " \
            "vLLM takes a YaRN model's length from the config as is)"
    window = arch.sliding_window
    if settings.get("disable_sliding_window") is True and window and window < derived:
        derived, why = window, f"{why}, capped at the sliding window {window:,} (--disable-sliding-window)"
    return derived, why


def _vllm(arch: ModelArch, settings: Mapping[str, Any], version: Optional[str] = None) -> Tuple[int, str]:
    """vLLM's derived max_model_len; a version that is not known takes the largest of the rules
    (yarn was original x factor up to 0.29, the config's own value from 0.30)."""
    v = parse_version(version) if version else None
    if v is not None:
        derived, why = _vllm_rule(arch, settings, v, version)
        return derived, f"vLLM derives {derived:,} from the model's {why}"
    rules = [_vllm_rule(arch, settings, parse_version(x)) for x in ("0.29.0", "0.30.0")]
    derived, why = max(rules)
    unknown = " (version unknown: the largest of its rules)" if len({r[0] for r in rules}) > 1 else ""
    return derived, f"vLLM derives {derived:,} from the model's {why}{unknown}"


def vllm_derived(arch: Optional[ModelArch], positions: int, factor: Optional[float], settings: Mapping[str, Any],
                 version: Optional[str]) -> Tuple[int, str, str]:
    """vLLM's derived max_model_len for a deployment (tokens, why, the config key that sets it, "" when the
    sliding window does): the catalog's model (None: not known) with the deployment's max_position_embeddings
    over its keys, and its RoPE factor when the catalog has none (type not known: applied, as vLLM applies any
    type but its exceptions), by the release's rule (_vllm)."""
    from ..records import replace

    base = arch if arch is not None else ModelArch(name="", num_layers=0, layer_kinds=(), num_kv_heads=0, head_dim=0,
                                                   num_attention_heads=0)
    keys = dict(base.position_keys)
    keys["max_position_embeddings"] = positions
    model = replace(base, position_keys=tuple(keys.items()), max_position_embeddings=positions)
    if not model.rope_scaling_factor and factor and factor != 1:
        model = replace(model, rope_scaling_factor=factor, rope_scaling_type=None)
    tokens, why = _vllm(model, settings, version)
    keys = dict(_keys(model, settings, "vllm"))
    key = "model_max_length" if "model_max_length" in keys else min(keys, key=keys.__getitem__)
    return tokens, why, "" if "(--disable-sliding-window)" in why else key


def default_context(engine: Optional[str], arch: Optional[ModelArch], settings: Mapping[str, Any],
                    version: Optional[str] = None, image: str = "") -> Optional[DefaultContext]:
    """The engine's own context length for this model when none is set (None: not derivable); `image` is
    the container image the version was read from, when it was (TGI's ROCm and Intel builds differ)."""
    if engine == "tgi" and version:  # before 2.0 the launcher's default holds for every model
        v = parse_version(version)
        if v is not None and v < parse_version("2.0.0"):
            return DefaultContext(2048, f"TGI {version} defaults max_total_tokens to 2048", False,
                                  "--max-total-tokens")
    if arch is None or engine is None:
        return None
    if engine == "vllm":
        auto = str(settings.get("max_model_len", "")).strip().lower() in ("auto", "-1")
        tokens, why = _vllm(arch, settings, version)
        if auto:
            return DefaultContext(tokens, why + "; --max-model-len auto lowers it to what the KV pool holds",
                                  True, "--max-model-len")
        return DefaultContext(tokens, why, False, "--max-model-len")
    if engine == "sglang":
        from .context_sglang import sglang_default  # only a SGLang role pays for it
        tokens, why = sglang_default(arch, settings)
        return DefaultContext(tokens, why, False, "--context-length")
    if engine == "tgis":
        from .context_tgi import tgis_default  # only a TGIS role pays for it
        return tgis_default(arch)
    positions = arch.max_position_embeddings
    if not positions:
        return None
    if engine == "tgi":
        from .context_tgi import tgi_default  # only a TGI role pays for it
        return tgi_default(settings, version, image, positions)
    if engine == "trtllm":  # DecoderModelForCausalLM.infer_max_seq_len: x factor except su/longrope/llama3/yarn
        rope = _rope("trtllm", arch, settings)
        tokens = int(positions * rope[1]) if rope and rope[0] not in _VLLM_NO_FACTOR + ("yarn",) and rope[1] \
            else positions
        return DefaultContext(tokens, f"TensorRT-LLM takes max_seq_len {tokens:,} from the model and shrinks it "
                                      "to the KV pool (\"Adjusted max_seq_len\")", True, "--max_seq_len")
    if engine == "llamacpp":
        return DefaultContext(positions, f"llama.cpp -c 0 (default) is the model's training context {positions:,}; "
                                         "--fit lowers it to what memory holds", True, "--ctx-size")
    if engine == "lmdeploy":  # >= 0.5.1: the minimum over the config's keys, no RoPE factor
        keys = dict(_keys(arch))
        tokens = min(keys.values()) if keys else positions
        return DefaultContext(tokens, f"LMDeploy session_len from the model ({tokens:,}), lowered to the KV "
                                      "capacity without a warning", True, "--session-len")
    return None
