"""Weight-format families: which formats one word about a checkpoint (`fp4`, srt-slurm's `model.precision`) can
name, by physics.weights keys. No imports: both the srt-slurm adapter and the resolver read it."""
from __future__ import annotations

from typing import Optional, Tuple


def families(key: Optional[str]) -> Tuple[str, ...]:
    """The families of a weight format, two for one of two formats (`fp8+mxfp4-experts`, DeepSeek-V4's FP8 with
    MXFP4 experts: `precision: fp4` and `fp8` both describe it); `mixed:` keys (group targets not read) none."""
    key = (key or "").lower()
    parts = key.split("+") if "+" in key and not key.startswith("mixed:") else [key]
    found = [family(part) for part in parts]
    return tuple(dict.fromkeys(f for f in found if f is not None)) if all(found) else ()


def family(key: Optional[str]) -> Optional[str]:
    """A weight format's family as `model.precision` names it (ctxlint.physics.weights keys), None if none."""
    key = (key or "").lower()
    if "+" in key:
        return None  # two formats: families()
    if key in ("bf16", "fp16", "fp32"):
        return "16-bit"
    for prefix, name in (("nvfp4", "nvfp4"), ("mxfp4", "mxfp4"), ("mxfp8", "mxfp8"), ("fp8", "fp8"),
                         ("int8", "int8"), ("awq", "int4"), ("gptq-int4", "int4"), ("w4a16", "int4"),
                         ("int4", "int4"), ("bnb-4bit", "int4")):
        if key.startswith(prefix):
            return name
    return None
