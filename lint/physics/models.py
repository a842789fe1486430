"""Model architecture facts needed for KV-cache physics.

Three sources, in order of trust: a user's config.json (parsed by
`ctxlint.physics.hf_config`), the bundled catalog `data/models.json`, and
inline overrides merged on top of either.
"""
from __future__ import annotations

from typing import Any, Mapping

from ..records import field, fields, record, replace
from .weights import BF16, FP32, format_by_key  # here, not in weight_format: it is read for every estimate

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


@record(frozen=True)
class ModelArch:
    name: str
    num_layers: int
    layer_kinds: tuple[str, ...]
    num_kv_heads: int
    head_dim: int
    num_attention_heads: int
    v_head_dim: int | None = None          # None: same as head_dim
    # Full-attention layers with their own KV shape (Gemma-4's global layers: global_head_dim,
    # num_global_key_value_heads); None: the same as the other layers.
    full_kv_heads: int | None = None
    full_head_dim: int | None = None
    # The last N layers attend over an earlier layer's KV instead of their own (Gemma-4 E2B/E4B
    # num_kv_shared_layers): vLLM and llama.cpp allocate them no cache (kinds_cached_by); None: every layer its own.
    kv_shared_layers: int | None = None
    kv_lora_rank: int | None = None        # MLA only
    qk_rope_head_dim: int | None = None    # MLA only
    index_head_dim: int | None = None      # DeepSeek-V3.2 sparse attention: the indexer's fp8 keys per layer
    # MiniMax-M3 sparse attention (MSA): the layers that keep an index-key cache beside K and V, its width, and
    # those of them that keep an index value too (physics.msa_index); () / None: no such cache
    msa_index_dim: int | None = None
    msa_index_layers: tuple[int, ...] = ()
    msa_index_value_layers: tuple[int, ...] = ()
    # MiniMax-M3's `num_mtp_modules`: vLLM builds one MTP draft layer per module (physics.mtp); None: not said
    mtp_modules: int | None = None
    # DeepSeek-V4: the parameters vLLM keeps whole on every TP rank, as (linear weights in the checkpoint's
    # format, 16-bit, fp32) (params_dsv4.whole_on_each_tp_rank); None: all of them split over TP
    tp_whole_params: tuple[int, ...] | None = None
    # DeepSeek-V4's compress_ratios, one a layer (0: window only, 4, 128; physics.dsv4_kv); (): not such a model
    compress_ratios: tuple[int, ...] = ()
    unsupported: str = ""                  # an attention layout the KV physics does not model, and why
    sliding_window: int | None = None      # window of SLIDING layers
    attention_chunk_size: int | None = None  # window of CHUNKED layers
    hidden_size: int | None = None
    intermediate_size: int | None = None   # dense MLP width (activation estimates)
    moe_intermediate_size: int | None = None  # one expert's MLP width
    total_params_b: float | None = None
    active_params_b: float | None = None
    # The count split the way quantizers treat it (ctxlint.physics.params), in billions:
    embed_params_b: float | None = None    # input embeddings
    lm_head_params_b: float | None = None  # 0 when tied to the embeddings
    expert_params_b: float | None = None   # routed MoE experts
    vision_params_b: float | None = None   # vision tower and projector
    # The tower's (type, hidden, intermediate, patch, spatial merge, temporal patch, image size, tokens per image),
    # 0 where config.json does not say (vllm_mm.vision_dims): vLLM's profile runs the encoder; None: not known
    vision_dims: tuple | None = None
    weights: str | None = None             # the checkpoint's weight format (physics.weights.FORMATS key)
    weight_bytes: float | None = None      # a flat bytes/param override (user facts); None: from `weights`
    checkpoint_bytes: float | None = None  # the checkpoint's exact size (safetensors metadata), when known
    dtype: str = "bfloat16"                # activation / KV "auto" dtype
    vocab_size: int | None = None
    max_position_embeddings: int | None = None
    rope_scaling_type: str | None = None
    rope_scaling_factor: float | None = None
    rope_original_max_position_embeddings: int | None = None
    num_experts: int | None = None
    experts_per_token: int | None = None
    linear_state_bytes_per_request: int | None = None  # per GPU, if known
    # Linear-attention / Mamba state dims (ctxlint.physics.mamba.parse_state) and the dtype the config gives
    # the temporal state; None: not sized
    linear_state: tuple[int, ...] | None = None
    linear_ssm_dtype: str | None = None
    model_type: str | None = None          # config.json model_type (engines special-case some)
    # config.json `architectures` (its classes): engines pick a model's code, and SGLang its KV layout, by
    # the class, which model_type does not always tell (Llama4ForCausalLM and Llama4ForConditionalGeneration)
    architectures: tuple[str, ...] = ()
    # Every context-length key the config.json has, as written: engines derive their default
    # context from these by their own rules (vLLM the minimum, SGLang the first in its order).
    position_keys: tuple[tuple[str, int], ...] = ()
    source: str = ""
    verified: bool = True
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def weight_format(self):
        """The checkpoint's own weight format: its quantization_config, else its dtype."""
        return format_by_key(self.weights) or (FP32 if self.dtype_bytes == 4 else BF16)

    @property
    def is_mla(self) -> bool:
        return self.kv_lora_rank is not None

    def count(self, kind: str) -> int:
        return sum(1 for k in self.layer_kinds if k == kind)

    @property
    def full_layers(self) -> int:
        return self.count(FULL)

    def kinds_cached_by(self, engine: str) -> tuple[str, ...]:
        """The layer kinds as `engine` (a kv.normalize_engine name) caches them. vLLM gives a layer that reads
        another's KV (kv_sharing_target_layer_name: Gemma-4's last num_kv_shared_layers) no KV cache spec, so no
        pages (GPUModelRunner.get_kv_cache_spec, vllm==0.33.0:vllm/v1/worker/gpu_model_runner.py); SGLang sizes
        its pools over every layer id (get_hybrid_layer_ids, sglang==0.5.23:sglang/srt/configs/model_config.py),
        the shared layers only skip their writes (Gemma4Attention, sglang/srt/models/gemma4_causal.py). llama.cpp
        caches only the layers below n_layer_kv_from_start = n_layer - shared_kv_layers (its LLM_ARCH_GEMMA4
        hparams, ggml-org/llama.cpp@6d0892ba065b38ee790b825fdc8fb8e2c453e6dd:src/llama-model.cpp), as vLLM."""
        shared = self.kv_shared_layers or 0
        if not shared or engine not in ("vllm", "llamacpp") or shared >= len(self.layer_kinds):
            return self.layer_kinds
        return self.layer_kinds[:-shared] + (NONE,) * shared

    @property
    def dtype_bytes(self) -> int:
        return DTYPE_BYTES.get(str(self.dtype).lower(), 2)

    def to_dict(self) -> dict[str, Any]:
        import dataclasses  # JSON output only (records.py: the module costs ~7 ms to import)

        d = dataclasses.asdict(self)
        d["layer_kinds"] = list(self.layer_kinds)
        d["notes"] = list(self.notes)
        d["position_keys"] = [list(pair) for pair in self.position_keys]
        d["architectures"] = list(self.architectures)
        return d


