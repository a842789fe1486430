"""Model architecture facts needed for KV-cache physics.

Three sources, in order of trust: a user's config.json (parsed by
`ctxlint.physics.hf_config`), the bundled catalog `data/models.json`, and
inline overrides merged on top of either.
"""
from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any, Mapping

# Per-layer attention kinds. Only FULL layers cost KV per token of context;
# SLIDING / CHUNKED layers are bounded by their window, LINEAR (Mamba,
# lightning/linear attention, GDN) layers hold a fixed state per request.
FULL = "full"
SLIDING = "sliding"
CHUNKED = "chunked"
LINEAR = "linear"
NONE = "none"  # a block with no attention at all (Nemotron-H MLP/MoE blocks): no cache
LAYER_KINDS = (FULL, SLIDING, CHUNKED, LINEAR, NONE)

# Bytes per element for the model's own dtype (what KV dtype "auto" means).
DTYPE_BYTES = {"bfloat16": 2, "float16": 2, "float32": 4, "float8": 1, "bf16": 2, "fp16": 2, "fp32": 4}


@dataclass(frozen=True)
class ModelArch:
    name: str
    num_layers: int
    layer_kinds: tuple[str, ...]
    num_kv_heads: int
    head_dim: int
    num_attention_heads: int
    v_head_dim: int | None = None          # None: same as head_dim
    kv_lora_rank: int | None = None        # MLA only
    qk_rope_head_dim: int | None = None    # MLA only
    sliding_window: int | None = None      # window of SLIDING layers
    attention_chunk_size: int | None = None  # window of CHUNKED layers
    hidden_size: int | None = None
    total_params_b: float | None = None
    active_params_b: float | None = None
    # The count split the way quantizers treat it (ctxlint.physics.params), in billions:
    embed_params_b: float | None = None    # input embeddings
    lm_head_params_b: float | None = None  # 0 when tied to the embeddings
    expert_params_b: float | None = None   # routed MoE experts
    vision_params_b: float | None = None   # vision tower and projector
    weights: str | None = None             # the checkpoint's weight format (physics.weights.FORMATS key)
    weight_bytes: float | None = None      # a flat bytes/param override (user facts); None: from `weights`
    dtype: str = "bfloat16"                # activation / KV "auto" dtype
    vocab_size: int | None = None
    max_position_embeddings: int | None = None
    rope_scaling_type: str | None = None
    rope_scaling_factor: float | None = None
    rope_original_max_position_embeddings: int | None = None
    num_experts: int | None = None
    experts_per_token: int | None = None
    linear_state_bytes_per_request: int | None = None  # per GPU, if known
    source: str = ""
    verified: bool = True
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def weight_format(self):
        """The checkpoint's own weight format: its quantization_config, else its dtype."""
        from .weights import BF16, FP32, format_by_key
        return format_by_key(self.weights) or (FP32 if self.dtype_bytes == 4 else BF16)

    @property
    def is_mla(self) -> bool:
        return self.kv_lora_rank is not None

    def count(self, kind: str) -> int:
        return sum(1 for k in self.layer_kinds if k == kind)

    @property
    def full_layers(self) -> int:
        return self.count(FULL)

    @property
    def dtype_bytes(self) -> int:
        return DTYPE_BYTES.get(str(self.dtype).lower(), 2)

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["layer_kinds"] = list(self.layer_kinds)
        d["notes"] = list(self.notes)
        return d


_FIELDS = {f.name for f in dataclasses.fields(ModelArch)}


MAX_LAYERS = 10_000  # far above any model (hundreds); a typo must not build a 100M-entry tuple


def expand_pattern(pattern: list[str] | tuple[str, ...], num_layers: int) -> tuple[str, ...]:
    """Cycle a short layer-kind pattern over num_layers (e.g. gemma-3: 5 sliding : 1 full)."""
    if not 0 < num_layers <= MAX_LAYERS:
        raise ValueError(f"num_layers {num_layers:,} is not a model's layer count (1 to {MAX_LAYERS:,})")
    if not pattern:
        return (FULL,) * num_layers
    return tuple(pattern[i % len(pattern)] for i in range(num_layers))


