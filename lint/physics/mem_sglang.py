"""SGLang's KV budget per GPU, per version (engines.md §2.3; verified in SGLang's release trees,
sgl-project/sglang@vX:python/sglang/srt/...).

    KV bytes = free after NCCL init (min over ranks) x mem_fraction_static - weights

`mem_fraction_static` is the fraction of the memory free before weights load (measured after
the CUDA context and torch.distributed init: ~0.4 GiB on one H100, "avail mem=78.81 GB" of
79.19), and its automatic default went through four generations:
- <= 0.4.5: a table by tensor-parallel size (0.88 at TP 1 ... 0.79 at TP >= 16);
- 0.4.6-0.4.7: the table up to 80 GiB devices, else (gpu - 13 GiB) / gpu;
- 0.4.8-0.5.2: reserved memory by device size, (gpu - reserved) / gpu;
- >= 0.5.3: reserved = 512 + max(chunked_prefill_size, 2048) x 1.5 + cuda_graph_max_bs x 2
  + tp x pp / 8 x 1024 MiB, at least 10 GiB above 60 GiB devices (`_handle_gpu_memory_settings`), the two
  defaults by device memory (SMALL_TIER: the 20-35 GiB tier changed in 0.5.5 and 0.5.20), plus DP attention's
  padding, the prefill CUDA graphs' reserve from 0.5.10 (PREFILL_GRAPHS), speculative decoding's to 0.5.13,
  DeepEP's and each disaggregated role's own from 0.5.15 (reserve_sglang.py).
A version that is not known takes the smallest fraction of the four (the point) and the largest
(the high bound).
"""
from __future__ import annotations

import math
from typing import Any, List, Mapping, Optional, Tuple

from ctxlint.versions import parse_version

from .reserve_sglang import (PREFILL_GRAPHS, SMALL_TIER, V_PREFILL_GRAPHS, V_ROLES, Role, auto_formula,  # noqa: F401
                             role_of, starts)
from .terms import GIB, MIB, Term
from .vlm_sglang import post_capture_fraction, post_capture_planned, vlm_factor


def _tiers(gpu_mib: float, tp: int, pp: int) -> Tuple[float, str]:
    """0.4.8-0.5.2: reserved GiB by device size."""
    g, ps = gpu_mib / 1024, tp * pp
    reserved = (2.8 + ps / 10) if g < 35 else (9.5 + ps / 2) if g < 90 else (12 + ps / 2) if g < 160 else 32
    return round((g - reserved) / g, 3), f"(gpu {g:.1f} - reserved {reserved:g} GiB) / gpu (0.4.8-0.5.2 tiers)"


def _table(tp: int, version) -> Tuple[float, str]:
    """<= 0.4.5: by tensor-parallel size."""
    late = version is None or version >= parse_version("0.4.0")
    for size, value in ((16, 0.79), (8, 0.81 if late else 0.83), (4, 0.85), (2, 0.87)):
        if tp >= size:
            return value, f"TP {tp} table value (<= 0.4.5)"
    return 0.88, "TP 1 table value (<= 0.4.5)"


def _int(settings: Mapping[str, Any], key: str) -> Optional[int]:
    value = settings.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _decode_bs(settings: Mapping[str, Any], v) -> Optional[int]:
    """The decode CUDA-graph batch as set, by the spelling the release reads: --cuda-graph-max-bs up to 0.5.19
    (from 0.5.14 an alias of --cuda-graph-max-bs-decode, sglang-0.5.19/sglang/srt/server_args.py:3929-3934; 0.5.20
    dropped it, flags_sglang.py), --cuda-graph-max-bs-decode from 0.5.14 (sglang-0.5.14/sglang/srt/
    server_args.py:1939)."""
    new, old = _int(settings, "cuda_graph_max_bs_decode"), _int(settings, "cuda_graph_max_bs")
    if new is not None and (v is None or v >= parse_version("0.5.14")):
        return new
    return old if v is None or v < parse_version("0.5.20") else None


