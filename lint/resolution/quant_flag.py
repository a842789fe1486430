"""Whose weights load when `--quantization` meets a quantized checkpoint: the checkpoint's, or a refusal.

vLLM reads the checkpoint's quantization config (config.json `quantization_config`, else ModelOpt's
hf_quant_config.json) before the flag. `ModelConfig._verify_quantization` asks each method's
`override_quantization_method(hf_quant_cfg, user_quant)` in turn; the first answer replaces both the
flag and the checkpoint's method, and with no answer a flag that is not the checkpoint's method is
refused: "Quantization method specified in the model config (...) does not match the quantization
method specified in the `quantization` argument (...)" (vllm-project/vllm@v0.12.0:vllm/config/model.py).
So a flag never re-quantizes a quantized checkpoint: it loads as stored, or vLLM does not start.
The overrides (vllm-project/vllm@v0.12.0:vllm/model_executor/layers/quantization/): ModelOpt's answer
`modelopt` (FP8) or `modelopt_fp4` (NVFP4) from the checkpoint's quant_algo whatever the flag says
(modelopt.py; on current main for hf_quant_config.json checkpoints too, vllm-project/vllm@
00155cdecca722d98e34234c3d172725b7720b7d:vllm/model_executor/layers/quantization/modelopt.py
`_extract_modelopt_quant_algo`); AWQ and GPTQ checkpoints take their Marlin/BitBLAS/MoE kernels
for `marlin`, `awq_marlin`, `gptq_marlin`, `gptq_marlin_24`, `bitblas`, `gptq_bitblas`, `moe_wna16`
(awq_marlin.py, gptq_marlin.py, gptq_marlin_24.py, bitblas.py, gptq_bitblas.py, moe_wna16.py),
and any flag on the CPU backend (cpu_wna16.py); the repacked kernels hold the same bits.
SGLang does the same (sgl-project/sglang@v0.5.23:python/sglang/srt/configs/model_config.py
`_verify_quantization`; python/sglang/srt/layers/quantization/base_config.py
`_modelopt_override_quantization_method` turns any flag into the checkpoint's modelopt_fp4 or
modelopt_fp8), except where it keeps the flag on purpose: online re-quantization (`quark_mxfp4`,
`nvfp4_online`) and the pairs of its `compatible_quantization_methods` (`modelopt_fp4` over an FP8
checkpoint re-quantizes the MoE experts); there the flag's format stands, as before.

ctxlint knows a checkpoint by its weight format only, so each format maps to the quant_method values
that can produce it (vLLM's names); vLLM's refusal is reported only when every one of them refuses.
"""
from __future__ import annotations

from typing import List, Optional, Tuple

from ctxlint.findings import Diagnostic
from ctxlint.held import on_cpu
from ctxlint.model import Deployment
from ctxlint.physics.weights import WeightFormat
from ctxlint.resolution.weight_account import flag_format

# format key (group suffix dropped) -> the quant_method a checkpoint of it declares to vLLM. AWQ and GPTQ
# names are also llm-compressor's (compressed-tensors); FP8 and MXFP4 also AMD Quark's.
_METHODS = {
    "fp8": ("fp8", "compressed-tensors", "modelopt", "fbgemm_fp8", "quark"),
    "awq": ("awq", "compressed-tensors"), "gptq-int4": ("gptq", "compressed-tensors"),
    "w4a16": ("compressed-tensors",), "bnb-4bit": ("bitsandbytes",),
    "nvfp4": ("modelopt", "compressed-tensors"),
    "mxfp4": ("mxfp4", "compressed-tensors", "quark"), "mxfp4-experts": ("mxfp4", "compressed-tensors"),
    # DeepSeek-V4 (weights._FP8_MXFP4_EXPERTS): its config's quant_method is fp8, which the flag is checked against
    "fp8+mxfp4-experts": ("fp8", "compressed-tensors", "modelopt", "fbgemm_fp8", "quark"),
    # NVIDIA's DeepSeek-V4 NVFP4 (weights._FP8_NVFP4_EXPERTS): quant_method fp8 too, moe_quant_algo NVFP4 beside it
    "fp8+nvfp4-experts": ("fp8", "compressed-tensors", "modelopt", "fbgemm_fp8", "quark"),
    # NVIDIA's MiniMax-M3 NVFP4 (weights._MXFP8_NVFP4_EXPERTS): quant_method modelopt (MIXED_PRECISION), or mxfp8
    # with moe_quant_algo NVFP4 for MiniMax's own
    "mxfp8+nvfp4-experts": ("modelopt", "mxfp8"),
    "int8": None,  # GPTQ, bitsandbytes, compressed-tensors or a name's guess: the weights, never a refusal
    # groups of different widths (weights.mixed_format): ModelOpt's mixed precision or compressed-tensors' config_groups
    "mixed": ("modelopt", "compressed-tensors"),
}
_AWQ_KERNELS = ("awq_marlin", "marlin", "moe_wna16")
_GPTQ_KERNELS = ("gptq_marlin", "marlin", "gptq_marlin_24", "bitblas", "gptq_bitblas", "moe_wna16")
# SGLang keeps these flags over a checkpoint (REQUANTIZATION_METHODS, nvfp4_online, and the
# compatible_quantization_methods whose checkpoint side is a quantized format), so the flag's format applies.
_SGLANG_KEPT = {"quark_mxfp4": None, "nvfp4_online": ("fp8",), "modelopt_fp4": ("fp8",),
                "w8a8_int8": ("int8",), "w8a8_fp8": ("fp8",), "auto-round-int8": ("int8",)}
