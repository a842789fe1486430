"""Parameter counts from a config.json, split by what a quantizer treats differently.

A checkpoint's weight bytes depend on which tensors a format quantizes: embeddings and the
LM head usually stay in 16 bits, gpt-oss quantizes only its MoE experts, and a vision
tower is left alone. So the count is split into embeddings, LM head, routed experts,
vision tower and the rest (attention, dense MLPs, shared experts, routers, norms).

Covered layouts: Llama-style GQA decoders (gated or plain MLP), MLA (DeepSeek-V2/V3,
Kimi-K2, with the V3.2 indexer), MoE with routed and shared experts placed as each family
places them (first_k_dense_replace / moe_layer_freq, decoder_sparse_step / mlp_only_layers,
Llama-4 interleave_moe_layer_step, dbrx ffn_config), and Kimi-Linear / Kimi-K3 (KDA layers,
gated MLA, latent MoE); Qwen3-Next / Qwen3.5 (Gated DeltaNet) and Nemotron-H (Mamba2) in
params_hybrid. Layers of other kinds (Mamba1, lightning attention, parallel hybrids) are not
counted: `count()` returns None for them, and the catalog takes the published count instead.
MTP / next-token-prediction modules are left out: engines load them only for speculative decoding.
"""
from __future__ import annotations

from typing import Any, Mapping, Optional

from ..records import record

# Plain (non-gated) MLP: up + down only. Persimmon's is dense_h_to_4h and dense_4h_to_h around a relu2
# (PersimmonMLP, vllm-project/vllm@00c9e1025c093869556c6052314bd2be77a2373c:vllm/model_executor/models/persimmon.py).
_PLAIN_MLP = {"opt", "gpt2", "gpt_neox", "falcon", "phi", "starcoder2", "gpt_bigcode", "bloom", "mpt", "persimmon"}
# Falcon: a config without tie_word_embeddings shares the LM head with the embeddings ("previous Falcon model doesn't
# have tie_word_embeddings config so we set tie_word_embeddings to True by default", FalconForCausalLM in
# vllm-project/vllm@7477b4f8e653431530d59561bc4e80c46c864242:vllm/model_executor/models/falcon.py). MPT's config.json
# has no such key and MPTForCausalLM always reads its logits off the embedding table (`assert
# config.tie_word_embeddings`, `self.lm_head = self.transformer.wte`,
# vllm-project/vllm@02d799bcfa7192d80c69329d6bbfc5189efeb87d:vllm/model_executor/models/mpt.py). BLOOM's configs carry no
# tie key either; BloomForCausalLM reads its logits off word_embeddings when tie_word_embeddings (a PretrainedConfig
# default of True) and skips any lm_head.weight in the checkpoint (`skip_prefixes=["lm_head.weight"]`,
# vllm-project/vllm@01dbb08195ca9c70ac9044786a906a353e07fcdf:vllm/model_executor/models/bloom.py).
# StarCoder2: Starcoder2Config sets no tie default, so a config.json without the key takes PretrainedConfig's True,
# and Starcoder2ForCausalLM then reads its logits off embed_tokens and skips lm_head.weight (transformers
# models/starcoder2/configuration_starcoder2.py; vllm-project/vllm@03f03ff691c10253219141fe592d630c03662153:
# vllm/model_executor/models/starcoder2.py): bigcode/starcoder2-7b is 7.17B on the Hub, not 7.40B.
# MiniCPM3: its remote-code MiniCPM3Config (auto_map's configuration_minicpm, as copied from openbmb/MiniCPM3-4B at
# 6fcf8b4) and transformers' own (models/minicpm3/configuration_minicpm3.py, "Defaults match the openbmb/MiniCPM3-4B
# checkpoint") both default tie_word_embeddings to True, and the checkpoint's config.json has no such key: the
# official model.safetensors is 8.15 GB in bf16, 4.07B parameters (untied it would be 4.26B, 8.52 GB). Its first
# config.json (revision f03dca5) has no model_type either, so the class names it (_TIED_CLASSES).
# Gemma 4 Unified (the 12B): Gemma4UnifiedTextConfig and Gemma4UnifiedConfig both default tie_word_embeddings to
# True (transformers==5.10.1: transformers/models/gemma4_unified/configuration_gemma4_unified.py), as Gemma 4's do.
_TIED_BY_DEFAULT = {"gemma", "gemma2", "gemma3", "gemma3_text", "gemma4", "gemma4_text", "gemma4_unified",
                    "gemma4_unified_text", "opt", "gpt2", "falcon", "mpt", "bloom", "starcoder2", "minicpm3"}
