"""A role's lean estimates on many devices, prepared once (the CTX208 memory search, needs.py).

A device-less role's search asks ~30 lean estimates (capacity.compute_lean) that differ only in the
device and, for a vLLM role of unknown version, the release. Per (role, release), everything that
does not read the device is the same: the model side, the block, the caps, vLLM's utilization and
device-free terms, TensorRT-LLM's warmup peak. prepare() works it out once and gives a probe that
does per device only what reads it: the budget from the memory (vLLM's profile batch also from the
device's name, as mem_vllm.terms reads it), then the pool and longest request at the budget's point
and band ends (pool.search_figures: tokens_for's arithmetic without the figures the search does not
read). A probe answers what the search reads (Figures), the same arithmetic in the same order as
compute_lean (tests/physics/test_lean_probe.py compares them).
SGLang's budget is asked of mem_sglang.terms per device (its automatic fraction reads the memory's
tiers and nvidia-smi's figure), for models without a linear/Mamba state. Every other case (such a
model on SGLang; llama.cpp's fixed cells; TGI; a pool fixed in blocks or bytes; a known KV budget; a
fold over releases; an unknown model) is compute_lean itself.
A prepared probe also guesses where the search's answer lies (`least_total`): the fewest pool blocks
that hold the request, and the memory at which the budget's line within a tier reaches them; the
search (need_search.py, span_search.py) checks every guess against the probe's own figures.
"""
from __future__ import annotations

import math
from operator import attrgetter
from typing import Any, Callable, Dict, Optional

from . import mem_sglang, mem_vllm
from .vlm_sglang import mm_reserve, vision_ratio, vision_tower
from .accelerators import Accelerator, top_smi_total_mib
from .budget import CONTEXT, _num
from .capacity import CapacityInput, compute_lean, device_free, spanned_releases
from .logged_eras import reserves_whole
from .pool import RESERVE, search_figures
from .models import LINEAR, sglang_state
from .mxfp4_padding import gpt_oss_factor, gpt_oss_padded
from .terms import GIB, MIB, Term
from .vllm_block import block_size

_POINT, _LOW, _HIGH = attrgetter("point"), attrgetter("low"), attrgetter("high")


class Figures:
    """What the search reads of a lean estimate (needs._longest, span_search.release_figure), under the
    CapacityResult field names."""
    __slots__ = ("engine", "kv_bytes_per_token_per_gpu", "kv_budget_bytes_per_gpu", "kv_budget_low",
                 "kv_budget_high", "pool_tokens", "max_context_at_concurrency_1", "max_context_low",
                 "max_context_high")

    def __init__(self, engine: str, bpt: float, kv: float, low: float, high: float, pool: int, longest: int,
                 low_longest: int, high_longest: int) -> None:
        self.engine, self.kv_bytes_per_token_per_gpu = engine, bpt
        self.kv_budget_bytes_per_gpu, self.kv_budget_low, self.kv_budget_high = kv, low, high
        self.pool_tokens, self.max_context_at_concurrency_1 = pool, longest
        self.max_context_low, self.max_context_high = low_longest, high_longest


def _sums(terms: tuple) -> tuple:
    """terms.subtract's three sums (point, high, low), in its order: base - each is its (point, low, high)."""
    return sum(map(_POINT, terms)), sum(map(_HIGH, terms)), sum(map(_LOW, terms))


class _Vllm:
    """budget._vllm's lean figures on a device of any memory: (total x utilization - the terms), the
    terms fixed but the V1 profile peak, which follows the batch the device gets (mem_vllm.batch_pick)."""

    def __init__(self, arch, tp: int, pp: int, s, weights: Term, version: Optional[str], context, cache: dict):
        self.block = block_size(s, version)  # budget._vllm's block (vllm_block.py)
        self.arch, self.tp, self.version, self.cache, self.cap = arch, tp, version, cache, None
        fitted = gpt_oss_factor(arch, weights, tp, pp)
        if fitted:  # budget._vllm's MXFP4 expert padding (its source there), the same factors
            weights = gpt_oss_padded(weights, fitted, "")
        self.weights = weights
        self.fixed = fixed = mem_vllm.fixed_terms(arch, tp, pp, s, version, context, cache)
        self.util = fixed.util
        self.by_pick: Dict[Any, tuple] = {}
        if fixed.v0:
            self.by_pick[None] = _sums((weights, fixed.v0_peak, *fixed.tail))
        old = mem_vllm.old_multi_gpu(version, tp * pp)
        self.scale = mem_vllm.OLD_MULTI_GPU_SCALE if old else None

    def at(self, total: float, acc: Accelerator, smi: Optional[int] = None) -> tuple:  # smi: _Sglang.at
        fixed = self.fixed
        pick = None if fixed.v0 else mem_vllm.batch_pick(fixed, total, acc.name or "", self.version)
        util = self.util
        if fixed.extensible is not None:  # mem_vllm.terms: vLLM >= 0.34's margin reads the device's memory
            peak = mem_vllm.v1_peak(self.arch, self.tp, fixed, pick, self.cache)
            if mem_vllm.extensible_on(acc.name or ""):
                sums = _sums((self.weights, peak, *fixed.tail, mem_vllm.extensible_margin(
                    fixed, total, acc.name or "", peak, True)))
            else:
                util, sums = fixed.util_off, _sums((self.weights, peak, *fixed.tail))
        else:
            sums = self.by_pick.get(pick)
        if sums is None:
            peak = mem_vllm.v1_peak(self.arch, self.tp, fixed, pick, self.cache)
            sums = self.by_pick[pick] = _sums((self.weights, peak, *fixed.tail))
        base = total * util
        kv, low, high = base - sums[0], base - sums[1], base - sums[2]  # _finish's x 1.0 changes no float
        if self.scale is not None:  # budget._scaled: a positive figure shrinks, a shortfall stays
            point, floor, top = self.scale
            kv = kv * point if kv > 0 else kv
            low = low * floor if low > 0 else low
            high = high * top if high > 0 else high
        return kv, low, high


