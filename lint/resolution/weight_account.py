"""The weight format a resolved model is estimated with, and the words that say where it comes from.

The name's quantization tag (`-AWQ`), else the checkpoint's quantization_config, then the engine's own flag
(`--quantization fp8`) over an unquantized checkpoint or where the engine re-quantizes (quant_flag.decide). Apart
from resolve.py, whose order of trust finds the architecture, because only a found architecture gets a weight
account (resolve imports this then), and the flag table and UNQUANTIZED are read on their own by quant_flag,
capacity and the models listing.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Dict, Optional, Tuple

from ctxlint.physics.weights import FORMATS, WeightFormat, named_format
from ctxlint.resolution.names import ModelRef

from ..records import replace

if TYPE_CHECKING:
    from ctxlint.resolution.resolve import Context, Resolution


def with_weights(found: Resolution, ref: ModelRef, ctx: Context) -> Resolution:
    """Say which weight format applies: the name (when the architecture is a base model's, matched
    by name), else the checkpoint's own quantization_config; then the engine's flag, over an
    unquantized checkpoint, or where the engine lets it re-quantize (quant_flag.decide says)."""
    fmt, why = own_weights(found, ref)
    if ctx.quantization:
        from ctxlint.resolution.quant_flag import with_flag  # only a flag pays for the import
        fmt, why = with_flag(ctx.engine, ctx.quantization, fmt, why, flag_format(ctx.quantization))
    return replace(found, weights=fmt, how=found.how + (f"; {why}" if why else ""))


def own_weights(found: Resolution, ref: ModelRef) -> Tuple[Optional[WeightFormat], str]:
    """The checkpoint's format as ctxlint knows it, flags aside, and its account."""
    checkpoint = found.weights or getattr(found.arch, "weight_format", None)
    if found.via == "name" and ref.weights is not None:
        return ref.weights, f"{ref.weights.label} weights (from the name)"
    if found.via == "label" and found.weights is not None:
        return found.weights, f"{found.weights.label} weights (from the label)"
    if ref.weights is not None and (checkpoint is None or checkpoint.key in UNQUANTIZED and
                                    ref.weights.key != checkpoint.key):
        # the catalog records no quantization for it (its config.json is the base model's, or has no
        # quantization_config), and the name states one: nvidia/Llama-3.1-70B-Instruct-FP8 is no 16-bit checkpoint.
        # A name's `-BF16` over a 16-bit checkpoint (NVIDIA's own release names) says what the catalog does
        return ref.weights, f"{ref.weights.label} weights (from the name; the catalog records no quantization)"
    if checkpoint is not None and checkpoint.key not in ("bf16", "fp32"):
        return checkpoint, f"{checkpoint.label} weights (the checkpoint's quantization_config)"
    return checkpoint, ""


UNQUANTIZED = ("bf16", "fp16", "fp32")  # what a config's torch_dtype alone gives
_FLAG_FORMATS: Dict[str, str] = {
    "fp8": "fp8", "ptpc_fp8": "fp8", "fbgemm_fp8": "fp8", "modelopt": "fp8", "compressed-tensors": "",
    "awq": "awq", "awq_marlin": "awq", "gptq": "gptq-int4", "gptq_marlin": "gptq-int4", "marlin": "gptq-int4",
    "bitsandbytes": "bnb-4bit", "bitsandbytes-nf4": "bnb-4bit", "bitsandbytes-fp4": "bnb-4bit",
    "bitsandbytes-nf4-": "bnb-4bit", "eetq": "int8", "experts_int8": "int8", "w8a8_int8": "int8",
    "w8a8_fp8": "fp8", "modelopt_fp4": "nvfp4", "mxfp4": "mxfp4", "nvfp4": "nvfp4",
    "mxfp8": "mxfp8",
}


def flag_format(value: Optional[str]) -> Optional[WeightFormat]:
    if not isinstance(value, str) or not value.strip():
        return None
    key = _FLAG_FORMATS.get(value.strip().lower())
    if not key:
        return None  # compressed-tensors and unknown methods: the checkpoint says what it is
    return FORMATS.get(key) or named_format(key)