_TIED_CLASSES = ("MiniCPM3ForCausalLM",)
# A reward model scores, it does not predict tokens: InternLM2ForRewardModel is InternLM2Model and a v_head of
# Linear(hidden, 1), with no vocabulary-wide head whatever tie_word_embeddings says (sgl-project/sglang@
# 0292838216c0b92b5354cb29b40c812a5c1490f0:python/sglang/srt/models/internlm2_reward.py; vLLM's builds no
# ParallelLMHead for it, LMDeploy's a v_head of hidden x 1 too).
_SCORE_HEAD_CLASSES = ("InternLM2ForRewardModel",)
_UNCOUNTED = {"mimo_v2_flash", "minimax_m3", "minimax", "minimax_m1", "jamba", "mamba", "mamba2", "falcon_h1", "bamba",
              "lfm2", "granitemoehybrid", "plamo2", "zamba2"}
# Hybrids params_hybrid counts (Gated DeltaNet, Mamba2): its import waits until a config names one.
_HYBRID = ("qwen3_next", "qwen3_5", "nemotron_h")


@record(frozen=True)
class Params:
    """Counts in parameters (not billions)."""

    embed: int
    lm_head: int
    experts: int  # routed experts, all layers
    vision: int
    other: int

    @property
    def total(self) -> int:
        return self.embed + self.lm_head + self.experts + self.vision + self.other


def _i(c: Mapping[str, Any], *keys: str) -> Optional[int]:
    for k in keys:
        v = c.get(k)
        if isinstance(v, int) and not isinstance(v, bool) and v > 0:
            return v
    return None


def _attention(c: Mapping[str, Any], h: int, heads: int, kv: int, hd: int) -> int:
    if c.get("kv_lora_rank"):
        rope, nope = int(c.get("qk_rope_head_dim") or 64), int(c.get("qk_nope_head_dim") or 128)
        vhd, kvl = int(c.get("v_head_dim") or nope), int(c["kv_lora_rank"])
        ql = c.get("q_lora_rank")
        q = h * ql + ql + ql * heads * (nope + rope) if ql else h * heads * (nope + rope)
        kv_a = h * (kvl + rope) + kvl
        kv_b = kvl * heads * (nope + vhd)
        out = q + kv_a + kv_b + heads * vhd * h
        if c.get("index_n_heads") and c.get("index_head_dim") and ql:
            ih, ihd = int(c["index_n_heads"]), int(c["index_head_dim"])
            out += ql * ih * ihd + h * ihd + h * ih + 2 * ihd
        return out
    return h * heads * hd + 2 * h * kv * hd + heads * hd * h


def _kda(c: Mapping[str, Any], h: int) -> Optional[int]:
    """One Kimi Delta Attention layer: q/k/v, the decay gate (f_a, f_b), beta (b), the output gate
    (full rank g_proj, or g_a/g_b), the short convolutions, dt_bias, A_log, o_norm and o_proj, as
    sgl-project/sglang@e44a41c1c413ce470c66445745f380a50203c286:python/sglang/srt/models/kimi_k3.py
    (KimiK3DeltaAttention) builds them."""
    lac = c.get("linear_attn_config")
    heads, hd = _i(lac, "num_heads"), _i(lac, "head_dim")
    if not (heads and hd):
        return None
    p, conv = heads * hd, _i(lac, "short_conv_kernel_size") or 4
    gate = h * p if lac.get("use_full_rank_gate") else h * hd + hd * p
    return 3 * h * p + h * hd + hd * p + h * heads + gate + 3 * p * conv + p + heads + hd + p * h


