"""Per-GPU KV memory budget, each engine with its own semantics and version rules
(engines.md §0, §1.3, §2.3, §3.3, §4.3, §8, §9; mem_vllm.py and mem_sglang.py hold the
version-dependent rules of vLLM and SGLang, gpu_weights.py the weights each GPU holds).

Every estimated term is a band (physics.terms.Term): the budget has a point estimate and a
low and a high bound. The low bound takes every uncertain term at its worst; the high bound
at its best, so it must stay close to what the engine really allocates: ctxlint reports an
error only when a promise exceeds even the high bound.
"""
from __future__ import annotations

from typing import Any, Mapping

from ..records import field, record, replace
from . import mem_vllm
from .activation import profile_peak
from .models import ModelArch, sglang_state
from .mxfp4_padding import gpt_oss_factor, gpt_oss_padded
from .terms import GIB, MIB, Term, gib, subtract
from .vllm_block import block_size

Step = tuple[str, str, Any]
# vLLM's entry is its block before 0.34.0; an estimate asks vllm_block.default_block(release)
DEFAULT_BLOCK = {"vllm": 16, "sglang": 1, "tgi": 1, "trtllm": 32, "lmdeploy": 64, "llamacpp": 1}
CONTEXT = Term("CUDA context", 0.5 * GIB, 0.3 * GIB, 0.8 * GIB, "CUDA context and allocator slack")
__all__ = ["Budget", "DEFAULT_BLOCK", "GIB", "MIB", "engine_budget", "gib", "sglang_auto_mem_fraction"]


@record(frozen=True)
class Budget:
    kv_bytes: float | None              # per GPU, point estimate; None = cannot be estimated
    block_size: int
    token_cap: int | None = None        # explicit upper bound (max_total_tokens, max_tokens)
    fixed_blocks: int | None = None     # pool given in blocks/cells (overrides bytes)
    knob: str | None = None             # the engine's memory-fraction setting name
    steps: tuple[Step, ...] = ()
    assumptions: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()
    extra: Mapping[str, Any] = field(default_factory=dict)
    kv_low: float | None = None         # the band: the least and the most the engine can leave for KV
    kv_high: float | None = None
    terms: tuple[Term, ...] = ()        # what was subtracted, each with its band
    rule: str = ""                      # the engine's version rule that applied

    def __post_init__(self) -> None:
        if self.kv_bytes is not None:
            if self.kv_low is None:
                object.__setattr__(self, "kv_low", self.kv_bytes)
            if self.kv_high is None:
                object.__setattr__(self, "kv_high", self.kv_bytes)


def _num(settings: Mapping[str, Any], key: str, default: Any = None) -> Any:
    """Read a numeric setting; strings like '0.9' are accepted, junk -> default."""
    v = settings.get(key, default)
    if v is None or isinstance(v, bool):
        return default
    try:
        f = float(v)
    except (TypeError, ValueError):
        return default
    return int(f) if f.is_integer() and not isinstance(default, float) else f


_SGLANG: list = []  # (mem_sglang, vision_tower, mm_reserve, vision_ratio), bound at the first SGLang budget


def _sglang_model():
    """SGLang's memory model, imported at the first SGLang budget: a run of vLLM or llama.cpp roles never imports
    mem_sglang, reserve_sglang and vlm_sglang (~1 ms of a one-file run, issue 15). A list, not an import in each
    call: an estimate search asks for a budget many times a role."""
    if not _SGLANG:
        from . import mem_sglang
        from .vlm_sglang import mm_reserve, vision_ratio, vision_tower
        _SGLANG.append((mem_sglang, vision_tower, mm_reserve, vision_ratio))
    return _SGLANG[0]


def sglang_auto_mem_fraction(gpu_mib: float, tp: int, pp: int, chunked_prefill_size: int | None = None,
                             cuda_graph_max_bs: int | None = None) -> tuple[float, str]:
    return _sglang_model()[0].auto_formula(gpu_mib, tp, pp, chunked_prefill_size, cuda_graph_max_bs)


def engine_budget(engine: str, arch: ModelArch, total: float | None, tp: int, pp: int,
                  settings: Mapping[str, Any], weights: Term | None, smi_mib: float | None = None,
                  device: str = "", version: str | None = None, context: int | None = None,
                  exact_total: bool = True, lean: bool = False, cache: dict | None = None) -> Budget:
    """Dispatch to the engine's own memory semantics. `lean`: the CTX208 search reads only the
    figures; vLLM's budget (nine in ten of its estimates) then writes no steps, rule or formulas.
    `cache`: see mem_vllm.terms (one role's estimates on many devices)."""
    if engine == "vllm":
        return _vllm(arch, total, tp, pp, settings, weights, smi_mib, device, version, context, lean, cache)
    fn = {"sglang": _sglang, "tgi": _tgi, "trtllm": _trtllm, "lmdeploy": _lmdeploy, "llamacpp": _llamacpp}[engine]
    return fn(arch, total, tp, pp, settings, weights, smi_mib, device, version, context)


