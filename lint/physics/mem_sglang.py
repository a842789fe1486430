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
  + tp x pp / 8 x 1024 MiB, at least 10 GiB above 60 GiB devices (`_handle_gpu_memory_settings`).
A version that is not known takes the smallest fraction of the four (the point) and the largest
(the high bound).
"""
from __future__ import annotations

from typing import Any, List, Mapping, Optional, Tuple

from ctxlint.versions import parse_version

from .terms import GIB, MIB, Term


def _defaults(gpu_mib: float, tp: int) -> Tuple[int, int]:
    """chunked_prefill_size, cuda_graph_max_bs by device memory (>= 0.5.3)."""
    g = gpu_mib / 1024
    if g < 20:
        return 2048, 8
    if g < 35:
        return 2048, 80 if tp >= 4 else 24
    if g < 60:
        return 4096, 160 if tp >= 4 else 32
    if g < 160:
        return 8192, 512 if tp >= 4 else 256
    return 16384, 512


def auto_formula(gpu_mib: float, tp: int, pp: int, chunked_prefill_size: Optional[int] = None,
                 cuda_graph_max_bs: Optional[int] = None) -> Tuple[float, str]:
    """>= 0.5.3, without the DP-attention and piecewise-graph terms (they only lower it)."""
    cps_d, bs_d = _defaults(gpu_mib, tp)
    cps = cps_d if chunked_prefill_size is None else chunked_prefill_size
    bs = bs_d if cuda_graph_max_bs is None else cuda_graph_max_bs
    reserved = 512 + max(cps, 2048) * 1.5 + bs * 2 + tp * pp / 8 * 1024
    if gpu_mib > 60 * 1024:
        reserved = max(reserved, 10 * 1024)
    mfs = round((gpu_mib - reserved) / gpu_mib, 3)
    return mfs, (f"round(({gpu_mib:.0f} - reserved {reserved:.0f}) / {gpu_mib:.0f}, 3); reserved = 512 + "
                 f"max({cps}, 2048) x 1.5 + {bs} x 2 + {tp} x {pp} / 8 x 1024 MiB")


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


def auto_fraction(gpu_mib: float, tp: int, pp: int, settings: Mapping[str, Any],
                  version: Optional[str]) -> Tuple[float, float, str]:
    """(point, high, how) of the automatic mem_fraction_static."""
    v = parse_version(version) if version else None
    cps, bs = settings.get("chunked_prefill_size"), settings.get("cuda_graph_max_bs")
    cps = cps if isinstance(cps, int) and not isinstance(cps, bool) else None
    bs = bs if isinstance(bs, int) and not isinstance(bs, bool) else None
    options: List[Tuple[float, str]] = []
    if v is None or v >= parse_version("0.5.3"):
        options.append(auto_formula(gpu_mib, tp, pp, cps, bs))
    if v is None or parse_version("0.4.8") <= v < parse_version("0.5.3"):
        options.append(_tiers(gpu_mib, tp, pp))
    if v is None or parse_version("0.4.6") <= v < parse_version("0.4.8"):
        options.append(((gpu_mib - 13 * 1024) / gpu_mib, "(gpu - 13 GiB) / gpu (0.4.6-0.4.7)")
                       if gpu_mib > 81920 else _table(tp * pp, v))
    if v is None or v < parse_version("0.4.6"):
        options.append(_table(tp, v))
    low = min(options)
    how = low[1] if v is not None else f"{low[1]}; version unknown: the smallest of SGLang's four auto rules"
    return low[0], max(o[0] for o in options), how


# NVIDIA cards whose NVLink, where they have one, joins pairs at most: more than two of them in a tensor-parallel
# group are not fully connected, and SGLang turns its custom all-reduce off ("Custom allreduce is disabled because
# it's not supported on more than two PCIe-only GPUs": world_size > 2 and not full_nvlink,
# sgl-project/sglang@v0.4.3.post4:python/sglang/srt/distributed/device_communicators/custom_all_reduce.py).
# Names that are two parts (A100-40GB: SXM4 or PCIe; V100: SXM2 or PCIe) are not listed.
PCIE_ONLY = frozenset({"H100-PCIe-80GB", "H100-NVL", "GB10", "L4", "L40S", "L40", "L20", "A40", "A10G", "A10", "T4",
                       "RTX-4090", "RTX-3090", "RTX-A6000", "RTX-6000-Ada", "RTX-4070", "RTX-4070-8GB", "RTX-5090",
                       "RTX-PRO-6000-Blackwell"})


def pcie_group(device: str, tp: int) -> bool:
    """More than two GPUs of a tensor-parallel group on cards no NVLink joins all together."""
    return tp > 2 and device in PCIE_ONLY


def terms(total: float, gpu_mib: float, tp: int, pp: int, settings: Mapping[str, Any],
          version: Optional[str], device: str = "") -> Tuple[Term, float, float, str]:
    """(memory before weights, mem_fraction_static point, its high, how the fraction was set)."""
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
    point, high, how = auto_fraction(gpu_mib or total / MIB, tp, pp, settings, version)
    return pre, point, high, how
