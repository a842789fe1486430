"""vLLM's VLLM_PP_LAYER_PARTITION: the decoder layers each pipeline stage holds, as comma-separated counts.

vLLM builds each stage's layers from get_pp_indices (vllm-project/vllm@5a6541d:vllm/distributed/utils.py; every
model built with make_layers asks it, at PP 1 too): with the variable set it reads `int(layer)` of each
comma-separated part and raises ValueError, so the engine does not start, when a part is no integer ("Invalid
partition string: ..."), when their number is not the PP size ("len(partitions)=N does not match pp_size=P.") or
when their sum is not the model's layer count ("sum(partitions)=S does not match num_hidden_layers=L."). Stage i
holds the layers from the sum of the parts before it on. The stage with the most layers decides what one GPU
holds (its weights and KV), so the pool follows it, not an even split (kv.py, gpu_weights.py).
"""
from __future__ import annotations

from typing import Any, Mapping, Optional

ENV = "VLLM_PP_LAYER_PARTITION"


def stated(settings: Mapping[str, Any]) -> Optional[str]:
    """The variable's text in a role's settings (its environment), or None when it is not set."""
    value = settings.get(ENV)
    return value if isinstance(value, str) else None


def parts(text: str) -> tuple[Optional[tuple[int, ...]], str]:
    """(the counts, "") as vLLM reads them (Python's int() of each part, as get_pp_indices calls it), or (None,
    vLLM's error) for a part that is no integer."""
    try:
        return tuple(int(p) for p in text.split(",")), ""
    except ValueError:
        return None, f"Invalid partition string: {text}"


def refusal(text: str, pp: int, num_layers: Optional[int]) -> str:
    """vLLM's ValueError for this value at this PP size and layer count ("" when it reads it; the sum is checked
    only with the layer count known)."""
    sizes, err = parts(text)
    if sizes is None:
        return err
    if len(sizes) != pp:
        return f"len(partitions)={len(sizes)} does not match pp_size={pp}."
    if num_layers is not None and sum(sizes) != num_layers:
        return f"sum(partitions)={sum(sizes)} does not match num_hidden_layers={num_layers}."
    return ""


def stage_sizes(settings: Mapping[str, Any], pp: int, num_layers: int) -> Optional[tuple[int, ...]]:
    """The layers of each stage vLLM builds from the variable, or None when it is not set or vLLM refuses it
    (the refusal is CTX301; the estimate keeps the even split)."""
    text = stated(settings)
    if text is None or refusal(text, pp, num_layers):
        return None
    return parts(text)[0]


def even_split(num_layers: int, pp: int) -> tuple[int, ...]:
    """vLLM's own split without the variable (get_pp_indices): equal parts, the remainder one layer each to the
    stages before the last, from the second-to-last back."""
    pp = max(1, pp)
    base, rest = divmod(num_layers, pp)
    sizes = [base] * pp
    for i in range(2, min(rest, pp - 1) + 2):
        sizes[-i] += 1
    return tuple(sizes)
