"""The models lock file: architecture facts fetched once from the Hub, committed, read offline.

`ctxlint models lock` writes `.ctxlint-models.lock` (JSON) beside the config file; `check`
reads it with no network. Each entry holds only architecture facts (the whitelisted keys
of the model's config.json, never tokens or remote code), the revision they were read at,
and the safetensors parameter counts per dtype, from which the checkpoint's exact size on
the GPU follows.
"""
from __future__ import annotations

import json
import os
from typing import Any, Dict, Mapping, Optional, Tuple

LOCK_NAME = ".ctxlint-models.lock"
LOCK_VERSION = 1
# Bytes per element of safetensors dtypes (packed 4-bit weights are stored as I32/U8 words).
DTYPE_BYTES = {"F64": 8, "I64": 8, "U64": 8, "F32": 4, "I32": 4, "U32": 4, "F16": 2, "BF16": 2, "I16": 2,
               "U16": 2, "F8_E4M3": 1, "F8_E5M2": 1, "F8_E8M0": 1, "I8": 1, "U8": 1, "BOOL": 1, "F4": 0.5,
               "F6_E2M3": 0.75, "F6_E3M2": 0.75}
# config.json keys that describe the architecture (what the lock keeps of a config). Every key the
# config parser and the parameter counter read must be here (tests/resolution/test_models_lock.py
# checks it): a key dropped here is a model resolved wrong, as the catalog's THUDM/glm-4-9b
# (multi_query_group_num dropped: 32 KV heads instead of 2) and moonshotai/Kimi-K3
# (linear_attn_config dropped: 93 MLA layers instead of 24) were when transcribed through this list.
ARCH_KEYS = frozenset("""
architectures model_type num_hidden_layers n_layer num_layers n_layers num_attention_heads n_head n_heads
num_key_value_heads num_kv_heads n_head_kv multi_query new_decoder_architecture head_dim hidden_size n_embd n_embed
d_model intermediate_size ffn_hidden_size n_inner vocab_size tie_word_embeddings torch_dtype dtype
max_position_embeddings n_positions max_seq_len seq_length max_sequence_length model_max_length
max_target_positions max_seq_length seq_len rope_scaling rope_parameters rope_theta partial_rotary_factor
rotary_dim sliding_window use_sliding_window max_window_layers layer_types sliding_window_pattern
attention_chunk_size no_rope_layers no_rope_layer_interval attn_type_list full_attention_interval
hybrid_override_pattern layers_block_type linear_num_key_heads linear_num_value_heads linear_key_head_dim
linear_value_head_dim linear_conv_kernel_dim mamba_num_heads mamba_head_dim ssm_state_size n_groups
conv_kernel kv_lora_rank q_lora_rank qk_rope_head_dim qk_nope_head_dim v_head_dim index_head_dim
index_n_heads index_topk num_local_experts n_routed_experts num_experts num_experts_per_tok
n_shared_experts moe_intermediate_size shared_expert_intermediate_size intermediate_size_mlp
first_k_dense_replace moe_layer_freq decoder_sparse_step mlp_only_layers interleave_moe_layer_step
num_nextn_predict_layers ffn_config attn_config text_config llm_config language_config vision_config
global_head_dim num_global_key_value_heads attention_k_eq_v num_kv_shared_layers attention_head_dim
block_configs expert_intermediate_size top_k_experts compress_ratios hybrid_layer_pattern multi_query_attention
multi_query_group_num kv_channels padded_vocab_size swa_num_key_value_heads swa_head_dim swa_v_head_dim
experts_per_token num_experts_per_token moe_topk moe_num_experts ffn_dim linear_attn_config num_shared_experts
routed_expert_hidden_size mla_use_output_gate attn_res_block_size depth layers embed_dim width mlp_dim patch_size
moe_latent_size moe_shared_expert_intermediate_size use_bias use_conv_bias hidden_size_per_layer_input
num_attention_groups sparse_attention_config expert_dtype o_lora_rank o_groups hc_mult num_hash_layers
mlp_ratio spatial_patch_size spatial_merge_size temporal_patch_size image_size mm_tokens_per_image
""".split())
_QUANT_KEYS = ("quant_method", "bits", "w_bit", "group_size", "q_group_size", "fmt", "weight_block_size", "format",
               "load_in_4bit", "_load_in_4bit", "load_in_8bit", "quant_algo", "ignore", "exclude_modules",
               "moe_quant_algo", "expert_dtype")  # DeepSeek-V4's, where a conversion writes it (weights.py)


