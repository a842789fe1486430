"""A model's architecture from a GGUF file's header (the optional `gguf` extra).

llama.cpp reads everything it needs from the header: `general.architecture`, then
`<arch>.block_count`, `.context_length`, `.embedding_length`, `.attention.head_count(_kv)`,
`.attention.key_length`/`.value_length`, `.attention.kv_lora_rank` (MLA),
`.attention.sliding_window`, `.expert_count`. The tensors' own sizes give the exact
weight bytes, split files (`-00001-of-00003.gguf`) included when every part is there.
"""
from __future__ import annotations

import os
import re
from typing import Any, Optional, Tuple

from ctxlint.lazyre import lazy_compile

_SPLIT = lazy_compile(r"^(?P<stem>.*)-(?P<i>\d{5})-of-(?P<n>\d{5})\.gguf$", re.I)


def _value(reader, key: str) -> Any:
    field = reader.get_field(key)
    if field is None:
        return None
    try:
        value = field.contents()
    except (ValueError, IndexError, UnicodeDecodeError):
        return None
    if isinstance(value, list):
        return value
    return value.item() if hasattr(value, "item") else value


def _parts(path: str) -> list:
    match = _SPLIT.match(os.path.basename(path))
    if not match:
        return [path]
    folder, n = os.path.dirname(path), int(match.group("n"))
    return [os.path.join(folder, f"{match.group('stem')}-{i:05d}-of-{n:05d}.gguf") for i in range(1, n + 1)]


def arch_from_gguf(path: str) -> Tuple[Any, str]:
    """(ModelArch, "") or (None, why)."""
    try:
        from gguf import GGUFReader
    except ImportError:
        return None, f"{path} is a GGUF file: install `ctxlint[gguf]` to read its header"
    try:
        reader = GGUFReader(path, "r")
    except (OSError, ValueError, KeyError, IndexError) as exc:
        return None, f"cannot read the GGUF header of {path}: {type(exc).__name__}: {exc}"
    arch = _value(reader, "general.architecture")
    if not isinstance(arch, str):
        return None, f"{path}: the GGUF header has no general.architecture"
    get = lambda key: _value(reader, f"{arch}.{key}")  # noqa: E731
    layers, heads, hidden = get("block_count"), get("attention.head_count"), get("embedding_length")
    if not isinstance(layers, int) or not isinstance(hidden, int) or heads is None:
        return None, f"{path}: the GGUF header lacks {arch}.block_count / embedding_length / attention.head_count"
    heads = max(heads) if isinstance(heads, list) else heads
    kv = get("attention.head_count_kv")
    kv = max(kv) if isinstance(kv, list) else (kv or heads)
    key_len = get("attention.key_length") or hidden // heads
    value_len = get("attention.value_length") or key_len
    tokens = _value(reader, "tokenizer.ggml.tokens")
    config = {
        "model_type": arch, "num_hidden_layers": layers, "num_attention_heads": heads, "num_key_value_heads": kv,
        "hidden_size": hidden, "head_dim": key_len, "intermediate_size": get("feed_forward_length"),
        "vocab_size": get("vocab_size") or (len(tokens) if isinstance(tokens, list) else None),
        "max_position_embeddings": get("context_length"), "num_local_experts": get("expert_count"),
        "num_experts_per_tok": get("expert_used_count"), "sliding_window": get("attention.sliding_window"),
        "kv_lora_rank": get("attention.kv_lora_rank"), "qk_rope_head_dim": get("rope.dimension_count")
        if get("attention.kv_lora_rank") else None,
    }
    if value_len != key_len:
        config["v_head_dim"] = value_len
    if isinstance(config["intermediate_size"], list):
        config["intermediate_size"] = max(config["intermediate_size"])
    config = {k: v for k, v in config.items() if v is not None}
    from ctxlint.records import replace

    from ctxlint.physics.hf_config import arch_from_hf_config
    try:
        found = arch_from_hf_config(config, name=os.path.basename(path))
    except (ValueError, TypeError) as exc:
        return None, f"{path}: {exc}"
    size = _tensor_bytes(reader, path)
    notes = found.notes + (f"architecture {arch} read from the GGUF header",)
    if size is not None:
        notes += (f"weights {size / 2**30:.2f} GiB: the GGUF tensors' own sizes",)
    return replace(found, checkpoint_bytes=size, weights=_file_type(reader) or "gguf", notes=notes,
                   source=f"GGUF header of {path}"), ""


def _tensor_bytes(reader, path: str) -> Optional[float]:
    try:
        total = float(sum(int(t.n_bytes) for t in reader.tensors))
    except (AttributeError, TypeError, ValueError):
        return None
    parts = _parts(path)
    if len(parts) == 1:
        return total
    if not all(os.path.isfile(p) for p in parts):
        return None  # some parts missing: the header's own file is not the whole model
    from gguf import GGUFReader
    for other in parts:
        if os.path.abspath(other) != os.path.abspath(path):
            total += float(sum(int(t.n_bytes) for t in GGUFReader(other, "r").tensors))
    return total


def _file_type(reader) -> Optional[str]:
    """The weight format key of `general.file_type` (llama.cpp's LLAMA_FTYPE numbers)."""
    names = {0: "fp32", 1: "bf16", 7: "gguf-q8-0", 2: "gguf-q4-0", 3: "gguf-q4-1", 8: "gguf-q5-0", 9: "gguf-q5-1",
             10: "gguf-q2-k", 11: "gguf-q3-k-s", 12: "gguf-q3-k-m", 13: "gguf-q3-k-l", 14: "gguf-q4-k-s",
             15: "gguf-q4-k-m", 16: "gguf-q5-k-s", 17: "gguf-q5-k-m", 18: "gguf-q6-k", 19: "gguf-iq2-xxs",
             20: "gguf-iq2-xs", 21: "gguf-q2-k-s", 22: "gguf-iq3-xs", 23: "gguf-iq3-xxs", 24: "gguf-iq1-s",
             25: "gguf-iq4-nl", 26: "gguf-iq3-s", 27: "gguf-iq3-m", 28: "gguf-iq2-s", 29: "gguf-iq2-m",
             30: "gguf-iq4-xs", 31: "gguf-iq1-m", 32: "bf16"}
    value = _value(reader, "general.file_type")
    return names.get(value) if isinstance(value, int) else None
