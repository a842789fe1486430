"""The fixed-size state of linear-attention and Mamba layers, and where vLLM keeps it.

A gated delta net (Qwen3-Next, Qwen3.5, Qwen3.6) or Mamba2 layer (Nemotron-H, Nemotron-3, granite-4.0-h)
holds one state per request whatever its length: a convolution window and an SSM (temporal) state.
vLLM's V1 engine keeps these states in the same KV cache pool as the attention layers, one page per
layer per request, and makes every page the same size by raising the attention block size; SGLang
keeps them in a pool of their own (not modelled here).

Shapes (vllm-project/vllm@02d710837549a368073552333f66d714477415d2:vllm/model_executor/layers/mamba/mamba_utils.py,
MambaStateShapeCalculator): gated delta net conv (kernel - 1) x (2 x k_heads x k_dim + v_heads x v_dim) / TP,
temporal (v_heads / TP) x v_dim x k_dim; Mamba2 conv (kernel - 1) x (intermediate + 2 x groups x state) / TP,
groups raised to TP when TP does not divide them (extra_groups_for_head_shards), temporal (heads / TP) x
head_dim x state. Dtypes (MambaStateDtypeCalculator._mamba_state_dtype): the conv state in
mamba_cache_dtype (auto: the model's), the temporal state in mamba_ssm_cache_dtype (auto: the conv state's),
which Qwen3.5 models set from their config's mamba_ssm_dtype and Nemotron-H from mamba_ssm_cache_dtype,
float32 when absent (vllm/model_executor/models/config.py Qwen3_5ForConditionalGenerationConfig,
NemotronHForCausalLMConfig.DEFAULT_MAMBA_SSM_CACHE_DTYPE).
LFM2's short-convolution layers (layer_types "conv") hold a conv state alone, (conv_L_cache - 1) x conv_dim / TP in
mamba_cache_dtype (auto: the model's; LFM2-MoE's channels are its hidden_size, lfm2_moe.py), and vLLM treats the model
as hybrid (Lfm2ForCausalLM and Lfm2MoeForCausalLM are IsHybrid), so the
same page unification and groups apply (vllm-project/vllm@055e47c28003156421365af985d676fc921cb075:
vllm/model_executor/models/lfm2.py get_mamba_state_shape_from_config, get_mamba_state_dtype_from_config;
vllm/model_executor/layers/mamba/mamba_utils.py short_conv_state_shape, short_conv_state_dtype). SGLang's pool of
it is not read (models.sglang_state).
"""
from __future__ import annotations

import math
from typing import Any, Mapping

from ctxlint.versions import parse_version

from ..records import record, replace
from .kv import KVBreakdown, vllm_groups
from .vllm_block import default_block, given_block

_STATE_DTYPES = {"float32": 4, "fp32": 4, "bfloat16": 2, "bf16": 2, "float16": 2, "fp16": 2, "half": 2}
_V0_20_1 = parse_version("0.20.1")  # vLLM prints max concurrency x max_model_len (pool.vllm_reported)
_V0_10_1 = parse_version("0.10.1")  # the hybrid KV cache manager (releases.py): states in the KV pool
ALIGN = 16  # vLLM raises the attention block size in multiples of 16 tokens


def _int(c: Mapping[str, Any], *keys: str) -> int | None:
    for key in keys:
        v = c.get(key)
        if isinstance(v, int) and not isinstance(v, bool) and v > 0:
            return v
    return None


