"""Models whose attention places tokens by ALiBi biases, not by a rotary embedding or a position table.

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
"""
from __future__ import annotations

from typing import Any

_FAMILIES = {"mpt": "MPT", "bloom": "BLOOM"}


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
