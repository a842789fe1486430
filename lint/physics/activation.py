"""The activation peak of an engine's profile run, as a band.

Engines size the KV cache after a dummy forward pass of their largest batch (vLLM's
`profile_run` of `max_num_batched_tokens`, TGI's warmup of `max_batch_prefill_tokens`,
TRT-LLM's of `max_num_tokens`) and count its peak as used. The peak is what the largest
transient buffers of one layer need at once:
- hidden states and residuals: about six `tokens x hidden` buffers in the model dtype
  (not sharded: every tensor-parallel rank holds the full residual stream);
- the MLP: the gate/up projection and its activation, `tokens x 3 x intermediate / TP`
  (MoE: each token's top-k experts, `tokens x k x 3 x expert_intermediate / TP`);
- attention: q, k, v and the output, `tokens x (heads + 2 kv heads) x head_dim / TP`;
- the sampler (vLLM >= 0.8 `_dummy_sampler_run`): fp32 logits of one token per sequence and
  the sampling temporaries, `max_num_seqs x vocab x 8` bytes; boot logs of vLLM 0.12-0.16
  show peaks of `x 38` instead (Llama-3.1-8B on H100: 4.76 GiB, Qwen3-14B: 5.64 GiB on 0.16.0,
  2.23 on 0.17.0; gpt-oss-20b with its 201,088-entry vocabulary 7.38 GiB);
- V1 0.7.0-0.7.2 computed logits for every batched token (`tokens x vocab x 4`).
Fitted against public boot logs (tests/physics/calibration.yaml). The band is 0.9x-1.3x.
"""
from __future__ import annotations

from .models import ModelArch
from .terms import Term

LOW, HIGH = 0.9, 1.3


def _widths(arch: ModelArch) -> tuple[int, int, int]:
    """(hidden, MLP width per token, attention width) of the model."""
    hidden = arch.hidden_size or arch.num_attention_heads * arch.head_dim
    if arch.num_experts and arch.experts_per_token:
        expert = arch.moe_intermediate_size or arch.intermediate_size or 4 * hidden
        # each token's top-k experts, or the dense MLP of the first layers (DeepSeek) if wider
        mlp = max(int(arch.experts_per_token) * expert, arch.intermediate_size or 0)
    else:
        mlp = arch.intermediate_size or 4 * hidden
    attn = (arch.num_attention_heads + 2 * arch.num_kv_heads) * arch.head_dim
    return hidden, mlp, attn


def forward_buffers(arch: ModelArch, tokens: int, tp: int) -> float:
    """Bytes of the transient buffers of a forward pass over `tokens` batched tokens, per GPU."""
    hidden, mlp, attn = _widths(arch)
    dt = arch.dtype_bytes
    tp = max(1, tp)
    return tokens * (6 * hidden * dt + (3 * mlp * dt + attn * dt) / tp)


def sampler_bytes(arch: ModelArch, seqs: int, per_entry: int = 8) -> float:
    return seqs * (arch.vocab_size or 128_256) * per_entry


def all_token_logits(arch: ModelArch, tokens: int) -> float:
    return tokens * (arch.vocab_size or 128_256) * 4


def profile_peak(arch: ModelArch, tokens: int, seqs: int, tp: int, logits_all: bool = False,
                 sampler_entry: int = 8, label: str = "activation peak") -> Term:
    """The profile run's peak: forward buffers plus the larger of the sampler and, where the
    engine computes them, every batched token's logits."""
    buffers = forward_buffers(arch, tokens, tp)
    sampler = sampler_bytes(arch, seqs, sampler_entry)
    every = all_token_logits(arch, tokens) if logits_all else 0.0
    vocab = arch.vocab_size or 128_256
    point = buffers + max(sampler, every)
    how = f"{tokens} tokens of forward buffers + sampler {seqs} x {vocab} x {sampler_entry} B" + (
        f", logits of all {tokens} tokens" if logits_all else "")
    return Term(label, point, point * LOW, point * HIGH, how)