def parse_state(c: Mapping[str, Any]) -> tuple[tuple[int, ...] | None, str | None]:
    """(state dims, the config's temporal-state dtype) of a config.json (its text part): the dims are
    (conv_base, groups, group_width, conv_len, heads, per_head), so that on TP ranks the conv state is
    (conv_base + groups' x group_width) / TP x conv_len elements and the temporal state heads / TP x
    per_head; None when the config has no state ctxlint can size."""
    mt = str(c.get("model_type", "")).lower()
    nv, nk = _int(c, "linear_num_value_heads"), _int(c, "linear_num_key_heads")
    dv, dk = _int(c, "linear_value_head_dim"), _int(c, "linear_key_head_dim")
    kernel = _int(c, "linear_conv_kernel_dim")
    if nv and nk and dv and dk and kernel:  # gated delta net
        dtype = c.get("mamba_ssm_dtype")
        if dtype is None and mt.startswith("qwen3_5"):
            dtype = "float32"  # the Qwen3.5 configs published carry float32; absent, the larger is assumed
        return (2 * nk * dk + nv * dv, 0, 0, kernel - 1, nv, dv * dk), _dtype(dtype)
    heads = _int(c, "mamba_num_heads", "mamba_n_heads")
    head_dim = _int(c, "mamba_head_dim", "mamba_d_head")
    state = _int(c, "ssm_state_size", "mamba_d_state")
    kernel = _int(c, "conv_kernel", "mamba_d_conv")
    if heads and head_dim and state and kernel:  # Mamba2
        groups = _int(c, "n_groups", "mamba_n_groups") or 1
        dtype = c.get("mamba_ssm_cache_dtype")
        if dtype is None and mt.startswith("nemotron_h"):
            dtype = "float32"  # NemotronHForCausalLMConfig's default
        return (heads * head_dim, groups, 2 * state, kernel - 1, heads, head_dim * state), _dtype(dtype)
    # LFM2's short convolution: no temporal state. Lfm2ForCausalLM's channels are conv_dim, Lfm2MoeForCausalLM's
    # hidden_size (vllm@055e47c2 lfm2_moe.py get_mamba_state_shape_from_config), each over conv_L_cache - 1
    conv_dim = _int(c, "conv_dim") if mt == "lfm2" else _int(c, "hidden_size") if mt == "lfm2_moe" else None
    conv_len = _int(c, "conv_L_cache")
    if conv_dim and conv_len and conv_len > 1:
        return (conv_dim, 0, 0, conv_len - 1, 0, 0), None
    return None, None


def _dtype(name: Any) -> str | None:
    name = str(name).replace("torch.", "").lower() if name else ""
    return name if name in _STATE_DTYPES else None