class _Trtllm:
    """budget._trtllm's figures on a device of any memory: (total - the fixed terms) x the fraction, then
    min(., max_gpu_total_bytes)."""

    def __init__(self, arch, tp: int, pp: int, s, weights: Term, version: Optional[str]) -> None:
        self.block = int(_num(s, "tokens_per_block", 0) or _num(s, "block_size", 32) or 32)
        cap = _num(s, "max_tokens")
        self.cap = int(cap) if cap else None
        self.frac = float(_num(s, "kv_cache_free_gpu_memory_fraction", 0.0) or _num(s, "free_gpu_memory_fraction",
                                                                                     0.9))
        tokens = int(_num(s, "max_num_tokens", 8192) or 8192)
        batch = int(_num(s, "max_batch_size", 2048) or 2048)
        from . import trt_warmup  # only a TensorRT-LLM role pays for it

        act = trt_warmup.warmup(arch, tokens, batch, tp, trt_warmup.runs_engine(s, version))
        graphs = Term("CUDA graphs and NCCL", 1.0 * GIB + (0.5 * GIB if tp * pp > 1 else 0), 0.3 * GIB, 2.5 * GIB, "")
        self.sums = _sums((CONTEXT, weights, act, graphs))
        mgb = _num(s, "max_gpu_total_bytes")
        self.most = float(mgb) if mgb else None

    def at(self, total: float, acc: Accelerator, smi: Optional[int] = None) -> tuple:  # smi: _Sglang.at
        sums, frac = self.sums, self.frac
        kv, low, high = (total - sums[0]) * frac, (total - sums[1]) * frac, (total - sums[2]) * frac
        most = self.most
        if most is not None:
            kv, low, high = min(kv, most), min(low, most), min(high, most)
        return kv, low, high


class _Sglang:
    """budget._sglang's figures on a device of any memory: memory before weights x mem_fraction_static -
    weights, mem_sglang.terms asked per device (its automatic fraction reads the memory's tiers and the
    device's nvidia-smi figure)."""

    def __init__(self, tp: int, pp: int, s, weights: Term, version: Optional[str], mla: bool,
                 vision: Optional[float] = None, ratio: Optional[float] = None) -> None:
        self.block = int(_num(s, "page_size", 1) or 1)
        cap = _num(s, "max_total_tokens")
        self.cap = int(cap) if cap else None
        self.tp, self.pp, self.settings, self.version, self.weights = tp, pp, s, version, weights
        self.mla, self.vision, self.ratio = mla, vision, ratio
        reserve = mm_reserve(vision, s, version)
        self.mm = reserve[0] if reserve else 0.0

    def at(self, total: float, acc: Accelerator, smi: Optional[int] = None) -> tuple:
        smi = smi or acc.nvidia_smi_total_mib  # the band's top passes its own (accelerators.top_smi_total_mib)
        pre, mfs, mfs_high, _ = mem_sglang.terms(total, smi or total / MIB, self.tp, self.pp,
                                                 self.settings, self.version, getattr(acc, "name", "") or "",
                                                 self.mla, self.vision, self.ratio)
        weights, mm = self.weights, self.mm  # budget._sglang's figures, as it takes them
        return pre.point * mfs - weights.point - mm, pre.low * mfs - weights.high - mm, \
            pre.high * mfs_high - weights.low


