"""A weight format a deployment file states beside the model's name (an srt-slurm recipe's `model.precision`),
weighed against the format ctxlint knows for that model.

srtctl's own meaning of `precision` is a word about the checkpoint and nothing more: its schema requires the string
(NVIDIA/srt-slurm@c88ef731:src/srtctl/core/schema.py ModelConfig `precision: str`), docs/config-reference.md calls
it "Model precision (informational: fp4, fp8, fp16, bf16)", and srtctl only shows and records it (cli/submit.py
and core/status.py job metadata, cli/monitor.py); no engine flag is made from it. So it states the checkpoint's
format, and it can be wrong; ctxlint reads it so:

* the id names the checkpoint (`hf:<id>`, identity.model.repo): its own format stands. Where the precision names
  another, the weights span both (WeightFormat.alt), the checkpoint's giving the point;
* the id names only the architecture (a cluster alias's served-model-name, a path's folder name): which checkpoint
  loads is not known, so the precision sets its format (recorded in the resolution's `how`), and where the name's
  own format differs, the weights span it too. With no precision, or a word ctxlint does not read, the weights
  span every format the word could have meant, from 4-bit to 16-bit, around the name's own.

`fp4` is NVIDIA's NVFP4 in recipes naming NVIDIA's checkpoints and MXFP4 in others, so it means either (the band
spans both). An engine's `--quantization` quantizes a 16-bit checkpoint as it loads
(resolution/quant_flag.py), so a 16-bit name with that flag has the flag's format.
"""
from __future__ import annotations

from typing import Optional, Tuple

from ctxlint.physics.weights import BF16, FORMATS, WeightFormat
from ctxlint.resolution.format_families import families, family

from ..records import replace

# model.precision -> the formats it can mean, the first the point (physics.weights keys)
_MEANS = {"fp4": ("nvfp4", "mxfp4"), "nvfp4": ("nvfp4",), "mxfp4": ("mxfp4",), "fp8": ("fp8", "mxfp8"),
          "mxfp8": ("mxfp8",), "bf16": ("bf16",), "fp16": ("bf16",), "int4": ("int4",), "int8": ("int8",)}
_OPEN = ("mxfp4", "nvfp4", "fp8", "bf16")  # what an unread or absent precision may be: 4.25 to 16 bits


def _family(key: str) -> str:
    return family(key) or key


def with_stated(found, stated, flag_format=None):
    """The resolution `found` with the stated format weighed in (never raises); unchanged when unresolved."""
    if found.arch is None or stated is None:
        return found
    own: Optional[WeightFormat] = found.weights or getattr(found.arch, "weight_format", None)
    if own is not None and own.key in ("bf16", "fp16", "fp32") and flag_format is not None:
        own = flag_format  # quantized as it loads: what the GPU holds is the flag's format
    word = str(stated.word.value).strip().lower() if stated.word is not None else ""
    keys = _MEANS.get(word)
    said = f"{stated.field} {word!r}" if word else f"no {stated.field}"
    own_families = _own_families(own)
    if keys is not None and own is not None and any(_family(k) in own_families for k in keys):
        return _noted(found, f"{said} agrees with its {own.label} weights")
    meant = tuple(FORMATS[k] for k in keys) if keys is not None else ()
    if not stated.checkpoint_named and flag_format is not None and own is not None and own.key != flag_format.key \
            and any(_family(k) == _family(flag_format.key) for k in keys or ()):
        # the engine's --quantization names the checkpoint's method: SGLang and vLLM refuse a checkpoint whose
        # quantization_config differs (model_config.py _verify_quantization), so the alias loads one of its format
        return replace(found, weights=flag_format, how=f"{found.how}; {flag_format.label} weights as {said} and "
                       f"quantization {stated.quantization!r} say, the name giving only the architecture")
    if stated.checkpoint_named:
        if not meant or own is None:
            return found if not word else _noted(found, f"{said} is no format ctxlint reads")
        why = f"{said} says {_labels(meant)}"
        return _spanned(found, own, meant, f"the checkpoint is not the {own.label} one named ({why})",
                        f"{own.label} weights, the named checkpoint's; {why}, so the weights span both")
    if meant:
        point, others = meant[0], meant[1:] + ((own,) if own is not None else ())
        kept = f" (the name's own checkpoint is {own.label}: the weights span it too)" if own is not None else ""
        return _spanned(found, point, others, f"not {point.label} as {said} says",
                        f"{point.label} weights as {said} says, the name giving only the architecture{kept}")
    opened = tuple(FORMATS[k] for k in _OPEN if own is None or _family(k) not in own_families)
    point = own or BF16
    why = (f"{said} is no format ctxlint reads" if word else said) + ", and the name gives only the architecture"
    return _spanned(found, point, opened, f"the checkpoint is another format ({why})",
                    f"{point.label} weights as the name's, but {why}: the weights span 4 to 16 bits")


def _own_families(own: Optional[WeightFormat]) -> Tuple[str, ...]:
    if own is None:
        return ()
    return families(own.key) or (own.key,)


def _labels(formats) -> str:
    return " or ".join(f.label for f in formats)


def _spanned(found, point: WeightFormat, others, alt_why: str, how: str):
    others = tuple(o for o in others if o.key != point.key)
    fmt = replace(point, alt=tuple(dict.fromkeys(others)), alt_why=alt_why) if others else point
    return replace(found, weights=fmt, how=f"{found.how}; {how}")


def _noted(found, how: str):
    return replace(found, how=f"{found.how}; {how}")
