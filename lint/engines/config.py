"""Merge a config file the caller has read (`--config`, `--extra_llm_api_options`)
into an Invocation, with each engine's precedence.

vLLM and SGLang: command line > config file > defaults
(vllm/utils/argparse_utils.py `_pull_args_from_config`). TRT-LLM: the
LLM-API YAML overrides the CLI (engines.md §4.1), so an overridden flag is
reported as a duplicate pointing at the flag the user typed.
"""
from __future__ import annotations

from typing import Any, Mapping, Optional, Tuple

from ..records import replace
from .flagspec import EngineSpec, FlagSpec
from .kv_pairs import refused_since
from .flag_values import convert
from .int_eras import era_problem
from .parse import model_keys
from .result import Invocation, Problem, Setting
from .specs import spec_for


def _flatten(data: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in data.items():
        key = f"{prefix}{k}"
        if isinstance(v, Mapping) and v:
            out.update(_flatten(v, key + "."))
        out[key] = v
    return out


def _trtllm_aliases() -> Mapping[str, str]:
    """TensorRT-LLM's config-key aliases, its flag table imported on first use (and only then)."""
    global _TRTLLM_ALIASES
    if _TRTLLM_ALIASES is None:
        from .flags_trtllm import CONFIG_KEY_ALIASES as _TRTLLM_ALIASES
    return _TRTLLM_ALIASES


_TRTLLM_ALIASES: Optional[Mapping[str, str]] = None


def config_key(spec: EngineSpec, key: str) -> Tuple[Optional[FlagSpec], str]:
    """The flag a config-file key stands for (snake or kebab spelling, TRT-LLM's aliases),
    and the setting name it is kept under."""
    aliases = _trtllm_aliases() if spec.engine == "trtllm" else {}
    canon = aliases.get(key, key.replace("-", "_"))
    f = spec.by_name(canon) or spec.find("--" + key)[0]
    return f, (f.name if f is not None else canon)


def apply_config(inv: Invocation, data: Any, source: str = "", by_release: bool = True) -> Invocation:
    """A new Invocation with the config's keys as origin="config-file" settings.

    Keys that match a flag (snake or kebab spelling) become that flag's
    canonical setting; other keys, nested ones flattened with dots
    (`kv_cache_config.max_tokens`), are kept under their own dotted name.
    by_release: a value earlier releases' CLI reads otherwise is reported for them (int_eras.py); off for settings
    an adapter hands over, which no CLI of the engine reads.
    """
    if not isinstance(data, Mapping):
        err = Problem(f"config file {source!r} is not a mapping", None, None)
        return replace(inv, errors=inv.errors + (err,))
    spec = spec_for(inv.engine, inv.launcher, inv.subcommand)
    settings = dict(inv.settings)
    dups, errors = list(inv.duplicates), list(inv.errors)
    if spec.exact_config_keys:  # TRL: only a field's own name is a default (flags_trl.config_keys)
        from .flags_trl import config_keys
        data, refused = config_keys(spec, data, source)
        errors.extend(refused)
    for key, value in _flatten(data).items():
        if not isinstance(key, str):
            continue
        f, name = config_key(spec, key)
        if f is None and name in spec.foreign_keys:  # another tool's argument: the engine's parser exits on it
            errors.append(Problem(f"{source or 'config'}: {key}: unrecognized arguments: --{key} (an argument of "
                                  f"{spec.engine}'s benchmark scripts, not of the server, which reads every key of "
                                  "its config file as a flag: remove it)", None, None, flag=name))
        if f is not None and isinstance(value, str) and f.kind in ("int", "float", "bool", "json"):
            value_text = value
            value, err, _ = convert(spec, f, value)
            if err:
                from .json_suffixes import refused_until  # only a refused value pays for it
                errors.append(Problem(f"{source or 'config'}: {key}: {err}", None, None, flag=name,
                                      since=refused_since(f, value_text), until=refused_until(f, value_text)))
            elif f.int_eras and by_release:  # read otherwise by earlier releases (int_eras.py)
                old = era_problem(f, f"{source or 'config'}: {key}", value_text)
                errors.extend((old,) if old is not None else ())
        prev = settings.get(name)
        if prev is not None and prev.origin == "flag":
            if not spec.config_overrides_cli:
                continue  # the command line wins
            dups.append(Problem(f"{prev.flag_spelling} is overridden by {key} in {source or 'the config file'}",
                                prev.flag_index, prev.flag_span, prev.flag_item, name))
        settings[name] = Setting(value, str(value), None, None, "config-file", key, note=source)
    model = inv.model
    if model is None and not spec.config_overrides_cli:
        # vLLM's `vllm serve --config c.yaml` takes `model:` from the file when the command names none
        # (vllm/utils/argparse_utils.py `_pull_args_from_config`: model_in_config); SGLang's `--config` takes
        # `model-path:` (sgl-project/sglang docs/advanced_features/server_arguments.md)
        model = next((settings[k] for k in model_keys(spec.engine) if k in settings and settings[k].origin == "config-file"), None)
    return replace(inv, model=model, settings=settings, duplicates=tuple(dups), errors=tuple(errors))
