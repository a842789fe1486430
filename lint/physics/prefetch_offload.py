"""vLLM's prefetch offloading (`--offload-group-size N --offload-num-in-group K`): of every N decoder layers the
last K keep their weights in host memory and are copied into a pool of `--offload-prefetch-step` layer buffers
ahead of use (PrefetchOffloadConfig, vllm==0.23.0:vllm/config/offload.py; the buffer pool in
vllm/model_executor/offloader/prefetch.py). Only the layers' share of the weights is known here, not each layer's
own size, so the saving widens the band rather than moving a verdict: the low end drops by every offloaded
layer's share of the weights on the GPU (no buffer), the point by that share less the prefetch buffers, the high
end not at all (`--offload-params` may keep most of a layer on the GPU; then the point does not move either)."""
from __future__ import annotations

from typing import Any, Mapping

from .terms import GIB, Term


def _count(settings: Mapping[str, Any], key: str, default: int) -> int:
    try:
        value = int(settings.get(key, default))
    except (TypeError, ValueError, OverflowError):
        return default
    return value if value >= 0 else default


def offloaded_layers(layers: int, group: int, in_group: int) -> int:
    """Layers whose weights stay in host memory: the last `in_group` of each full or partial group of `group`."""
    if group <= 0 or layers <= 0:
        return 0
    in_group = min(max(in_group, 0), group)
    whole, rest = divmod(layers, group)
    return whole * in_group + max(0, rest - (group - in_group))


def prefetch_offloaded(settings: Mapping[str, Any], layers: int, weights: Term, formula: str,
                       asm: list[str]) -> tuple[Term, str]:
    """`weights` (per GPU) with vLLM's prefetch offloading read off them, as a band (see the module)."""
    group = _count(settings, "offload_group_size", 0)
    off = offloaded_layers(layers, group, _count(settings, "offload_num_in_group", 1))
    if not off:
        return weights, formula
    step = min(_count(settings, "offload_prefetch_step", 1), off)
    share = off / layers
    whole = bool(settings.get("offload_params"))  # named parameters only: the point stays where it was
    point = weights.point if whole else weights.point * (1 - (off - step) / layers)
    low = weights.low * (1 - share)
    asm.append(f"offload_group_size {group}: {off} of {layers} layers' weights in host memory, {step} prefetched "
               f"at a time; the band's low end takes off up to {weights.low * share / GIB:.2f} GiB a GPU, its high "
               "end nothing (each layer's size is not known here)")
    return Term("weights", min(point, weights.point), min(low, point), weights.high, weights.how), \
        f"{formula} - offloaded layers {off}/{layers} (prefetch {step})"