def state_bytes(dims: tuple[int, ...], tp: int, conv_bytes: float, ssm_bytes: float) -> int | None:
    """One layer's state for one request on one TP rank, in bytes; None when TP does not divide it."""
    conv_base, groups, width, conv_len, heads, per_head = dims
    if groups and groups % tp:
        groups = tp  # extra_groups_for_head_shards: groups + (tp - groups)
    conv_dim = conv_base + groups * width
    if conv_dim % tp or heads % tp:
        return None
    return int(conv_dim // tp * conv_len * conv_bytes + heads // tp * per_head * ssm_bytes)


@record(frozen=True)
class Hybrid:
    """How vLLM lays out one hybrid model: the block size it raises attention to, the page every layer
    takes per block, its KV cache groups and the state blocks one request holds in each Mamba group."""
    block: int
    page: int          # bytes per block per layer (attention), the Mamba page padded to it
    group_size: int    # layers per KV cache group
    full_groups: int
    state_groups: int
    state_blocks: int  # blocks one request holds in each Mamba group


def vllm_hybrid(arch, br: KVBreakdown, tp: int, settings: Mapping[str, Any],
                version: str | None) -> tuple[Hybrid, KVBreakdown] | None:
    """The layout and the KV breakdown as vLLM's hybrid allocator sees them, or None where it does not
    apply (no state ctxlint can size, window layers too, or a release before the hybrid KV cache manager)."""
    dims = getattr(arch, "linear_state", None)
    full = br.full_layers_per_gpu + br.draft_layers
    if not dims or not br.linear_layers_per_gpu or not full or br.sliding_layers_per_gpu or not br.full_layer_bytes:
        return None
    v = parse_version(version) if version else None
    if v is not None and v < _V0_10_1:
        return None
    conv = _STATE_DTYPES.get(str(settings.get("mamba_cache_dtype") or "auto").lower(), arch.dtype_bytes)
    ssm_name = str(settings.get("mamba_ssm_cache_dtype") or "auto").lower()
    ssm = _STATE_DTYPES.get(ssm_name) or _STATE_DTYPES.get(arch.linear_ssm_dtype or "", conv)
    mamba_page = state_bytes(tuple(dims), max(1, tp), conv, ssm)
    if not mamba_page:
        return None
    one = br.full_layer_bytes  # one token, one attention layer, one GPU
    # HybridAttentionMambaModelConfig.verify_and_update_config: attention block size 16 x cdiv(mamba page,
    # 16 x one token's page) unless the user's is larger; the Mamba page is padded to the attention page
    # (vllm-project/vllm@0144dd5b0d2d9ef9ac2651a3ab6efa83d0497ea9:vllm/model_executor/models/config.py)
    # From 0.34.0 the multiple is max(16, the cache's block) and that block defaults to 64 (vllm_block.py;
    # vllm-0.34.0 wheel: vllm/platforms/interface.py:1083-1117 `_align_hybrid_block_size`)
    user = given_block(settings)
    align = max(ALIGN, default_block(version)) if user is None else ALIGN
    block = align * math.ceil(mamba_page / (align * one))
    if user is not None and user > block:
        block = user
    page = int(block * one)
    # _get_kv_cache_groups_uniform_page_size: groups of the least layer count (of the largest from 0.18
    # under 1.5x), each a page per block (vllm-project/vllm@001cabc1be16a59a70d720ed61a13b678c060a18:
    # vllm/v1/core/kv_cache_utils.py); an unknown release's grouping is the older one
    size, full_groups, state_groups = (vllm_groups(full, br.linear_layers_per_gpu, version)
                                       or vllm_groups(full, br.linear_layers_per_gpu, "0.17.0"))
    # prefix caching (on by default) puts the states in mamba_cache_mode "align": a request holds 2 blocks of
    # each Mamba group (the running state and the last block-aligned one), 1 without prefix caching (mode
    # "none"); MambaModelConfig.verify_and_update_config and MambaSpec.max_memory_usage_bytes. Releases that
    # turned prefix caching off for hybrids hold 1: 2 is the conservative count where the release is unknown.
    cached = settings.get("enable_prefix_caching")
    blocks = 1 if cached is False or settings.get("no_enable_prefix_caching") is True else 2
    hybrid = Hybrid(block, page, size, full_groups, state_groups, blocks)
    bpt = full_groups * size * one
    state = state_groups * blocks * size * page
    ssm_label = ssm_name if ssm_name != "auto" else (arch.linear_ssm_dtype or "the model's dtype")
    kind = f"temporal state in {ssm_label}" if dims[4] else "a convolution state alone: LFM2's short convolution"
    notes = tuple(n for n in br.notes if "linear/Mamba layers" not in n) + (
        f"vLLM hybrid: {br.linear_layers_per_gpu} linear/Mamba layers hold {mamba_page:,} B of state each per "
        f"request ({kind}); attention block raised to {block} tokens so one page "
        f"({page:,} B) holds one state; {full_groups + state_groups} KV cache groups of {size} layers, a request "
        f"holds {blocks} block(s) in each of {state_groups} state group(s)"
        + (" (prefix caching: mamba_cache_mode align)" if blocks == 2 else ""),)
    formula = f"{full_groups} group(s) x {size} layers x {one:g} B" if full_groups * size != full else br.formula
    return hybrid, replace(br, bytes_per_token=bpt, state_bytes_per_request=float(state), notes=notes,
                           formula=formula)


def vllm_reported(kv: float | None, hybrid: Hybrid, ctx: int | None, version: str | None) -> tuple[int | None, str]:
    """What vLLM prints as "GPU KV cache size" for a hybrid Mamba model: from 0.20.1 max concurrency x
    max_model_len, before that num_blocks // groups x block_size (pool.vllm_reported, the same print)."""
    if not kv or kv <= 0:
        return None, ""
    blocks = int(kv // (hybrid.page * hybrid.group_size))
    old = blocks // (hybrid.full_groups + hybrid.state_groups) * hybrid.block
    v = parse_version(version) if version else None
    if ctx and (v is None or v >= _V0_20_1):
        per_request = hybrid.full_groups * -(-ctx // hybrid.block) + hybrid.state_groups * hybrid.state_blocks
        new = int(blocks / per_request * ctx)
        if v is not None:
            return new, ">= 0.20.1: max concurrency x max_model_len"
        return old, f"0.10.1-0.20.0: {old:,}; >= 0.20.1 prints {new:,} (max concurrency x max_model_len)"
    return old, "0.10.1-0.20.0: num_blocks // groups x block_size"