def _moe_layers(c: Mapping[str, Any], n: int, mt: str) -> list:
    """Which layers carry routed experts (dbrx: every layer, its experts under ffn_config)."""
    experts = _i(c, "n_routed_experts", "num_local_experts", "num_experts", "moe_num_experts")
    if not experts:
        return [mt == "dbrx"] * n
    freq = c.get("moe_layer_freq")
    if isinstance(freq, list):  # one flag per layer
        return [bool(freq[i]) if i < len(freq) else False for i in range(n)]
    if "first_k_dense_replace" in c or freq is not None:
        k, step = int(c.get("first_k_dense_replace") or 0), int(freq or 1)
        return [i >= k and i % step == 0 for i in range(n)]
    if mt.startswith("llama4"):
        step = int(c.get("interleave_moe_layer_step") or 1)
        return [(i + 1) % step == 0 for i in range(n)]
    only = set(c.get("mlp_only_layers") or [])
    step = int(c.get("decoder_sparse_step") or 1)
    return [i not in only and (i + 1) % step == 0 for i in range(n)]


def minimax_m3_split(text: Mapping[str, Any]) -> Optional[Params]:
    """MiniMax-M3's embeddings, LM head and routed experts (other and vision 0: not counted here, the catalog keeps
    the published total). Its MoE layers are those moe_layer_freq flags (no list: every layer), each of
    num_local_experts gate/up/down experts of hidden_size x intermediate_size (MiniMaxM3SparseMoeBlock:
    `intermediate_size=config.intermediate_size`, `_is_moe_layer` `moe_layer_freq[layer_id] != 0`,
    sglang==0.5.23:sglang/srt/models/minimax_m3.py). None without those dimensions."""
    h, n, vocab = _i(text, "hidden_size"), _i(text, "num_hidden_layers"), _i(text, "vocab_size")
    experts, inter = _i(text, "num_local_experts"), _i(text, "intermediate_size")
    if not (h and n and vocab and experts and inter):
        return None
    freq = text.get("moe_layer_freq")
    moe = sum(1 for i in range(n) if freq[i]) if isinstance(freq, list) and len(freq) >= n else n
    embed = vocab * h
    return Params(embed=embed, lm_head=0 if text.get("tie_word_embeddings") else embed,
                  experts=moe * experts * 3 * h * inter, vision=0, other=0)


# A vision_config written as a diff from its class defaults leaves out the keys the count reads:
# mistral-community/pixtral-12b's gives head_dim, image_size and patch_size only, so the tower is
# PixtralVisionConfig's defaults (huggingface/transformers@f549eadf3a6a3f238935c0486ea960b5b7f45df8:
# src/transformers/models/pixtral/configuration_pixtral.py: hidden_size 1024, intermediate_size 4096,
# num_hidden_layers 24), which Pixtral-12B-2409's own params.json states too.
_VISION_DEFAULTS = {"pixtral": {"hidden_size": 1024, "intermediate_size": 4096, "num_hidden_layers": 24}}


def _vision(v: Any) -> int:
    """A ViT-style tower: per block attention 4h^2 + MLP 2h x inter (an estimate; ~1% of a VLM)."""
    if not isinstance(v, Mapping):
        return 0
    v = {**_VISION_DEFAULTS.get(str(v.get("model_type", "")), {}), **{k: x for k, x in v.items() if x is not None}}
    # a tower giving embed_dim (Qwen2-VL) is that wide, its MLP embed_dim x mlp_ratio; its hidden_size is the
    # merger's output, the language model's width (vllm-0.11.0 wheel: qwen2_vl.py Qwen2VisionTransformer)
    h = _i(v, "embed_dim") or _i(v, "hidden_size", "width")
    depth = _i(v, "num_hidden_layers", "depth", "layers")
    if not h or not depth:
        return 0
    ratio = v.get("mlp_ratio") if _i(v, "embed_dim") else None
    wide = int(ratio * h) if isinstance(ratio, (int, float)) and not isinstance(ratio, bool) and ratio > 0 else 0
    inter = _i(v, "intermediate_size", "mlp_dim") or wide or 4 * h
    patch = _i(v, "patch_size") or 14
    return depth * (4 * h * h + 2 * h * inter) + 3 * patch * patch * h


