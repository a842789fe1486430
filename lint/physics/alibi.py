"""Models whose attention places tokens by ALiBi biases, or by a learned position table, not by a rotary embedding.

RoPE scaling cannot stretch such a model's positions: it has no rotary embedding to scale. The engines
read its length from the same config keys as any model's (MPT: max_seq_len) and refuse a longer one unless
their switch is set; with the switch, ALiBi extrapolates past the trained length (no table to overrun).
A config with none of vLLM's keys (bigscience/bloom, bloom-7b1, bloom-560m) has no length vLLM enforces:
_get_and_verify_max_len returns a given max_model_len as is when no key is found, and assumes 2048 only when
none is given (vllm-project/vllm@0052a5b818980ce8a0477706aaf9f75bd5af72cd:vllm/config/model.py).

- MPT: vLLM's MPTAttention asserts `config.attn_config.alibi` and drops `position_ids` ("unused")
  (vllm-project/vllm@02d799bcfa7192d80c69329d6bbfc5189efeb87d:vllm/model_executor/models/mpt.py).
- BLOOM: BloomAttention builds ALiBi slopes and drops `position_ids`
  (vllm-project/vllm@01dbb08195ca9c70ac9044786a906a353e07fcdf:vllm/model_executor/models/bloom.py).
- Baichuan 13B and Baichuan2 13B: BaichuanForCausalLM takes ALIBI unless hidden_size is 4096 (Baichuan2 7B, ROPE)
  (vllm-project/vllm@6b06599499a6f9d6f140ae26ff95b3cbd2e7e75c:vllm/model_executor/models/baichuan.py;
  sgl-project/sglang@03a7d4f4290c070704f7e2c9ad3ac76ed8c4cfbd:python/sglang/srt/models/baichuan.py alike).

A learned absolute position table (learned_table_family) has one row per position the model was trained for:
RoPE scaling has nothing to stretch, and a position past the last row is an index the table does not have, so
the engines' long-context switch lets them start above it but cannot make such a position servable.

- GPT-2 (distilgpt2): GPT2Model's `wpe = nn.Embedding(config.max_position_embeddings, ...)` (n_positions), added
  to the token embeddings by position_ids
  (vllm-project/vllm@017689429418547490506c3bf52419a806c115d7:vllm/model_executor/models/gpt2.py).
- OPT: OPTLearnedPositionalEmbedding, an nn.Embedding of max_position_embeddings rows (plus OPT's offset of 2, which
  the positions are shifted by) (vllm-project/vllm@3374d8fa7c7e2a95ae774601bd9a351623c930dc:
  vllm/model_executor/models/opt.py).
- GPTBigCode (StarCoder 1, SantaCoder): GPTBigCodeModel's `wpe = nn.Embedding(config.max_position_embeddings, ...)`
  (vllm-project/vllm@2758bed7fb2f428f00ebb90ac75ba7cb95173856:vllm/model_executor/models/gpt_bigcode.py).
Only these three were read in the engine's code: any other architecture keeps the RoPE-based advice.
"""
from __future__ import annotations

from typing import Any

_FAMILIES = {"mpt": "MPT", "bloom": "BLOOM"}
_LEARNED = {"gpt2": "GPT-2", "opt": "OPT", "gpt_bigcode": "GPTBigCode"}


def alibi_family(arch: Any) -> str:
    """The family name of an ALiBi model ("MPT", "BLOOM", "Baichuan-13B"), "" for any other or no model."""
    if arch is None:
        return ""
    model_type = str(getattr(arch, "model_type", None) or "").lower()
    if model_type in _FAMILIES:
        return _FAMILIES[model_type]
    hidden = getattr(arch, "hidden_size", None)
    if model_type == "baichuan" and isinstance(hidden, int) and hidden != 4096:
        return "Baichuan-13B"
    return ""


def learned_table_family(arch: Any) -> str:
    """The family name of a model with a learned absolute position table ("GPT-2", "OPT", "GPTBigCode"), "" for any
    other or no model."""
    if arch is None:
        return ""
    return _LEARNED.get(str(getattr(arch, "model_type", None) or "").lower(), "")
