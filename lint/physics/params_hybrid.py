"""Parameter counts of hybrid decoders whose token mixers are not all attention.

Two families, each counted tensor by tensor as its modelling code builds it:

- Qwen3-Next / Qwen3.5 / Qwen3.6 (`qwen3_next`, `qwen3_5`, `qwen3_5_moe`): Gated DeltaNet layers
  (`layer_types` "linear_attention", else all but every `full_attention_interval`-th layer) and
  gated full attention, each followed by a gated MLP or a MoE with one gated shared expert.
  huggingface/transformers@d8c1e2844cbfeae1e342a1723d7f4e69ff1adcc0:
  src/transformers/models/qwen3_5/modeling_qwen3_5.py
  (Qwen3_5GatedDeltaNet: in_proj_qkv h -> 2 key_dim + value_dim, in_proj_z h -> value_dim, in_proj_b and
  in_proj_a h -> value heads, a depthwise conv1d over 2 key_dim + value_dim without bias, dt_bias, A_log,
  a gated RMSNorm of head_v_dim, out_proj value_dim -> h; Qwen3_5Attention: q_proj h -> 2 x heads x head_dim,
  the second half the output gate, q_norm and k_norm of head_dim).
- Nemotron-H (`nemotron_h`): one mixer per block (Mamba2, attention, a relu2 MLP of up and down only, or a
  MoE of such experts, optionally run in a latent space), each behind one RMSNorm.
  huggingface/transformers@008d9e9577b0eb0149aa6bb0c44da582b10e0b6e:
  src/transformers/models/nemotron_h/modeling_nemotron_h.py
  (NemotronHMamba2Mixer: in_proj h -> 2 x inner + 2 x n_groups x state + heads, conv1d over inner +
  2 x n_groups x state with a bias, dt_bias, A_log and D per head, a gated norm of inner, out_proj;
  NemotronHExperts: up and down per expert at moe_latent_size or h; NemotronHMoE: router and its
  e_score_correction_bias, fc1/fc2_latent_proj, shared experts at moe_shared_expert_intermediate_size).
  Bias defaults: huggingface/transformers@cfeb552ef0cb77b59ff08da07698ecaad5f7b5ba:
  src/transformers/models/nemotron_h/configuration_nemotron_h.py (conv bias on; projection, MLP and
  attention biases off).

MTP layers are left out as in params.py. None when a dimension the layer needs is missing.
"""
from __future__ import annotations

from typing import Any, Mapping, Optional

from .params import Params, _i, _moe_layers, _vision

QWEN_HYBRID = ("qwen3_next", "qwen3_5")  # model_type prefixes (qwen3_5_moe, qwen3_5_text, ...)
_NEMOTRON_BLOCKS = {"M": "mamba", "*": "attention", "-": "mlp", "E": "moe"}


def _gdn(c: Mapping[str, Any], h: int) -> Optional[int]:
    """One Gated DeltaNet layer's weights."""
    kh, vh = _i(c, "linear_num_key_heads"), _i(c, "linear_num_value_heads")
    kd, vd, conv = _i(c, "linear_key_head_dim"), _i(c, "linear_value_head_dim"), _i(c, "linear_conv_kernel_dim")
    if not (kh and vh and kd and vd and conv):
        return None
    key, value = kh * kd, vh * vd
    return h * (2 * key + value) + h * value + 2 * h * vh + (2 * key + value) * conv + 2 * vh + vd + value * h


def _qwen(config: Mapping[str, Any], c: Mapping[str, Any], mt: str, h: int, n: int, vocab: int, heads: int,
          kv: int, hd: int) -> Optional[Params]:
    gdn = _gdn(c, h)
    types = c.get("layer_types")
    if isinstance(types, list) and len(types) >= n:
        linear = [str(t) == "linear_attention" for t in types[:n]]
    elif isinstance(c.get("full_attention_interval"), int) and c["full_attention_interval"] > 0:
        linear = [(i + 1) % c["full_attention_interval"] != 0 for i in range(n)]
    else:
        return None
    if gdn is None and any(linear):
        return None
    attn = 2 * h * heads * hd + 2 * h * kv * hd + heads * hd * h + 2 * hd  # gated q, k, v, o, q/k norms
    experts, moe_inter = _i(c, "num_experts", "n_routed_experts") or 0, _i(c, "moe_intermediate_size")
    inter, shared = _i(c, "intermediate_size"), _i(c, "shared_expert_intermediate_size")
    moe = _moe_layers(c, n, mt) if experts else [False] * n
    if (experts and not moe_inter) or (not all(moe) and not inter):
        return None
    routed = other = 0
    for i, is_moe in enumerate(moe):
        other += (gdn if linear[i] else attn) + 2 * h
        if is_moe:
            routed += experts * 3 * h * moe_inter
            other += h * experts + (3 * h * shared + h if shared else 0)  # router; shared expert and its gate
        else:
            other += 3 * h * inter
    return _tail(config, c, h, vocab, routed, other)