def count(config: Mapping[str, Any], text: Mapping[str, Any], kv_heads: Optional[int] = None,
          head_dim: Optional[int] = None) -> Optional[Params]:
    """`text` is the decoder's part of `config` (its text_config for VLMs); `kv_heads` and
    `head_dim` as the config parser read them (ChatGLM, Falcon and DeciLM spell them their own
    way). None when a layer kind is not covered or a dimension is missing: a wrong count is
    worse than none."""
    mt = str(text.get("model_type", "")).lower()
    hybrid = mt.startswith(_HYBRID)
    if mt in _UNCOUNTED or not hybrid and text.get("layer_types") and any(
            "linear" in str(t) or "mamba" in str(t) for t in text.get("layer_types") or ()):
        return None
    if _i(text, "hidden_size_per_layer_input") or _i(text, "num_kv_shared_layers"):
        # Gemma-3n / Gemma-4 E2B, E4B: per-layer embedding tables (vocab_size_per_layer_input x layers x
        # hidden_size_per_layer_input), MLPs twice as wide in the KV-shared layers (use_double_wide_mlp) and an
        # audio tower (vllm==0.33.0:vllm/model_executor/models/gemma4.py), which this count does not know
        return None
    h, n, vocab = _i(text, "hidden_size", "n_embd", "d_model", "n_embed"), _i(text, "num_hidden_layers", "n_layer", "num_layers", "n_layers"), \
        _i(text, "vocab_size")
    heads = _i(text, "num_attention_heads", "n_head", "n_heads")
    if not (h and (n or mt == "nemotron_h") and vocab and heads):  # Nemotron-H may list its blocks only
        return None
    kv = kv_heads or _i(text, "num_key_value_heads", "num_kv_heads") or (1 if text.get("multi_query") else heads)
    hd = head_dim or _i(text, "head_dim") or h // heads
    if isinstance(text.get("block_configs"), list) and text["block_configs"]:  # DeciLM / Nemotron-NAS
        return _decilm(config, text, h, vocab, heads, hd)
    if hybrid:
        from . import params_hybrid

        return params_hybrid.count(config, text, mt, h, n or 0, vocab, heads, kv, hd)
    ffn = text.get("ffn_config") if isinstance(text.get("ffn_config"), Mapping) else {}
    inter = _i(text, "intermediate_size", "ffn_hidden_size", "n_inner") or _i(ffn, "ffn_hidden_size")
    if mt == "dbrx":
        kv = _i(text.get("attn_config") or {}, "kv_n_heads") or kv
    experts = _i(text, "n_routed_experts", "num_local_experts", "num_experts", "moe_num_experts") or \
        _i(ffn, "moe_num_experts") or 0
    if not inter and mt in ("falcon", "gpt2", "gpt_neox", "bloom", "mpt", "opt"):
        inter = _i(text, "ffn_dim") or 4 * h  # these families' MLP is 4 x hidden unless stated
    if mt == "qwen" and inter:
        # Qwen-1's intermediate_size counts its two input projections together: each is half as wide (`QWenMLP(
        # config.n_embd, config.ffn_hidden_size // 2)` in vllm-project/vllm@002800f08142574aeafed7c33982503d28d53cdc:
        # vllm/model_executor/models/qwen.py; `ff_dim_in = config.intermediate_size // 2` in Qwen's modeling_qwen.py)
        inter //= 2
    moe_inter = _i(text, "moe_intermediate_size", "expert_intermediate_size") or inter
    if not inter and not (experts and moe_inter):
        return None
    mlp_mult = 2 if mt in _PLAIN_MLP else 3
    attn = _attention(text, h, heads, kv, hd)
    v4 = None
    if mt == "deepseek_v4":  # low-rank query, one KV head, grouped low-rank output, compressors (params_dsv4)
        from . import params_dsv4

        v4 = params_dsv4.layers(text, h, n, heads, hd, experts)
        if v4 is None:
            return None
    if text.get("mla_use_output_gate"):  # Kimi-K3: sigmoid(g_proj(x)) on the MLA output, g_proj: h -> heads x v
        attn += h * heads * int(text.get("v_head_dim") or text.get("qk_nope_head_dim") or 128)
    lac = text.get("linear_attn_config")
    kda_layers = lac.get("kda_layers") if isinstance(lac, Mapping) else None
    kda_layers = {x for x in kda_layers if isinstance(x, int)} if isinstance(kda_layers, list) else set()
    kda = _kda(text, h) if kda_layers else 0
    if kda is None:
        return None
    # Latent MoE (Kimi-K3): routed experts run at routed_expert_hidden_size, between a down and an up
    # projection (and an RMSNorm) kept in 16 bits; shared experts stay at hidden_size (sglang kimi_k3.py
    # KimiK3MoE, as above).
    latent = _i(text, "routed_expert_hidden_size") or h
    routed = other = 0
    moe = _moe_layers(text, n, mt) if experts else [False] * n
    shared_n = int(text.get("n_shared_experts") or text.get("num_shared_experts") or 0)
    shared_inter = _i(text, "shared_expert_intermediate_size")
    dense_inter = _i(text, "intermediate_size_mlp") if mt.startswith("llama4") else inter
    kinds = text.get("layer_types") if isinstance(text.get("layer_types"), list) else []
    full_attn, beside = None, 0  # Gemma 4: wider full-attention layers, a dense MLP beside the experts
    if mt.startswith("gemma4"):
        from .params_layouts import gemma4_dense_beside_experts, gemma4_full_attention

        full_attn = gemma4_full_attention(text, h, heads, kv)
        beside = gemma4_dense_beside_experts(text, h, inter, experts) if inter else 0
    for i, is_moe in enumerate(moe):
        wide = full_attn is not None and i < len(kinds) and kinds[i] == "full_attention"
        other += (kda if i + 1 in kda_layers else v4[i] if v4 else full_attn if wide else attn) + 2 * h
        if text.get("attn_res_block_size"):
            other += 4 * h  # attention residuals: a norm and a 1-wide projection before attention and MLP
        if is_moe:
            routed += experts * 3 * latent * moe_inter
            other += h * experts  # router
            other += beside
            if latent != h:
                other += 2 * h * latent + latent
            if shared_inter:
                other += 3 * h * shared_inter + h  # Qwen2-MoE: one shared expert and its gate
            elif shared_n:
                other += shared_n * 3 * h * moe_inter
            elif mt.startswith("llama4"):
                other += 3 * h * inter  # Llama-4: one shared expert of intermediate_size
        else:
            other += mlp_mult * h * (dense_inter or inter or moe_inter)
    other += h  # final norm
    if v4:
        from .params_dsv4 import head

        other += head(text, h)
    embed = vocab * h
    tied = text.get("tie_word_embeddings", config.get("tie_word_embeddings"))
    if tied is None:
        tied = mt in _TIED_BY_DEFAULT or any(a in _TIED_CLASSES for a in config.get("architectures") or ())
    lm_head = 0 if tied else vocab * h
    if any(a in _SCORE_HEAD_CLASSES for a in config.get("architectures") or ()):
        lm_head = h
    vision = _vision_tower(config, h)
    if vision is None:
        return None
    return Params(embed=embed, lm_head=lm_head, experts=routed, vision=vision, other=other)


