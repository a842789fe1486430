"""What vLLM's MXFP4 MoE kernels add to the routed experts' bytes: a factor fitted to gpt-oss, and DeepSeek-V4's
padding worked out from its shapes.

gpt-oss's experts (hidden 2880, intermediate 2880) are not multiples of the kernels' alignments, and loaded
gpt-oss-120b weighs more than its checkpoint (65.97 GiB on one H100, vllm#23278; 64.38 GiB on 0.14.1, vllm#33155;
17.22 GiB a GPU at TP 4): budget._vllm keeps the factors fitted to those logs (`gpt_oss_factor`).

DeepSeek-V4's MXFP4 experts (DeepseekV4FP8Config hands them to Mxfp4MoEMethod, vllm 0.21.0 wheel:
vllm/model_executor/models/deepseek_v4.py, vllm-project/vllm@234b8ebce4e4d840468f478f68a14c791802c545:
vllm/models/deepseek_v4/quant_config.py) are only rounded up to the backend's alignment
(mxfp4_round_up_hidden_size_and_intermediate_size, vllm 0.21.0 wheel: vllm/model_executor/layers/fused_moe/oracle/
mxfp4.py): Marlin, the backend on Hopper and the fallback elsewhere, the intermediate to 128 and the hidden size to
256; FlashInfer TRT-LLM (SM100) and ROCm both to 256; DeepGEMM and FlashInfer CUTLASS both to 128; any other the
intermediate to 64. Marlin keeps the one-byte E8M0 scales (marlin_utils_fp4.mxfp4_marlin_process_scales). V4's
hidden sizes (7168, 4096) and whole intermediates (3072, 2048) are multiples of 256, so with expert parallelism
(each expert whole) nothing is padded; gpt-oss's 9-14% on V4-Pro's ~800 GiB of experts was a false CTX201 error on
8x H200 at DP 8 with EP. The logs agree: V4-Flash at TP 2 with EP loads as 74.85 GiB on RTX PRO 6000s with Marlin
(vllm#40821; its checkpoint 148.66 GiB), V4-Pro at TP 8 as ~102 GiB a rank (vllm#40899), both about the checkpoint's
share, not 9-14% more.
"""
from __future__ import annotations

from math import ceil
from typing import Any, Mapping, Optional

from .models import ModelArch
from .served import expert_split, positive_int
from .terms import GIB, Term
from .weights import WeightFormat

_V4_EXPERTS = "fp8+mxfp4-experts"  # weights._FP8_MXFP4_EXPERTS: the format V4's own checkpoints are in
# (backend, intermediate alignment, hidden alignment); the first is the point's
_RULES = (("Marlin", 128, 256), ("FlashInfer TRT-LLM", 256, 256), ("DeepGEMM", 128, 128), ("Triton", 64, 1))


def gpt_oss_factor(arch: ModelArch, weights: Term, tp: int, pp: int) -> Optional[tuple[float, float, float]]:
    """(point, low, high) of the fitted padding for MXFP4 experts other than DeepSeek-V4's (whose padding
    dsv4_padding works out from the shapes), or None where it does not apply."""
    if weights.label != "weights" or arch.model_type == "deepseek_v4":
        return None
    # the point's format, not a band's other ends (gpu_weights._spanning writes them after "; as "): a 16-bit
    # checkpoint that may also be MXFP4 is not padded as one, which made its band's low end the padded 16-bit point
    if arch.weights == "mxfp4-experts" or weights.how.split("; as ", 1)[0].find("MXFP4") >= 0:
        return (1.09, 1.06, 1.10) if tp * pp == 1 else (1.14, 1.13, 1.15)
    return None


def gpt_oss_padded(weights: Term, fitted: tuple[float, float, float], how: str) -> Term:
    """`weights` padded by gpt_oss_factor's `fitted` factors (point, low, high). A band over other formats the
    checkpoint may be in (gpu_weights._spanning, after "; as ": an MXFP4 point served under a name that gives only the
    architecture, its NVFP4, FP8 or 16-bit copies beside it) keeps those ends: only the MXFP4 point is padded, and
    the band never narrows to the padded point (which made a checkpoint that may be lighter a false CTX209)."""
    pad, low, high = fitted
    lo, hi = weights.point * low, weights.point * high
    if "; as " in weights.how:
        lo, hi = min(lo, weights.low), max(hi, weights.high)
    return Term("weights", weights.point * pad, lo, hi, how)


def _factor(inter: int, hidden: int, a_inter: int, a_hidden: int) -> float:
    return ceil(inter / a_inter) * a_inter * ceil(hidden / a_hidden) * a_hidden / (inter * hidden)


def dsv4_padding(engine: str, arch: ModelArch, tp: int, pp: int, dp: Any, draft: int, settings: Mapping[str, Any],
                 fmt: WeightFormat, weights: Optional[Term], formula: str, notes: list[str]) -> tuple[Optional[Term], str]:
    """DeepSeek-V4's MXFP4 experts on vLLM: the bytes each backend's rounding adds to one GPU's experts. The point is
    Marlin's, the band spans the backends (which one runs depends on the device); shapes every backend takes whole
    (any V4 with expert parallelism) add nothing."""
    if engine != "vllm" or weights is None or arch.model_type != "deepseek_v4" or fmt.key != _V4_EXPERTS:
        return weights, formula
    hidden, inter, experts = arch.hidden_size, arch.moe_intermediate_size, arch.expert_params_b
    if not (hidden and inter and experts and arch.num_layers):
        return weights, formula
    split, _ = expert_split(engine, arch, settings, positive_int(dp, 1))
    if settings.get("enable_expert_parallel") is True:
        moe_tp = 1  # FusedMoEParallelConfig: EP over TP x DP, each expert whole
    else:
        moe_tp = tp * max(1, round(split))  # the MoE layers' TP flattened over DP
    if inter % moe_tp:
        return weights, formula
    part = inter // moe_tp
    factors = [_factor(part, hidden, a, b) for _, a, b in _RULES]
    if max(factors) <= 1.0:
        return weights, formula
    # one GPU's expert bytes, the draft (MTP) layers' experts with them, as weights_per_gpu counts them
    per_gpu = experts * 1e9 * (1 + draft / arch.num_layers) * fmt.bits / 8 / (tp * pp * split)
    point, low, high = (per_gpu * (f - 1) for f in (factors[0], min(factors), max(factors)))
    formula += f" + {point / GIB:.2f} GiB MXFP4 expert padding (intermediate {part} a GPU)"
    worst = _RULES[factors.index(max(factors))][0]
    notes.append(f"DeepSeek-V4 MXFP4 experts on vLLM: an intermediate of {part} a GPU is padded by the MoE backend: "
                 f"{point / GIB:.2f} GiB more a GPU with Marlin, up to {high / GIB:.2f} GiB with {worst}")
    return Term(weights.label, weights.point + point, weights.low + low, weights.high + high, formula,
                weights.source), formula