def with_overrides(arch: ModelArch, overrides: Mapping[str, Any] | None) -> ModelArch:
    """Merge inline overrides (same field names) on top of an arch.

    Unknown keys are ignored rather than raising: the linter must never crash on
    a typo; the caller can compare keys against `override_fields()` to warn.
    `layer_pattern` is accepted as a convenience and expanded over num_layers.
    """
    if not overrides:
        return arch
    changes = {k: v for k, v in overrides.items() if k in _FIELDS}
    if "layer_kinds" in changes:
        changes["layer_kinds"] = tuple(changes["layer_kinds"])
    if "notes" in changes:
        changes["notes"] = tuple(changes["notes"])
    new = dataclasses.replace(arch, **changes)
    pattern = overrides.get("layer_pattern")
    if pattern is not None or ("num_layers" in changes and "layer_kinds" not in changes
                               and len(new.layer_kinds) != new.num_layers):
        base = list(pattern) if pattern is not None else list(arch.layer_kinds[:1] or [FULL])
        new = dataclasses.replace(new, layer_kinds=expand_pattern(base, new.num_layers))
    if overrides:
        new = dataclasses.replace(new, source=f"{arch.source}; overridden: {', '.join(sorted(overrides))}")
    return new


def override_fields() -> frozenset[str]:
    return frozenset(_FIELDS | {"layer_pattern"})


def arch_from_mapping(d: Mapping[str, Any]) -> ModelArch:
    """Build an arch from a catalog entry (or a full user mapping)."""
    n = int(d["num_layers"])
    kinds = d.get("layer_kinds")
    kinds = tuple(kinds) if kinds else expand_pattern(d.get("layer_pattern") or [FULL], n)
    kw = {k: v for k, v in d.items() if k in _FIELDS and k not in ("layer_kinds", "notes")}
    kw["layer_kinds"] = kinds
    kw["notes"] = tuple(d.get("notes") or ())
    kw.setdefault("name", d.get("hf_id", "unknown"))
    return ModelArch(**kw)


# --- catalog ---------------------------------------------------------------

def _norm(name: str) -> str:
    s = name.strip().lower().replace("_", "-").replace(" ", "-")
    return re.sub(r"-+", "-", s)


@lru_cache(maxsize=1)
def _catalog() -> tuple[dict[str, Any], ...]:
    text = resources.files("ctxlint.physics").joinpath("data/models.json").read_text("utf-8")
    return tuple(json.loads(text)["models"])


@lru_cache(maxsize=1)
def _alias_index() -> dict[str, int]:
    """Map normalized names to catalog positions.

    Every entry is reachable by its HF id, its bare name (org prefix optional)
    and listed aliases; "-instruct"/"-it" suffixes are optional because the
    base and instruct checkpoints share the architecture (where the catalog
    lists only one of them).
    """
    index: dict[str, int] = {}
    for i, entry in enumerate(_catalog()):
        names = [entry["hf_id"], *entry.get("aliases", [])]
        for nm in names:
            for key in _name_keys(nm):
                index.setdefault(key, i)
    return index


def _name_keys(name: str) -> list[str]:
    n = _norm(name)
    bare = n.split("/", 1)[1] if "/" in n else n
    keys = [n, bare]
    for suffix in ("-instruct", "-it", "-chat"):
        if bare.endswith(suffix):
            keys.append(bare[: -len(suffix)])
    return keys


def catalog_ids() -> list[str]:
    return [e["hf_id"] for e in _catalog()]


def lookup_model(model_id: str, overrides: Mapping[str, Any] | None = None) -> ModelArch | None:
    """Catalog lookup, case-insensitive, org prefix optional. None if unknown."""
    if not isinstance(model_id, str) or not model_id.strip():
        return None
    index = _alias_index()
    for key in _name_keys(model_id):
        if key in index:
            arch = arch_from_mapping(_catalog()[index[key]])
            return with_overrides(arch, overrides)
    return None


# Re-exported here so callers find all three constructors in one module.
from .hf_config import arch_from_config_file, arch_from_hf_config  # noqa: E402,F401
