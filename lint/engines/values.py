"""Engine settings as written in a deployment, read the way the engine reads them.

Adapters of command lines hand rules values their parser already converted; a
native manifest hands raw YAML values (`max_model_len: 128K`). These helpers
turn either into what the engine would see, with the engine's own integer rule
(engines.md §0: `1M` is 1,048,576 on vLLM and 1,000,000 on SGLang), and say
when the engine would refuse the text.
"""
from __future__ import annotations

import json
from functools import lru_cache
from typing import Any, FrozenSet, Optional

from .flagspec import FlagSpec
from .specs import ENGINES, spec_for
from .suffixes import IntReading, read_int

# Spellings of engine names seen in manifests, images and docs.
_ALIASES = {"llama.cpp": "llamacpp", "llama-cpp": "llamacpp", "llama-server": "llamacpp", "llama_cpp": "llamacpp",
            "text-generation-inference": "tgi", "tensorrt-llm": "trtllm", "tensorrt_llm": "trtllm",
            "trt-llm": "trtllm", "trt_llm": "trtllm", "tensorrtllm": "trtllm", "lm-deploy": "lmdeploy"}

# Engines read boolean environment switches as "1"/"true" (vllm/envs.py; SGLang get_bool_env_var).
_TRUE = ("1", "true")


_NORMALIZED: dict = {}  # a written name (a str) -> its engine id or None: every rule asks for each deployment's
_UNSEEN = object()


def normalize_engine(name: Any) -> Optional[str]:
    """The engine id ("vllm", "sglang", ...) for a written name, or None when unknown."""
    if type(name) is str:
        found = _NORMALIZED.get(name, _UNSEEN)
        if found is not _UNSEEN:
            return found
    elif not isinstance(name, str):
        return None
    key = name.strip().lower()
    key = _ALIASES.get(key, key)
    engine = key if key in ENGINES else None
    if type(name) is str and len(_NORMALIZED) < 1024:  # bounded: any file may name any engine
        _NORMALIZED[name] = engine
    return engine


def flag(engine: str, name: str) -> Optional[FlagSpec]:
    return spec_for(engine).by_name(name)


def int_rule(engine: str, name: str) -> Optional[str]:
    """The integer rule the engine applies to this setting, or None when it is no integer."""
    spec = spec_for(engine)
    f = spec.by_name(name)
    if f is None or f.kind != "int":
        return None
    return f.int_rule or spec.int_rule


@lru_cache(maxsize=None)
def settings_read_with(engine: str, rule: str) -> FrozenSet[str]:
    """The integer settings `int_rule` gives `rule` for: a rule asking about one rule (CTX302: std::stoi)
    tests set membership rather than looking every engine argument up."""
    spec = spec_for(engine)
    return frozenset(name for name, f in spec.names.items()
                     if f.kind == "int" and (f.int_rule or spec.int_rule) == rule)


def read_setting_int(engine: str, name: str, value: Any) -> Optional[IntReading]:
    """An integer setting as the engine reads it; None when it is no integer setting or value.

    Integers pass through; text (and floats, which a YAML author may write) is read with the
    engine's own rule, so `128K` on SGLang comes back with the engine's error.
    """
    rule = int_rule(engine, name)
    if rule is None or value is None or isinstance(value, bool):
        return None
    if isinstance(value, int):
        return IntReading(value, "plain integer")
    if isinstance(value, (str, float)):
        return read_int(rule, str(value))
    return None


def as_int(engine: Optional[str], name: str, value: Any) -> Optional[int]:
    """The integer the engine would use, or None (unknown engine, not convertible)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if engine is None:
        return None
    reading = read_setting_int(engine, name, value)
    return reading.value if reading is not None and reading.ok else None


def as_bool(value: Any) -> Optional[bool]:
    """A boolean flag or environment switch as the engines read it."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value != 0
    if isinstance(value, str):
        text = value.strip().lower()
        if text in _TRUE:
            return True
        if text in ("0", "false", ""):
            return False
    return None


def as_json(value: Any) -> Any:
    """A JSON flag's value: already a dict from a command line, or JSON text from a manifest."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return None
    return value