def _formulas(gpu_mib: float, tp: int, pp: int, settings: Mapping[str, Any], v,
              mla: bool) -> List[Tuple[float, float, str]]:
    """(point, high, how) of the >= 0.5.3 formula for each era the release may be in (reserve_sglang.starts)."""
    cps, bs = _int(settings, "chunked_prefill_size"), _decode_bs(settings, v)
    top = _int(settings, "cuda_graph_max_bs_prefill") if v is None or v >= parse_version("0.5.14") else None
    role = role_of(settings)
    eras = starts(role)
    out = []
    for i, era in enumerate(eras):
        if v is not None and (v < era.v or (i + 1 < len(eras) and v >= eras[i + 1].v)):
            continue
        point = auto_formula(gpu_mib, tp, pp, cps, bs, era.small, None, role, era)
        if era.v >= V_PREFILL_GRAPHS and not _eager(role, era.v, v):
            graphs = auto_formula(gpu_mib, tp, pp, cps, bs, era.small, (top, mla), role, era)
            out.append((graphs[0], point[0], graphs[1]))
        else:
            out.append((point[0], point[0], point[1]))
    return out


def _eager(role: Role, start, v=None) -> bool:
    """No prefill CUDA graphs, so no reserve for them: --disable-cuda-graph turns them off too
    (sglang-0.5.21/sglang/srt/arg_groups/cuda_graph_hook.py:60-62). Up to 0.5.14 a disaggregated role and DP
    attention ran prefill eagerly, decided before the reserve (sglang-0.5.10 wheel: sglang/srt/server_args.py:
    778-784, 1091-1093, 1128-1130; 0.5.13: 1352-1354, 1394-1395; 0.5.14, whose default is the tc_piecewise backend:
    2508-2524, 3007, 3041); from 0.5.15 a decode role reserves none (reserve_sglang.ROLES), while a prefill role and
    DP attention keep the breakable backend's (0.5.15-0.5.16 turn it off under DP attention: the band's top), except
    a prefill role on 0.5.15 itself (`v`, the release when known; unknown, the era's band top is that case)."""
    if not role.graphs:
        return True
    if start < V_ROLES:
        return bool(role.mode or role.dp)
    return role.mode == "decode" or (role.mode == "prefill" and v is not None and v < _PREFILL_GRAPHS_AGAIN)


# 0.5.15 sets disable_cuda_graph for a prefill role (sglang-0.5.15 wheel: sglang/srt/arg_groups/
# pd_disaggregation_hook.py:77), run before the graph config (server_args.py:2685, 2693) and so before the reserve
# (2709), and disable_cuda_graph disables the prefill graphs too (server_args.py:3214-3216), which then reserve
# nothing (3660-3664); 0.5.16 dropped the line (sglang-0.5.16 wheel: pd_disaggregation_hook.py:74-77).
_PREFILL_GRAPHS_AGAIN = parse_version("0.5.16")


def auto_fraction(gpu_mib: float, tp: int, pp: int, settings: Mapping[str, Any],
                  version: Optional[str], mla: bool = False) -> Tuple[float, float, str]:
    """(point, high, how) of the automatic mem_fraction_static."""
    v = parse_version(version) if version else None
    options: List[Tuple[float, float, str]] = []
    if v is None or v >= parse_version("0.5.3"):
        options += _formulas(gpu_mib, tp, pp, settings, v, mla)
    if v is None or parse_version("0.4.8") <= v < parse_version("0.5.3"):
        options.append(_same(_tiers(gpu_mib, tp, pp)))
    if v is None or parse_version("0.4.6") <= v < parse_version("0.4.8"):
        options.append(_same(((gpu_mib - 13 * 1024) / gpu_mib, "(gpu - 13 GiB) / gpu (0.4.6-0.4.7)")
                             if gpu_mib > 81920 else _table(tp * pp, v)))
    if v is None or v < parse_version("0.4.6"):
        options.append(_same(_table(tp, v)))
    low = min(options)
    how = low[2] if v is not None else f"{low[2]}; version unknown: the smallest of SGLang's four auto rules"
    return low[0], max(o[1] for o in options), how


def _same(option: Tuple[float, str]) -> Tuple[float, float, str]:
    return option[0], option[0], option[1]


