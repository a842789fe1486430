"""What TensorRT-LLM holds besides the weights before it sizes the KV cache, by backend.

- PyTorch backend (`KvCacheCreator`, tensorrt_llm/_torch/pyexecutor/_util.py): a dummy warmup of
  `max_num_tokens` is measured; the one public log with all figures (Llama-3.1-8B FP8 on H100, 0.20)
  shows ~12 GiB above the weights at 8,192 tokens, which `tokens x (48 x hidden + 8 x vocab) / TP`
  follows; the band reaches the bare forward buffers with every token's logits.
- TensorRT backend (an engine `trtllm-build` compiled: `trtllm-serve --backend tensorrt`, trtllm-serve's
  default before 1.0, Baseten's Engine-Builder-LLM): no warmup runs. The engine's execution context
  holds the activations TensorRT planned for `max_num_tokens`, and the logits only of each sequence's
  last token, since `gather_context_logits` is off unless the build turns it on (BuildConfig,
  tensorrt_llm/builder.py; NVIDIA/TensorRT-LLM@008b2b8d23af95e4e19fa6f354f9c5f6349b2bfc). Every token's logits,
  the PyTorch figure's `8 x vocab` per token, would overstate it: at `max_num_tokens` 131,072 they alone are
  125 GiB for Llama-3.1-8B (149 GiB with the forward buffers), a model Baseten's Briton example builds
  for 131,072-token sequences on one H100 (basetenlabs/truss-examples@417f084c0c5e63a493b1f84374f4ecfcd9ee50a2:
  11-embeddings-reranker-classification-tensorrt/Briton-meta-llama-llama-3.1-8b-instruct-with-speculative-
  lookahead-decoding-fp8/config.yaml, which sets no `max_num_tokens` itself). With in-flight batching
  `max_batch_size` does not size them (NVIDIA/TensorRT-LLM#1222, kaiyux). The point is the forward buffers of `max_num_tokens` and one logit row per
  sequence; the band reaches up to the PyTorch figure without the logits, since TensorRT's own plan
  was not read. Before the KV cache is sized the C++ runtime also allocates its I/O and decoder buffers
  "based on runtime max_batch_size and max_seq_len" (NVIDIA/TensorRT-LLM@7ff5302377eb3063d2c056746f686eebb23184bc:
  docs/source/reference/memory.md 3.1): the one public log that gives them with its whole configuration
  (benchmarks/Suite.md at 0.12.0.dev2024073000: Llama-2-7B FP8, batch 4096, vocab 32,000) shows 1.14 GB of
  runtime buffers and 4.35 GB of decoder, about RUNTIME_BYTES per vocabulary entry per sequence against
  the point's 8, so the band's top holds them (their split by max_seq_len is not known: NVIDIA/TensorRT-LLM#2317
  saw them grow with Llama-3.1's 131,072).
"""
from __future__ import annotations

from typing import Any, Mapping, Optional

from .activation import profile_peak
from .models import ModelArch
from .terms import Term

ENGINE_BACKENDS = ("tensorrt", "trt")  # `trt` is 0.2x's spelling, later an alias
# (1.14 + 4.35) GB, read as GiB, over 4,096 sequences x 32,000 entries (the Suite.md log above): bytes of runtime
# and decoder buffers per vocabulary entry of each sequence
RUNTIME_BYTES = 45


# set in a role's settings (mark_unknown) when a file or a variable ctxlint cannot read may set `backend`
BACKEND_UNKNOWN = "_backend_unknown"


def mark_unknown(role: Any, settings: dict) -> None:
    """A trtllm-serve role whose `backend` an unread LLM-API options file (trtllm-serve merges it into its
    arguments, `backend` among them) or an unresolved value may set: the release's default is a guess."""
    if "backend" not in settings and (role.settings_unread is not None or "backend" in role.unresolved_settings):
        settings[BACKEND_UNKNOWN] = True


def runs_engine(settings: Mapping[str, Any], version: Optional[str]) -> bool:
    """True when the role runs a compiled TensorRT engine: `backend` says so, or the release's default
    does (before 1.0); a release not known and no backend is read as PyTorch, as before, and so is a
    backend a file or variable ctxlint does not read may set."""
    stated = settings.get("backend")
    if isinstance(stated, str) and stated.strip():
        return stated.strip().lower() in ENGINE_BACKENDS
    if not version or settings.get(BACKEND_UNKNOWN):
        return False
    from ctxlint.engines.flags_trtllm import SPEC_  # only a TensorRT-LLM role with a release pays for it

    defaults = SPEC_.by_name("backend").default_at(str(version))
    return len(defaults) == 1 and defaults[0] in ENGINE_BACKENDS


def warmup(arch: ModelArch, tokens: int, batch: int, tp: int, engine: bool) -> Term:
    """The term taken from the device memory before the KV budget, per GPU."""
    hidden = arch.hidden_size or arch.num_attention_heads * arch.head_dim
    forward = tokens * 48 * hidden / max(1, tp)
    if engine:
        plan = profile_peak(arch, tokens, batch, tp, label="engine activations")
        # the runtime and decoder buffers beyond the point's one row of 8 B per entry (not split by TP: each
        # rank's decoder holds the whole vocabulary)
        buffers = batch * (arch.vocab_size or 128_256) * (RUNTIME_BYTES - 8)
        return Term("engine activations", plan.point, plan.low, max(plan.high, forward) + buffers,
                    f"{tokens} tokens of forward buffers + last-token logits of {batch} sequences (band: the "
                    f"runtime's decoder buffers)")
    bare = profile_peak(arch, tokens, batch, tp, "yes", label="warmup peak")
    heavy = forward + tokens * 8 * (arch.vocab_size or 128_256) / max(1, tp)
    # the logged peak is per GPU (divided by TP); the bare forward buffers need not shrink as much, so the
    # band spans both ways (at TP > 1 the point is below the bare buffers' figure: still inside its band)
    return Term("warmup peak", heavy, min(heavy, bare.point), max(heavy, bare.high),
                f"{tokens} tokens (x {batch} batch)")