ENGINES = {"vllm": "vLLM", "sglang": "SGLang"}


def _family(fmt: WeightFormat) -> Optional[str]:
    key = fmt.key
    if key.startswith("mixed:"):
        return "mixed"
    if key not in _METHODS and key.endswith("-experts") and key[:-8] in _METHODS:
        return key[:-8]  # nvfp4-experts: a ModelOpt or compressed-tensors NVFP4 checkpoint all the same
    if key not in _METHODS:
        base, _, group = key.rpartition("-g")
        key = base if base and (group.isdigit() or group == "ch") else key
    return key if key in _METHODS else None


def _accepts(method: str, flag: str, cpu: bool) -> bool:
    """Whether vLLM may start with `--quantization flag` over a checkpoint of `method` (CUDA or ROCm)."""
    if flag == method or method == "modelopt":
        return True
    if method in ("awq", "gptq"):
        return cpu or flag in (_AWQ_KERNELS if method == "awq" else _GPTQ_KERNELS)
    return False


def decide(engine: Optional[str], flag: Optional[str], checkpoint: Optional[WeightFormat],
           flag_fmt: Optional[WeightFormat], cpu: bool = False) -> Optional[Tuple[WeightFormat, str, bool]]:
    """(the checkpoint's format, why, whether the engine refuses the flag), or None: the flag's format
    decides as before (no flag, another engine, an unquantized checkpoint or one whose layout is not known)."""
    name = ENGINES.get(engine or "")
    value = flag.strip().lower() if isinstance(flag, str) else ""
    if name is None or value in ("", "none") or checkpoint is None:
        return None
    family = _family(checkpoint)
    if family is None:
        return None
    if engine == "sglang" and value in _SGLANG_KEPT:
        kept = _SGLANG_KEPT[value]
        if kept is None or family in kept:
            return None
    methods = _METHODS[family]
    refused = engine == "vllm" and methods is not None and not any(_accepts(m, value, cpu) for m in methods)
    if flag_fmt is not None and flag_fmt.key == checkpoint.key and not refused:
        return None  # the flag names the checkpoint's own format: nothing to say
    label = checkpoint.label
    if refused:
        return checkpoint, f"{label} weights (the checkpoint's; {name} refuses --quantization {flag} for it)", True
    if methods is not None and "modelopt" in methods and family in ("nvfp4", "fp8") and "modelopt" in value:
        fp8 = "modelopt" if engine == "vllm" else "modelopt_fp8"  # SGLang names ModelOpt FP8 its own way
        how = f"its ModelOpt override turning {flag} into {'modelopt_fp4' if family == 'nvfp4' else fp8}"
    else:
        how = "a quantized checkpoint loads as stored, never re-quantized by the flag"
    return checkpoint, f"{label} weights (the checkpoint's, over --quantization {flag}: {name} reads the " \
                       f"checkpoint's quantization config first, {how})", False


def with_flag(engine: Optional[str], value: str, own: Optional[WeightFormat], why: str,
              flag: Optional[WeightFormat], cpu: bool = False) -> Tuple[Optional[WeightFormat], str]:
    """The format that loads and its account, given the checkpoint's (`own`, `why`) and the flag's."""
    decided = decide(engine, value, own, flag, cpu)
    if decided is not None:
        return decided[0], decided[1]
    if flag is not None:
        return flag, f"{flag.label} weights (--quantization {value})"
    return own, why


def refusal(engine: str, flag: str, checkpoint: WeightFormat, model: str) -> str:
    """The CTX301 message for a flag the engine refuses over this checkpoint."""
    methods = " or ".join(m for m in _METHODS.get(_family(checkpoint) or "", None) or ())
    return (f"--quantization {flag}: {ENGINES[engine]} refuses it and does not start, since the checkpoint of "
            f"{model} is {checkpoint.label} (quant_method {methods}) and no quantization override maps {flag} "
            f"onto it (\"Quantization method specified in the model config (...) does not match the quantization "
            f"method specified in the `quantization` argument ({flag})\"). Drop the flag: the engine reads the "
            f"method from the checkpoint")


def refusals(dep: Deployment, own: WeightFormat) -> List[Diagnostic]:
    """CTX301 ("engine-rejects-value", as the adapters') at each vLLM `--quantization` that a checkpoint of
    format `own` makes vLLM refuse."""
    out: List[Diagnostic] = []
    model = dep.model.id.value if dep.model.id is not None else "the model"
    for role in dep.roles:
        flag = role.arg("quantization")
        if flag is None or not isinstance(flag.value, str):
            continue
        decided = decide("vllm", flag.value, own, flag_format(flag.value), on_cpu(role))
        if decided is not None and decided[2]:
            out.append(Diagnostic("engine-rejects-value", refusal("vllm", flag.value, own, model), flag.source,
                                  dep.display_name))
    return out