def prepare(fields: Dict[str, Any], shared: dict) -> Callable[[Any], Any]:
    """probe(accelerator): the lean estimate's figures of CapacityInput(accelerator=accelerator, **fields),
    `shared` as for compute_lean (one dict for inputs that differ in device and release only)."""
    def lean(acc: Any) -> Any:
        return compute_lean(CapacityInput(accelerator=acc, **fields), shared)

    inp = CapacityInput(accelerator=None, **fields)
    if inp.available_kv_bytes is not None or spanned_releases(inp):
        return lean
    fixed = device_free(inp, shared, True, False)  # the model side not remembered: needs.py remembers the search
    if type(fixed) is not tuple:
        return lean
    engine, tp, pp, settings, ctx, side = fixed
    br, weights, arch = side.br, side.weights, side.arch
    if br is None or not br.bytes_per_token > 0 or weights is None:
        return lean
    version = inp.engine_version
    if engine == "vllm":
        if _num(settings, "num_gpu_blocks_override") or mem_vllm.explicit_kv_bytes(version, settings) is not None:
            return lean  # a pool fixed in blocks or bytes: no device in it
        budget: Any = _Vllm(arch, tp, pp, settings, weights, version, ctx, shared)
        whole = br.bounded_span is not None and reserves_whole(version, settings, arch)
    elif engine == "trtllm":
        budget, whole = _Trtllm(arch, tp, pp, settings, weights, version), False
    elif engine == "sglang" and not sglang_state(arch) and LINEAR not in arch.layer_kinds:
        # (a linear/Mamba model: budget._sglang takes its state pool out by release, mamba_sglang.py)
        vision = vision_tower(arch, settings)
        ratio = vision_ratio(arch) if vision else None
        budget = _Sglang(tp, pp, settings, weights, version, arch.is_mla, vision, ratio)
        whole = False
    else:
        return lean
    block = max(1, budget.block)
    if side.hybrid is not None:
        block = side.hybrid.block  # vLLM raised the attention block to hold a Mamba state per page (mamba.py)
    bpt, bounded, cap, at = br.bytes_per_token, br.bounded_span, budget.cap, budget.at
    # pool.tokens_for's state and reserved blocks, in tokens
    state = br.state_bytes_per_request
    held, kept = math.ceil(state / bpt) if state else 0, RESERVE.get(engine, 0) * block

    def probe(acc: Any) -> Any:
        if type(acc) is not Accelerator:
            return lean(acc)
        kv, low, high = at(float(acc.memory_bytes), acc)
        top = acc.memory_high
        if top > acc.memory_bytes:  # an estimated device's memory band: its top (capacity._memory_band)
            high = max(high, at(float(top), acc, top_smi_total_mib(acc))[2])
        # the band's ends are read for their pool and longest request only, and here the point too
        pool, longest = search_figures(kv, block, bpt, bounded, cap, held, kept, whole)
        return Figures(engine, bpt, kv, low, high, pool, longest,
                       search_figures(low, block, bpt, bounded, cap, held, kept, whole)[1],
                       search_figures(high, block, bpt, bounded, cap, held, kept, whole)[1])

    least: Dict[int, Optional[int]] = {}  # context -> _least_blocks (the same for every end and memory)
    lines: Dict[tuple, tuple] = {}  # ids of (first, last) devices -> the devices, their memory and budgets

    def least_total(context: int, end: int, first: Accelerator, last: Accelerator) -> Optional[float]:
        """A guess (need_search.py checks it with the probe itself) of the device memory from which the end's
        (0 point, 1 low, 2 high) longest request holds `context`, between two devices in one memory tier,
        where the budget is a line in the memory; inf: not on any memory (a token cap)."""
        n = least.get(context, 0)
        if n == 0:
            n = least[context] = _least_blocks(context, block, bpt, bounded, cap, held, kept, whole)
        if n is None:
            return math.inf
        line = lines.get((id(first), id(last)))
        if line is None or line[0] is not first or line[1] is not last:  # held: an id is not reused while kept
            t1, t2 = float(first.memory_bytes), float(last.memory_bytes)
            line = lines[id(first), id(last)] = first, last, t1, t2, at(t1, first), at(t2, last)
        t1, t2, kv1, kv2 = line[2], line[3], line[4][end], line[5][end]
        if not kv2 > kv1 or not t2 > t1:
            return None
        return t1 + (n * block * bpt - kv1) * (t2 - t1) / (kv2 - kv1)

    probe.least_total = least_total  # type: ignore[attr-defined]
    return probe


def _least_blocks(context: int, block: int, bpt: float, bounded, cap: Optional[int], held: int, kept: int,
                  whole: bool) -> Optional[int]:
    """The fewest blocks in the pool whose longest request (search_figures) holds `context`, None when a token
    cap keeps the pool below it. The longest rises with the pool: the count without windows, then doubled and
    halved against the windows' cost."""
    def holds(n: int) -> bool:  # a budget of n blocks and half a token: no rounding takes a block off
        return search_figures(n * block * bpt + bpt / 2, block, bpt, bounded, cap, held, kept, whole)[1] >= context

    lo = -(-(-(-context // block) * block + kept + held) // block) - 1  # too few even without windows
    step, hi = 1, lo + 1
    while not holds(hi):
        if cap and hi * block > cap or hi > 1 << 48:
            return None
        lo, hi, step = hi, hi + step, step * 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if holds(mid) else (mid, hi)
    return hi