def _missing(total: float | None, weights: Term | None, block: int, knob: str | None) -> Budget | None:
    errs = []
    if total is None:
        errs.append("accelerator memory unknown: name an accelerator from the catalog or define it")
    if weights is None:
        errs.append("weights per GPU unknown (no parameter count): give total_params_b or available_kv_gib")
    return Budget(None, block, knob=knob, errors=tuple(errs)) if errs else None


def _finish(base: Term, terms: list, block: int, knob: str | None, rule: str, asm: list,
            cap: int | None = None, scale: float = 1.0, scale_high: float | None = None, lean: bool = False) -> Budget:
    """Budget = (base - terms) x scale; the band from every term's band (`lean`: without steps)."""
    point, low, high = subtract(base, terms)
    hi_scale = scale if scale_high is None else scale_high
    kv, kv_low, kv_high = point * scale, low * scale, high * hi_scale
    return Budget(kv, block, token_cap=cap, knob=knob, steps=() if lean else _steps(base, terms, scale, kv),
                  assumptions=tuple(asm), kv_low=kv_low, kv_high=kv_high, terms=(base, *terms), rule=rule)


def _steps(base: Term, terms: list, scale: float, kv: float) -> tuple:
    steps: list[Step] = [(base.label, base.how, base.point)]
    steps += [(t.label + (" (est.)" if t.low != t.high else ""), t.how, t.point) for t in terms]
    shown = " - ".join([f"{base.label} {gib(base.point)}"] + [f"{t.label} {gib(t.point)}" for t in terms])
    steps.append(("KV budget", f"({shown}) x {scale:g}" if scale != 1.0 else shown, kv))
    return tuple(steps)


def _vllm(arch, total, tp, pp, s, weights, smi_mib, device, version, context, lean=False, cache=None) -> Budget:
    block = block_size(s, version)  # 16, 64 from 0.34.0 (vllm_block.py)
    if _num(s, "num_gpu_blocks_override"):
        n = int(_num(s, "num_gpu_blocks_override"))
        return Budget(None, block, fixed_blocks=n, knob="gpu_memory_utilization",
                      steps=(("num_gpu_blocks_override", f"{n} blocks x {block}", n * block),),
                      assumptions=("pool fixed by num_gpu_blocks_override (applied after profiling)",))
    kv = mem_vllm.explicit_kv_bytes(version, s)
    if kv is not None:  # the budget whatever the device (mem_vllm.KV_BYTES_SINCE)
        return Budget(kv, block, steps=(("kv_cache_memory_bytes", "given", kv),))
    miss = _missing(total, weights, block, "gpu_memory_utilization")
    if miss:
        return miss
    base, terms, rule = mem_vllm.terms(arch, total, device, tp, pp, s, version, context, lean, cache)
    fitted = gpt_oss_factor(arch, weights, tp, pp)
    if fitted:
        # vLLM's MXFP4 MoE kernels pad the expert tensors: gpt-oss-120b loads as 65.97 GiB on one H100
        # (vllm#23278), 64.38 GiB on 0.14.1 (vllm#33155, llm-d-benchmark) and 17.22 GiB per GPU at TP 4
        # (dennislee22 log) against ~60.6 GiB of checkpoint; the padding changes between releases. Not
        # DeepSeek-V4's, whose aligned shapes model_side pads by the backends' rules (mxfp4_padding.py).
        weights = gpt_oss_padded(weights, fitted, weights.how + f" x {fitted[0]:g} (vLLM MXFP4 expert padding)")
    asm = [] if lean else [rule, "vLLM: available = total x gpu_memory_utilization - weights - activation peak - "
                                 "non-torch" + (" - CUDA graphs" if any(t.label == "CUDA graphs" for t in terms) else "")
                                 + (" - CUDA context - sizing margin (extensible KV cache)"
                                    if terms[-1].label == "CUDA context + sizing margin" else "")]
    budget = _finish(base, [weights, *terms], block, "gpu_memory_utilization", rule, asm, lean=lean)
    old = mem_vllm.old_multi_gpu(version, tp * pp)
    return _scaled(budget, *mem_vllm.OLD_MULTI_GPU_SCALE, old) if old else budget