_FIELDS = {f.name for f in fields(ModelArch)}


def sglang_state(arch: Any) -> bool:
    """Does the model have a linear/Mamba state whose SGLang pool mamba_sglang sizes (gated delta net, Mamba2)?
    LFM2's short convolution (a conv state and no temporal one, mamba.parse_state) is sized for vLLM only: how
    SGLang pools it has not been read, so there it stays as before (attention KV only, the state not counted)."""
    dims = getattr(arch, "linear_state", None)
    return bool(dims) and dims[4] > 0


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
    if "architectures" in changes:
        changes["architectures"] = _names(changes["architectures"])
    for key in ("linear_state", "msa_index_layers", "msa_index_value_layers", "tp_whole_params", "compress_ratios",
                "vision_dims"):
        if isinstance(changes.get(key), list):
            changes[key] = tuple(changes[key])
    new = replace(arch, **changes)
    pattern = overrides.get("layer_pattern")
    if pattern is not None or ("num_layers" in changes and "layer_kinds" not in changes
                               and len(new.layer_kinds) != new.num_layers):
        base = list(pattern) if pattern is not None else list(arch.layer_kinds[:1] or [FULL])
        new = replace(new, layer_kinds=expand_pattern(base, new.num_layers))
    if overrides:
        new = replace(new, source=f"{arch.source}; overridden: {', '.join(sorted(overrides))}")
    return new


def _names(value: Any) -> tuple[str, ...]:
    """Class names from a list (a lone string is one name; anything else, none)."""
    if isinstance(value, str):
        return (value,) if value else ()
    return tuple(v for v in value if isinstance(v, str) and v) if isinstance(value, (list, tuple)) else ()


def override_fields() -> frozenset[str]:
    return frozenset(_FIELDS | {"layer_pattern"})


def arch_from_mapping(d: Mapping[str, Any]) -> ModelArch:
    """Build an arch from a catalog entry (or a full user mapping)."""
    n = int(d["num_layers"])
    kinds = d.get("layer_kinds")
    kinds = tuple(kinds) if kinds else expand_pattern(d.get("layer_pattern") or [FULL], n)
    kw = {k: v for k, v in d.items() if k in _FIELDS and k not in ("layer_kinds", "notes", "architectures")}
    for key in ("linear_state", "msa_index_layers", "msa_index_value_layers", "tp_whole_params", "compress_ratios",
                "vision_dims"):
        if kw.get(key) is not None:
            kw[key] = tuple(kw[key])
    kw["layer_kinds"] = kinds
    kw["notes"] = tuple(d.get("notes") or ())
    kw["position_keys"] = tuple((str(k), int(v)) for k, v in d.get("position_keys") or ())
    kw["architectures"] = _names(d.get("architectures"))
    kw.setdefault("name", d.get("hf_id", "unknown"))
    return ModelArch(**kw)


# --- catalog ---------------------------------------------------------------

def catalog_ids() -> list[str]:
    from ctxlint.resolution.catalog import entries
    return [e["hf_id"] for e in entries()]


def lookup_model(model_id: str, overrides: Mapping[str, Any] | None = None) -> ModelArch | None:
    """The catalog entry `model_id` names exactly (its id or a listed alias, the organisation
    optional, case and '_' ignored), or None. Name normalisation (quantizer suffixes, paths)
    is ctxlint.resolution's job, which says how it matched."""
    from ctxlint.resolution.catalog import find
    hit = find(model_id) if isinstance(model_id, str) else None
    return with_overrides(arch_from_mapping(hit.entry), overrides) if hit is not None else None


def __getattr__(name: str) -> Any:
    # Re-exported lazily so callers find all three constructors here, without an import cycle
    # (hf_config builds ModelArch from this module).
    if name in ("arch_from_config_file", "arch_from_hf_config"):
        from . import hf_config
        return getattr(hf_config, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
