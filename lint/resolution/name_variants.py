"""What a catalog match through a variant of the written name says: an abliteration's weights (abliterated),
the BF16 release a quantizer's re-upload was made from (bf16_release), Meta's `<name>-hf` repository a name
without the suffix is (hf_marked), and which character a name wrote for the catalog name's dots (for_dots). Apart
from resolve.py because only a name that missed every plain lookup of _normalized asks: resolve imports this then,
so a run whose models all resolve as written never loads it."""
from __future__ import annotations

from typing import Optional

from ctxlint.resolution import catalog
from ctxlint.resolution.names import ModelRef
from ctxlint.resolution.resolve import Resolution, _by_name, _hit_resolution

from ..records import replace


def abliterated(ref: ModelRef, found: Resolution, dtype=None) -> Resolution:
    """An abliteration's weights: the network is its base's, the file's format need not be. The projection is
    done in 16 bits and saved so (huihui-ai's gpt-oss abliterations are `Huihui-gpt-oss-20b-BF16-abliterated`,
    their MXFP4 a later re-quantization; huihui-ai converted DeepSeek-V3's FP8 to `DeepSeek-V3-bf16` first), so
    where the base's checkpoint is quantized and the name states no format, the weights span 16 bits (the point)
    and the base's format."""
    own = found.weights or getattr(found.arch, "weight_format", None)
    if dtype is not None:  # the float width written before the tag (`-BF16-abliterated`): the file's, unless a
        # later tag (a GGUF type) names its own
        return found if ref.weights is not None else \
            replace(found, weights=dtype, how=f"{found.how}; {dtype.label} weights (from the name)")
    if ref.weights is not None or own is None or own.key in ("bf16", "fp16", "fp32"):
        return found
    from ctxlint.physics.weights import BF16
    base = replace(own, alt=(), alt_why="")
    fmt = replace(BF16, alt=(base,), alt_why=f"the abliteration was re-quantized to its base's {own.label} format")
    return replace(found, weights=fmt, how=f"{found.how}; 16-bit weights, as an abliteration is saved, or its "
                                           f"base's {own.label}: the name states no format, so the weights span both")


def bf16_release(ref: ModelRef, names) -> Optional[Resolution]:
    """A quantizer's re-upload of a checkpoint its maker names for its 16-bit weights: NVIDIA publishes one
    network as `<name>-BF16`, `-FP8` and `-NVFP4`, and Red Hat's `<name>-FP8-block` is the `-BF16` release
    quantized (its card: "Quantized version of nvidia/NVIDIA-Nemotron-3-Ultra-550B-A55B-BF16"), and so is a GGUF
    file named `<name>-<quant>.gguf` (LM Studio's `NVIDIA-Nemotron-3-Nano-4B-Q8_0.gguf`, sweeps k30/c30, beside
    NVIDIA's `nvidia/NVIDIA-Nemotron-3-Nano-4B-BF16`; where the file itself is found its header is read first, as
    any GGUF's). Only a name whose format tag was removed (`ref.weights`) is looked up so; a bare `<name>` is no
    release. A float tag (`-FP32` beside openbmb's `-bf16`) is the release's network at that width."""
    if ref.weights is None:
        return None
    # a float width (`-FP32`, a GGUF `F16`/`BF16`/`F32` file) is a copy of the release, not its quantization
    what = f"a {ref.weights.label} copy" if ref.weights.exact and ref.weights.bits >= 16 else "the quantization"
    for name in dict.fromkeys(n for n in names if n and n.endswith(ref.base)):
        hit = catalog.find(name + "-bf16")
        if hit is not None and not hit.derived_from:
            return _hit_resolution(ref, hit, f"{_by_name(ref)}, as {what} of that BF16 release")
    return None


def for_dots(written: str, key: str) -> str:
    """What the written name has where the catalog name `key` has its dots: "'-'", "'_'" or "'-' and '_'"
    (`Qwen2_5-7B-Instruct` writes Qwen2.5's dot as '_'); "'-'" where the two do not line up."""
    bare = key.split("/", 1)[-1]
    found = {written[i] for i, c in enumerate(bare) if c == "." and i < len(written)}
    if not found or not found <= {"-", "_"} or written[:len(bare)].lower().replace("_", "-") != \
            bare.lower().replace(".", "-"):
        found = {"-"}
    return " and ".join(f"'{c}'" for c in sorted(found))


def hf_marked(ref: ModelRef, names) -> Optional[Resolution]:
    """A name that is one of Meta's Llama 2 or Code Llama repositories without the '-hf' that marks its
    transformers format (catalog._HF_FORMAT_ORGS): `codellama-7b-instruct.Q4_K_M.gguf`, `Llama-2-70B-4bit`. Only
    the suffix is added: a name with words of its own (`-128k`, `-python`) matches no repository."""
    for name in dict.fromkeys(n for n in names if n and not n.endswith("-hf")):
        hit = catalog.find_hf_marked(name)
        if hit is not None:
            return _hit_resolution(ref, hit, f"{_by_name(ref)} as {hit.key}, whose '-hf' marks the transformers "
                                             "format (Meta publishes each Llama 2 and Code Llama network so and in "
                                             "its original format)")
    return None