def _scaled(b: Budget, point: float, floor: float, top: float, why: str) -> Budget:
    """A budget the engine is known to leave only a fraction of: each positive figure (the point, the
    band's floor and top) is scaled by its factor; a shortfall stays as it is."""
    def shrink(x, by):
        return x * by if x is not None and x > 0 else x
    kv = shrink(b.kv_bytes, point)
    step = ("KV budget (old profile)", f"{gib(b.kv_bytes)} x {point:g} (band x {floor:.2f} to x {top:g})", kv)
    return replace(b, kv_bytes=kv, kv_low=shrink(b.kv_low, floor), kv_high=shrink(b.kv_high, top),
                               steps=(*b.steps, step), assumptions=(*b.assumptions, why))


def _sglang(arch, total, tp, pp, s, weights, smi_mib, device, version, context) -> Budget:
    block = int(_num(s, "page_size", 1) or 1)
    miss = _missing(total, weights, block, "mem_fraction_static")
    if miss:
        return miss
    mem_sglang, vision_tower, mm_reserve, vision_ratio = _sglang_model()
    vision = vision_tower(arch, s)
    pre, mfs, mfs_high, how = mem_sglang.terms(total, smi_mib or total / MIB, tp, pp, s, version, device,
                                             arch.is_mla, vision, vision_ratio(arch) if vision else None)
    # a multimodal model's post-sizing caches (vlm_sglang.mm_reserve): off the point and the low end, not the top
    mm = mm_reserve(vision, s, version)
    kv = pre.point * mfs - weights.point - (mm[0] if mm else 0)
    kv_low = pre.low * mfs - weights.high - (mm[0] if mm else 0)
    kv_high = pre.high * mfs_high - weights.low
    less = f" - {mm[1]}" if mm else ""
    steps: list[Step] = [(pre.label, pre.how, pre.point), ("mem_fraction_static", how, mfs),
                         ("weights", weights.how, weights.point),
                         ("KV budget", f"{gib(pre.point)} x {mfs:g} - weights {gib(weights.point)}{less}", kv)]
    rule = f"SGLang {version or '(version unknown)'}: KV = memory before weights x mem_fraction_static - weights"
    asm = [rule, f"mem_fraction_static {mfs:g}: {how}"]
    if sglang_state(arch):  # a linear/Mamba model: its state pool comes out first (mamba_sglang.py)
        from .mamba_sglang import state_pool
        pool = state_pool(arch, tp, s, version, kv, kv_low, kv_high)
        if pool is not None:
            kv, kv_low, kv_high = kv - pool.point, kv_low - pool.low, kv_high - pool.high
            label, formula, _ = steps.pop()
            steps += [("state pool", f"{pool.requests:,} requests x {pool.per_request:,} B ({pool.how})", pool.point),
                      (label, f"{formula} - state pool {gib(pool.point)} ({pool.requests:,} requests' state)", kv)]
            asm.append(pool.note)
    cap = _num(s, "max_total_tokens")
    return Budget(kv, block, token_cap=int(cap) if cap else None, knob="mem_fraction_static", steps=tuple(steps),
                  assumptions=tuple(asm), kv_low=kv_low, kv_high=kv_high, terms=(pre, weights), rule=rule)


def _tgi(arch, total, tp, pp, s, weights, smi_mib, device, version, context) -> Budget:
    """TGI measures free memory after its warmup forward (the peak stays counted) and keeps a
    wiggle room: >= 3.0 `free - (1 - fraction x w) x total` (w 0.95 in 3.0.x, 0.93 in 3.1-3.2,
    0.90 from 3.3); 2.x `(free - (1 - fraction) x total) x w` (0.95, 0.90 in 2.4)."""
    from ctxlint.versions import parse_version

    block = int(_num(s, "block_size", 1) or 1)
    miss = _missing(total, weights, block, "cuda_memory_fraction")
    if miss:
        return miss
    v = parse_version(version) if version else None
    frac = float(_num(s, "cuda_memory_fraction", 1.0))
    if _num(s, "TGI_WIGGLE_ROOM") is not None:
        w = float(_num(s, "TGI_WIGGLE_ROOM"))
    elif v is None or v >= parse_version("3.3.0") or parse_version("2.4.0") <= v < parse_version("3.0.0"):
        w = 0.90
    else:
        w = 0.93 if v >= parse_version("3.1.0") else 0.95
    tokens = int(_num(s, "max_batch_prefill_tokens", 4096) or 4096)
    act = profile_peak(arch, tokens, 1, tp, label="warmup peak")
    nt = Term("non-torch", 0.3 * GIB, 0.1 * GIB, 1.0 * GIB, "NCCL, workspaces")
    base = Term.exact("device memory", total, f"{gib(total)}")
    old = v is not None and v < parse_version("3.0.0")
    reserve = Term.exact("reserve", (1 - frac) * total if old else (1 - frac * w) * total,
                         f"(1 - {frac:g}) x total" if old else f"(1 - {frac:g} x wiggle {w:g}) x total")
    rule = f"TGI {version or '(version unknown: the >= 3.3 rule, the most conservative)'}: " + (
        "KV = (free after warmup - (1 - fraction) x total) x wiggle" if old else
        "KV = free after warmup - (1 - fraction x wiggle) x total")
    terms = [CONTEXT, weights, act, nt, reserve]
    return _finish(base, terms, block, "cuda_memory_fraction", rule, [rule], scale=w if old else 1.0)