def _mamba2(c: Mapping[str, Any], h: int) -> Optional[int]:
    heads, hdim = _i(c, "mamba_num_heads"), _i(c, "mamba_head_dim")
    state, groups, conv = _i(c, "ssm_state_size"), _i(c, "n_groups"), _i(c, "conv_kernel")
    if not (heads and hdim and state and groups and conv):
        return None
    inner = heads * hdim
    conv_dim = inner + 2 * groups * state
    bias = c.get("use_bias") is True
    conv_bias = c.get("use_conv_bias") is not False
    return (h * (inner + conv_dim + heads) + (inner + conv_dim + heads if bias else 0)
            + conv_dim * conv + (conv_dim if conv_bias else 0) + 3 * heads + inner + inner * h + (h if bias else 0))


def _nemotron_blocks(c: Mapping[str, Any]) -> Optional[list]:
    pattern = c.get("hybrid_override_pattern")
    if isinstance(pattern, str) and pattern and all(ch in _NEMOTRON_BLOCKS for ch in pattern):
        return [_NEMOTRON_BLOCKS[ch] for ch in pattern]
    names = c.get("layers_block_type")
    if isinstance(names, list) and names and all(str(x) in _NEMOTRON_BLOCKS.values() for x in names):
        return [str(x) for x in names]
    return None


def _nemotron(config: Mapping[str, Any], c: Mapping[str, Any], h: int, vocab: int, heads: int, kv: int,
              hd: int) -> Optional[Params]:
    blocks = _nemotron_blocks(c)
    if not blocks:
        return None
    mamba = _mamba2(c, h) if "mamba" in blocks else 0
    inter, moe_inter = _i(c, "intermediate_size"), _i(c, "moe_intermediate_size")
    experts, latent = _i(c, "n_routed_experts") or 0, _i(c, "moe_latent_size")
    shared = _i(c, "moe_shared_expert_intermediate_size") if c.get("n_shared_experts") else 0
    if mamba is None or ("mlp" in blocks and not inter) or ("moe" in blocks and not (
            experts and moe_inter and shared is not None)):
        return None
    attn = 2 * h * heads * hd + 2 * h * kv * hd
    routed = other = 0
    for block in blocks:
        other += h
        if block == "mamba":
            other += mamba
        elif block == "attention":
            other += attn
        elif block == "mlp":
            other += 2 * h * inter
        else:
            routed += experts * 2 * (latent or h) * moe_inter
            other += (h + 1) * experts + 2 * h * (shared or 0) + (2 * h * latent if latent else 0)
    return _tail(config, c, h, vocab, routed, other)


def _tail(config: Mapping[str, Any], c: Mapping[str, Any], h: int, vocab: int, routed: int, other: int) -> Params:
    """Final norm, embeddings and the LM head (tied or not), and a vision tower when there is one."""
    tied = c.get("tie_word_embeddings", config.get("tie_word_embeddings"))
    return Params(embed=vocab * h, lm_head=0 if tied else vocab * h, experts=routed,
                  vision=_vision(config.get("vision_config")), other=other + h)


def count(config: Mapping[str, Any], c: Mapping[str, Any], mt: str, h: int, n: int, vocab: int, heads: int,
          kv: int, hd: int) -> Optional[Params]:
    if mt == "nemotron_h":
        return _nemotron(config, c, h, vocab, heads, kv, hd)
    return _qwen(config, c, mt, h, n, vocab, heads, kv, hd)
