"""vLLM's deprecated KEY=VALUE form of a JSON flag's value (`--limit-mm-per-prompt image=1`), read
before 0.10.0 and refused since: the parser reports such a value, and this says from which release
the engine refuses it (FlagSpec.kvs_until, Problem.since)."""
from __future__ import annotations

from typing import Optional

from ctxlint.lazyre import lazy_compile

from .flagspec import FlagSpec


def kv_pairs(text: str) -> Optional[dict]:
    """`image=1,video=2` as vLLM's nullable_kvs read it before 0.10.0 (every item KEY=INT, keys
    lowered), or None when it would not, or when the text looks like a JSON object (`^{.*}$`:
    that went to json.loads). vllm/engine/arg_utils.py parse_type of 0.8-0.9 sent a dict flag's
    other values there, deprecated "will be removed in v0.10.0", and 0.10.0 did
    (vllm-project/vllm#21615: `--limit-mm-per-prompt image=1` refused)."""
    if _JSON_OBJECT.match(text):
        return None
    out: dict = {}
    for item in text.split(","):
        parts = [part.lower().strip() for part in item.split("=")]
        if len(parts) != 2:
            return None
        try:
            value = int(parts[1])
        except ValueError:
            return None
        if out.get(parts[0], value) != value:
            return None  # conflicting values for one key
        out[parts[0]] = value
    return out


_JSON_OBJECT = lazy_compile(r"{.*}$")


def refused_since(f: Optional[FlagSpec], text: str) -> Optional[str]:
    """For a value flag_values.convert refused: the release from which the engine refuses it, when earlier
    ones read it (Problem.since); None when every release refuses it."""
    return f.kvs_until if f is not None and f.kind == "json" and f.kvs_until and kv_pairs(text) is not None \
        else None
