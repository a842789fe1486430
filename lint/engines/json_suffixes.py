"""vLLM's human-readable numbers inside a config flag's JSON (`--kv-transfer-config '{"kv_connector_extra_config":
{"cpu_bytes_to_use": 80m}}'`, `--compilation-config '{"max_cudagraph_capture_size": 1k}'`).

From 0.20.0 vLLM rewrites each bare (unquoted) token `\\b\\d+(\\.\\d+)?[kKmMgGtT]\\b` of a dataclass-typed flag's JSON
with human_readable_int before pydantic reads it (vllm-0.20.0 to 0.34.0 wheels: vllm/engine/arg_utils.py
`_expand_json_human_readable_numbers`, called by `parse_dataclass`; absent from the 0.19.0 wheel's). Earlier
releases, and the flags typed `json.loads` (`--hf-overrides`, `--speculative-config`), exit on such text as
invalid JSON. FlagSpec.json_suffixes_since marks the flags; the parser reads the expanded JSON and reports the
text as refused only before that release (Problem.until).
"""
from __future__ import annotations

import json
from typing import Any, Optional

from ctxlint.lazyre import lazy_compile

from .suffixes import read_vllm

_QUOTED = lazy_compile(r'("(?:[^"\\]|\\.)*")')
_BARE = lazy_compile(r"\b\d+(?:\.\d+)?[kKmMgGtT]\b")


def expand(text: str) -> Optional[str]:
    """`text` with every bare human-readable number outside JSON strings replaced by its integer, as vLLM does;
    None when there is none, or one human_readable_int refuses (a decimal with a binary suffix, `1.5K`: vLLM exits
    on it too)."""
    parts = _QUOTED.split(text)
    found = False
    for i in range(0, len(parts), 2):  # even indices lie outside strings
        new = _BARE.sub(_number, parts[i])
        found = found or new != parts[i]
        parts[i] = new
    return "".join(parts) if found else None


def _number(m) -> str:
    reading = read_vllm(m.group())
    if reading.value is None:
        raise ValueError(reading.error)
    return str(reading.value)


def read_expanded(text: str) -> tuple[Optional[Any], Optional[str]]:
    """(the value vLLM reads from `text` once its bare numbers are expanded, that JSON); (None, None) when the
    expansion does not make it JSON."""
    try:
        expanded = expand(text)
        return (json.loads(expanded), expanded) if expanded is not None else (None, None)
    except ValueError:
        return None, None


def refused_until(f, text: str) -> Optional[str]:
    """For a value flag_values.convert refused: the release from which the engine reads it (its bare numbers
    expanded), when earlier ones refuse it (Problem.until); None when every release refuses it."""
    if f is None or f.kind != "json" or not f.json_suffixes_since:
        return None
    return f.json_suffixes_since if read_expanded(text)[1] is not None else None
