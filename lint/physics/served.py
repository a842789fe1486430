"""What the engine holds on each GPU, as the deployment sets it: the dtype it serves in, whether the
weight format in force is a plain float one, and weights kept in host memory (`--cpu-offload-gb`)."""
from __future__ import annotations

import dataclasses
import math
from typing import Any, Mapping

from .models import ModelArch
from .terms import GIB, Term
from .weights import WeightFormat


# `--dtype` names (vLLM, SGLang, TGI spell them alike) and the dtype each serves in.
_SERVED_AS = {"half": "float16", "float16": "float16", "fp16": "float16", "bfloat16": "bfloat16", "bf16": "bfloat16",
              "float": "float32", "float32": "float32", "fp32": "float32"}


def serving_dtype(arch: ModelArch, asked: Any, asm: list[str]) -> ModelArch:
    """The dtype the engine serves in: `--dtype` when stated; with "auto", the checkpoint's,
    except that float32 checkpoints are served in 16 bits (vLLM's ModelConfig: "auto" uses FP16
    for FP32 and FP16 models, BF16 for BF16 models; SGLang and TGI do likewise)."""
    served = _SERVED_AS.get(str(asked or "auto").strip().lower())
    if served is None and arch.dtype_bytes == 4:
        served = "float16"
        asm.append("float32 checkpoint served in 16 bits (dtype auto)")
    if served is None or served == str(arch.dtype).lower():
        return arch
    # A float32 checkpoint's published size is not what a 16-bit engine holds.
    size = arch.checkpoint_bytes if (arch.dtype_bytes == 4) == (served == "float32") else None
    return dataclasses.replace(arch, dtype=served, checkpoint_bytes=size)


def offloaded(engine: str, settings: Mapping[str, Any], weights, formula: str, asm: list[str]):
    """Weights left on each GPU with `--cpu-offload-gb` (vLLM, SGLang: GiB of weights per GPU kept in
    host memory and streamed in for each forward). Whole tensors move, so up to one layer's worth of
    the budget may stay unused: the band's top keeps 0.5 GiB more on the GPU."""
    try:
        gib = float(settings.get("cpu_offload_gb") or 0) if engine in ("vllm", "sglang") else 0.0
    except (TypeError, ValueError):
        gib = 0.0
    if weights is None or not math.isfinite(gib) or gib <= 0:
        return weights, formula
    off = gib * GIB
    how = f"{weights.how} - cpu_offload_gb {gib:g} GiB"
    asm.append(f"cpu_offload_gb {gib:g}: up to {gib:g} GiB of weights per GPU live in host memory")
    fitted = Term("weights", max(0.0, weights.point - off), max(0.0, weights.low - off),
                  max(0.0, weights.high - off + 0.5 * GIB), how)
    return fitted, f"{formula} - cpu_offload_gb {gib:g} GiB"


def unquantized(fmt: WeightFormat | None) -> bool:
    """A plain float format: the serving dtype, not the checkpoint's, decides its bytes."""
    return fmt is not None and fmt.key in ("fp32", "bf16", "fp16")