def _vision_tower(config: Mapping[str, Any], text_hidden: int) -> Optional[int]:
    """Qwen2.5-VL's and Gemma 4's towers (and Gemma 4 Unified's embedder) counted tensor by tensor
    (params_layouts), others estimated by _vision."""
    v = config.get("vision_config")
    if isinstance(v, Mapping) and (str(v.get("model_type")) == "gemma4_unified_vision"
                                   or str(config.get("model_type")) == "gemma4_unified"):
        from .params_layouts import gemma4_unified_vision

        return gemma4_unified_vision(v, text_hidden)
    if isinstance(v, Mapping) and "qwen2_5_vl" in (str(config.get("model_type")), str(v.get("model_type"))):
        from .params_layouts import qwen25_vision

        return qwen25_vision(v, text_hidden)
    if isinstance(v, Mapping) and (str(v.get("model_type")) == "gemma4_vision"
                                   or str(config.get("model_type", "")).startswith("gemma4")):
        from .params_layouts import gemma4_vision

        counted = gemma4_vision(v, text_hidden)
        if counted is not None:
            return counted  # a vision_config without the tower's dimensions: the estimate below, as before
    return _vision(v)


def _decilm(config: Mapping[str, Any], text: Mapping[str, Any], h: int, vocab: int, heads: int,
            hd: int) -> Optional[Params]:
    from .params_layouts import decilm_layers

    layers = decilm_layers(text["block_configs"], h, heads, hd)
    if layers is None:
        return None
    tied = text.get("tie_word_embeddings", config.get("tie_word_embeddings"))
    return Params(embed=vocab * h, lm_head=0 if tied else vocab * h, experts=0, vision=0, other=layers + h)