def arch_facts(config: Mapping[str, Any]) -> Dict[str, Any]:
    """The architecture keys of a config.json (nested text/vision configs likewise)."""
    out: Dict[str, Any] = {}
    for key, value in config.items():
        if key in ("text_config", "llm_config", "language_config", "vision_config") and isinstance(value, Mapping):
            out[key] = arch_facts(value)
        elif key in ARCH_KEYS:
            out[key] = value
    q = config.get("quantization_config")
    if isinstance(q, Mapping):
        kept = {k: q[k] for k in _QUANT_KEYS if k in q}
        groups = q.get("config_groups")
        if isinstance(groups, Mapping):
            kept["config_groups"] = {
                name: {"weights": {k: g["weights"][k] for k in ("num_bits", "type", "strategy", "group_size")
                                   if isinstance(g.get("weights"), Mapping) and k in g["weights"]}}
                for name, g in groups.items() if isinstance(g, Mapping)}
        out["quantization_config"] = kept
    return out


def checkpoint_bytes(counts: Mapping[str, Any]) -> Optional[float]:
    """Bytes of a checkpoint from its safetensors parameter counts per dtype."""
    total = 0.0
    for dtype, n in counts.items():
        size = DTYPE_BYTES.get(str(dtype).upper())
        if size is None or not isinstance(n, int) or isinstance(n, bool) or n < 0:
            return None
        total += size * n
    return total or None


def arch_from_entry(model_id: str, entry: Mapping[str, Any]):
    """A ModelArch from one lock entry (None when the facts are incomplete)."""
    from ctxlint.records import replace

    from ctxlint.physics.hf_config import arch_from_hf_config

    config = entry.get("config") if isinstance(entry, Mapping) else None
    if not isinstance(config, Mapping):
        return None
    try:
        arch = arch_from_hf_config(config, name=model_id)
    except (ValueError, TypeError, KeyError):
        return None
    counts = entry.get("safetensors")
    size = checkpoint_bytes(counts) if isinstance(counts, Mapping) else None
    source = entry.get("source") or f"https://huggingface.co/{model_id}"
    arch = replace(arch, source=f"{source} (lock file)")
    if size is not None:
        arch = replace(arch, checkpoint_bytes=size,
                       notes=arch.notes + (f"checkpoint {size / 2**30:.2f} GiB from its safetensors metadata",))
        if arch.total_params_b is None:
            params = sum(n for n in counts.values() if isinstance(n, int))
            arch = replace(arch, total_params_b=params / 1e9)
    return arch


def find_lock(start: str) -> Optional[str]:
    """The lock file in `start` (a directory), if there is one."""
    path = os.path.join(start, LOCK_NAME)
    return path if os.path.isfile(path) else None


def read_lock(path: str) -> Tuple[Dict[str, Any], Optional[str]]:
    """(models by id, problem) -- a broken lock file is reported, never a crash."""
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, UnicodeDecodeError) as exc:
        return {}, f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}"
    except json.JSONDecodeError as exc:
        return {}, f"{path} is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
    models = data.get("models") if isinstance(data, dict) else None
    if not isinstance(models, dict) or data.get("version") != LOCK_VERSION:
        return {}, f"{path} is not a ctxlint models lock file (version {LOCK_VERSION} with a `models` mapping)"
    return {str(k): v for k, v in models.items() if isinstance(v, dict)}, None


def write_lock(path: str, models: Mapping[str, Any]) -> str:
    """The lock file's text, stable: sorted ids and keys, one trailing newline."""
    doc = {"version": LOCK_VERSION, "generated_by": "ctxlint models lock",
           "models": {k: models[k] for k in sorted(models, key=str.lower)}}
    return json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