# NVIDIA cards whose NVLink, where they have one, joins pairs at most: more than two of them in a tensor-parallel
# group are not fully connected, and SGLang turns its custom all-reduce off ("Custom allreduce is disabled because
# it's not supported on more than two PCIe-only GPUs": world_size > 2 and not full_nvlink,
# sgl-project/sglang@v0.4.3.post4:python/sglang/srt/distributed/device_communicators/custom_all_reduce.py).
# Names that are two parts (A100-40GB: SXM4 or PCIe; V100: SXM2 or PCIe) are not listed.
PCIE_ONLY = frozenset({"H100-PCIe-80GB", "H100-NVL", "GB10", "L4", "L40S", "L40", "L20", "A40", "A10G", "A10", "T4",
                       "RTX-4090", "RTX-3090", "RTX-A6000", "RTX-A5000", "RTX-A4000", "RTX-6000-Ada", "RTX-4060",
                       "RTX-4070", "RTX-4070-8GB", "RTX-5090", "RTX-PRO-6000-Blackwell"})


def pcie_group(device: str, tp: int) -> bool:
    """More than two GPUs of a tensor-parallel group on cards no NVLink joins all together."""
    return tp > 2 and device in PCIE_ONLY


def terms(total: float, gpu_mib: float, tp: int, pp: int, settings: Mapping[str, Any],
          version: Optional[str], device: str = "", mla: bool = False,
          vision: Optional[float] = None, vision_ratio: Optional[float] = None) -> Tuple[Term, float, float, str]:
    """(memory before weights, mem_fraction_static point, its high, how the fraction was set); `mla`: the model
    runs an MLA backend (its prefill CUDA graphs reserve 1.5 GiB); `vision`: its vision tower's parameters in
    billions (vlm_sglang.vlm_factor), `vision_ratio` its complexity ratio where vlm_sglang.vision_ratio knows it."""
    # CUDA context ~0.4 GiB on one H100 (docs log: 78.81 of 79.19 free); NCCL and custom all-reduce
    # buffers add ~1.6 GiB at TP 4 (Qwen3-235B FP8: 16.46 GiB of KV at mem_fraction_static 0.93). A group of
    # more than two PCIe cards runs no custom all-reduce (pcie_group), and there NCCL's init took little: 4x L4
    # at TP 4, SGLang 0.4.3.post4, "Init torch distributed ends. mem usage=0.13 GB", 21.63 GiB free of 21.95
    # before the weights (QwQ-32B: didier-durand/llms-in-clouds@b001c8690e894d234cf3a2e2345d259173acf293:
    # docs/sglang.md). One log does not say what the 1.6 GiB is, so the band's top takes one GPU's figure and the
    # point stays: a request between them may fit (not the error the multi-GPU figure alone made it).
    multi = tp * pp > 1
    before = 0.4 * GIB + (1.6 * GIB if multi else 0.0)
    top = before - 0.1 * GIB if not multi else 0.3 * GIB if pcie_group(device, tp) else before - 0.2 * GIB
    pcie = " (band top: no custom all-reduce over PCIe)" if multi and pcie_group(device, tp) else ""
    pre = Term("memory before weights", total - before, total - before - (0.8 * GIB if multi else 0.3 * GIB),
               total - top, f"{total / GIB:.2f} GiB - CUDA context{' - NCCL' if multi else ''} "
                            f"({before / GIB:.1f} GiB){pcie}")
    mfs = settings.get("mem_fraction_static")
    if isinstance(mfs, (int, float)) and not isinstance(mfs, bool) and mfs:
        return pre, float(mfs), float(mfs), "mem_fraction_static as set"
    gpu = gpu_mib or total / MIB
    point, high, how = auto_fraction(gpu, tp, pp, settings, version, mla)
    if post_capture_planned(settings, version, mla):
        after, why = post_capture_fraction(gpu, tp, pp)
        if after > high:
            high, how = after, f"{how}; {why}"
    vlm = vlm_factor(vision, settings, version, vision_ratio)
    if vlm is not None:
        # four places, down (SGLang does not round the product)
        point, how = min(math.floor(point * vlm[0] * 1e4) / 1e4, high), f"{point:g} {vlm[1]}; {how}"
    return pre, point, high, how
