"""vLLM's V0 engine profile and the 0.2.5-0.6.3 multi-GPU profile, split from mem_vllm.py (which re-exports
them): the rules of releases before V1 became the default.
"""
from __future__ import annotations

from typing import Any, Mapping, Optional

from ctxlint.versions import parse_version

from .activation import profile_peak
from .models import ModelArch
from .terms import Term

_V0_5_3, _V0_6_6 = parse_version("0.5.3"), parse_version("0.6.6")


def _v(version: Optional[str]):
    return parse_version(version) if version else None


def _at_least(v, bound) -> bool:
    return v is not None and v >= bound


def _between(v, low, high) -> bool:
    return v is not None and low <= v < high


def v0_tokens(settings: Mapping[str, Any], context: Optional[int], version: Optional[str]) -> int:
    chunked = settings.get("enable_chunked_prefill")
    v = _v(version)
    auto = chunked is None and context is not None and context > 32768 and _at_least(v, _V0_5_3)
    if chunked is True or auto:
        return 512 if v is not None and v < _V0_6_6 else 2048
    return max(context or 0, 2048)


def v0_peak(arch: ModelArch, tokens: int, tp: int, version: Optional[str]) -> Term:
    """V0's profile peak: 0.6.6 and later measure the torch peak of the profile run, and logged
    9.37 GiB for 8192 tokens of Llama-3-8B on an A100 (vllm#12330), what ~24 hidden-sized bf16
    buffers per token plus logits twice over the vocabulary give; 0.6.4 and earlier logged 2.07 GiB
    for 20,000 tokens of Llama-3.1-8B (vllm#10517), close to the forward buffers alone. An unknown
    V0 version takes the former."""
    v = _v(version)
    if v is not None and v < _V0_6_6:
        peak = profile_peak(arch, tokens, 256, tp)
        return Term("activation peak (V0 profile)", peak.point, peak.low, peak.high, peak.how)
    hidden = arch.hidden_size or arch.num_attention_heads * arch.head_dim
    vocab = arch.vocab_size or 128_256
    point = tokens * (48 * hidden + 8 * vocab) / max(1, tp)
    # One boot log fixes this fit; the forward buffers and one sampled token per sequence (what
    # the profile run's code computes) are the least it can be, so the band reaches down to them.
    least = profile_peak(arch, tokens, 256, tp).low
    return Term("activation peak (V0 profile)", point, min(point * 0.95, least), point * 1.1,
                f"{tokens} x (48 x {hidden} + 8 x {vocab}) / {tp} B")


# vLLM 0.2.5 to 0.6.3 across several GPUs logged pools far below what the memory leaves: from 0.2.5 the
# profile's peak was the device's used memory (init - free), so NCCL buffers and the allocator's cache
# count against the KV cache. Llama-2-70B at TP 4 on A100-80GB: 31,615 blocks before that change (about
# what the rest of this model gives), 20,865 with it (vllm-project/vllm#2031, 0.68 of it, while TP 1
# moved by 1%); CodeLlama-13B at TP 2 on two RTX 4090 fell from 1,464 blocks to 112
# (vllm-project/vllm#2136, 1/13). 0.6.4's memory_profiling, which the V0 terms here are fitted to,
# ended it. The budget is scaled: the point and the band's top at the #2031 ratio (with a little room
# each way), the floor at the #2136 one (with margin).
OLD_MULTI_GPU = ("0.2.5", "0.6.4")
OLD_MULTI_GPU_SCALE = (0.66, 1 / 14, 0.69)  # point, floor, top
_OLD_MULTI_GPU = tuple(parse_version(text) for text in OLD_MULTI_GPU)


def old_multi_gpu(version: Optional[str], gpus: int) -> Optional[str]:
    """Why the budget of a 0.2.5-0.6.3 release across GPUs is scaled into a wide band, or None."""
    if gpus <= 1 or not _between(_v(version), *_OLD_MULTI_GPU):
        return None
    point, floor, top = OLD_MULTI_GPU_SCALE
    return (f"vLLM {version} across {gpus} GPUs (0.2.5-0.6.3): the profile counts NCCL and allocator memory "
            f"against the KV cache; logged pools fell to 0.68 (vllm-project/vllm#2031) and 1/13 "
            f"(vllm-project/vllm#2136) of the memory left: budget x {point:g}, band x {floor:.2f} to x {top:g}")