def _trtllm(arch, total, tp, pp, s, weights, smi_mib, device, version, context) -> Budget:
    """KV = (total - what the engine holds besides) x free_gpu_memory_fraction (0.9): the PyTorch
    backend's max_num_tokens warmup peak, or a TensorRT engine's execution context (trt_warmup.py)."""
    block = int(_num(s, "tokens_per_block", 0) or _num(s, "block_size", 32) or 32)
    cap = _num(s, "max_tokens")
    miss = _missing(total, weights, block, "kv_cache_free_gpu_memory_fraction")
    if miss:
        return Budget(None, block, token_cap=int(cap) if cap else None, errors=miss.errors) if not cap else \
            Budget(None, block, token_cap=int(cap), assumptions=("pool taken from kv_cache_config.max_tokens only",))
    frac = float(_num(s, "kv_cache_free_gpu_memory_fraction", 0.0) or _num(s, "free_gpu_memory_fraction", 0.9))
    tokens = int(_num(s, "max_num_tokens", 8192) or 8192)
    batch = int(_num(s, "max_batch_size", 2048) or 2048)
    from . import trt_warmup  # only a TensorRT-LLM role pays for it

    engine = trt_warmup.runs_engine(s, version)
    act = trt_warmup.warmup(arch, tokens, batch, tp, engine)
    graphs = Term("CUDA graphs and NCCL", 1.0 * GIB + (0.5 * GIB if tp * pp > 1 else 0), 0.3 * GIB, 2.5 * GIB,
                  "captured during the warmup")
    base = Term.exact("device memory", total, gib(total))
    rule = f"TensorRT-LLM {version or ''}{' TensorRT engine' if engine else ''}: KV = (total - {act.label}) x " \
        f"free_gpu_memory_fraction {frac:g}".replace("  ", " ").replace(" : ", ": ")
    budget = _finish(base, [CONTEXT, weights, act, graphs], block, "kv_cache_free_gpu_memory_fraction", rule,
                     [rule], cap=int(cap) if cap else None, scale=frac)
    mgb = _num(s, "max_gpu_total_bytes")
    if mgb:
        from ctxlint.records import replace
        budget = replace(budget, kv_bytes=min(budget.kv_bytes, float(mgb)), kv_low=min(budget.kv_low, float(mgb)),
                         kv_high=min(budget.kv_high, float(mgb)),
                         steps=budget.steps + (("max_gpu_total_bytes", f"min(budget, {mgb})", float(mgb)),))
    return budget


def _lmdeploy(arch, total, tp, pp, s, weights, smi_mib, device, version, context) -> Budget:
    from .mem_lmdeploy import budget  # only an LMDeploy role pays for the import
    return budget(arch, total, tp, pp, s, weights, version)


def _llamacpp(arch, total, tp, pp, s, weights, smi_mib, device, version, context) -> Budget:
    from . import llamacpp  # only a llama.cpp role pays for it

    train = int(arch.max_position_embeddings or 0)
    found = llamacpp.readings(s, train, version)
    ctx = found[0].cells
    asm = [f"{r.why}: {r.cells} cells" for r in found if not r.why.startswith("ctx_size")]
    steps: list[Step] = [("context cells", found[0].why, ctx)]
    kv = kv_low = kv_high = None
    if total is not None and weights is not None:
        compute = Term("compute buffers", 0.5 * GIB, 0.2 * GIB, 1.5 * GIB, "ggml compute and output buffers")
        kv, kv_low, kv_high = subtract(Term.exact("device memory", total, gib(total)), [CONTEXT, weights, compute])
        steps.append(("memory left for KV (est.)", f"{gib(total)} - context - weights {gib(weights.point)} - compute",
                      kv))
    return Budget(kv, 1, fixed_blocks=ctx if ctx > 0 else None, steps=tuple(steps), assumptions=tuple(asm),
                  errors=() if ctx > 0 else ("llama.cpp ctx_size unknown and no n_ctx_train",),
                  kv_low=kv_low, kv_high=kv_high, extra={"llamacpp": found})
