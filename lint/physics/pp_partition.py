"""vLLM's VLLM_PP_LAYER_PARTITION and SGLang's SGLANG_PP_LAYER_PARTITION: the decoder layers each pipeline stage
holds, as comma-separated counts.

vLLM builds each stage's layers from get_pp_indices (vllm-project/vllm@5a6541d:vllm/distributed/utils.py; every
model built with make_layers asks it, at PP 1 too): with the variable set it reads `int(layer)` of each
comma-separated part and raises ValueError, so the engine does not start, when a part is no integer ("Invalid
partition string: ..."), when their number is not the PP size ("len(partitions)=N does not match pp_size=P.") or
when their sum is not the model's layer count ("sum(partitions)=S does not match num_hidden_layers=L."). Stage i
holds the layers from the sum of the parts before it on. The stage with the most layers decides what one GPU
holds (its weights and KV), so the pool follows it, not an even split (kv.py, gpu_weights.py).

SGLang's get_pp_indices is a copy with its own variable and the same three errors (sglang==0.5.23:
sglang/srt/distributed/utils.py; sgl-project/sglang@3e5a73c the same), which from some release ignores the
variable at PP 1 (0.5.23: "A singleton draft PP group owns every layer"; @3e5a73c does not): at PP 1 a value is
not judged for SGLang. Its own split gives the last `remainder` stages one layer more (kv._stage_slices).
"""
from __future__ import annotations

from typing import Any, Mapping, Optional

ENV = "VLLM_PP_LAYER_PARTITION"
VARS = {"vllm": ENV, "sglang": "SGLANG_PP_LAYER_PARTITION"}  # each engine's variable


def stated(settings: Mapping[str, Any], engine: str = "vllm") -> Optional[str]:
    """The engine's variable's text in a role's settings (its environment), or None when it is not set."""
    value = settings.get(VARS.get(engine, ENV))
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


def stage_sizes(settings: Mapping[str, Any], pp: int, num_layers: int,
                engine: str = "vllm") -> Optional[tuple[int, ...]]:
    """The layers of each stage the engine builds from its variable, or None when it is not set or the engine
    refuses it (the refusal is CTX301; the estimate keeps the even split)."""
    text = stated(settings, engine)
    if text is None or pp <= 1 or refusal(text, pp, num_layers):
        return None
    return parts(text)[0]


def even_split(num_layers: int, pp: int, engine: str = "vllm") -> tuple[int, ...]:
    """The engine's own split without the variable (get_pp_indices): equal parts, the remainder one layer each to
    the stages before the last, from the second-to-last back (vLLM), or to the last ones (SGLang 0.5.23)."""
    pp = max(1, pp)
    base, rest = divmod(num_layers, pp)
    sizes = [base] * pp
    for i in range(2 if engine == "vllm" else 1, (min(rest, pp - 1) + 2) if engine == "vllm" else rest + 1):
        sizes[-i] += 1
    return tuple(sizes)
