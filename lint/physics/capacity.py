"""One entry point: estimate(CapacityInput) -> CapacityResult.

Never raises: missing facts and odd input produce a result whose `errors`
explain what is missing; `steps` show the arithmetic for a reporter.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any, Mapping

from .accelerators import Accelerator, lookup_accelerator
from .budget import DEFAULT_BLOCK, GIB, Budget, engine_budget, gib, weights_per_gpu
from .kv import kv_breakdown, normalize_engine
from .models import ModelArch

Step = tuple[str, str, Any]


@dataclass(frozen=True)
class CapacityInput:
    arch: ModelArch | None
    engine: str
    accelerator: Accelerator | str | None = None
    accelerator_count: int | None = None      # GPUs per replica; checked against tp x pp
    tp: int = 1
    pp: int = 1
    dp: int = 1
    kv_cache_dtype: str | None = "auto"
    settings: Mapping[str, Any] = field(default_factory=dict)  # engine's own field names
    available_kv_bytes: float | None = None   # known KV budget per GPU: skips the memory estimate
    context_length: int | None = None
    draft_layers: int = 0
    extra_accelerators: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class CapacityResult:
    engine: str
    model: str | None
    accelerator: str | None
    kv_bytes_per_token_per_gpu: float | None
    weights_bytes_per_gpu: float | None
    kv_budget_bytes_per_gpu: float | None
    budget_is_estimate: bool
    block_size: int
    pool_tokens: int | None
    max_concurrency_at_context: float | None
    max_context_at_concurrency_1: int | None
    context_length: int | None
    fits: bool | None
    steps: tuple[Step, ...] = ()
    assumptions: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()
    suggestions: tuple[str, ...] = ()
    kv_formula: str | None = None

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["steps"] = [{"label": a, "formula": b, "value": c} for a, b, c in self.steps]
        for k in ("assumptions", "errors", "suggestions"):
            d[k] = list(d[k])
        return d


def _int(x: Any, default: int) -> int:
    try:
        v = int(x)
    except (TypeError, ValueError):
        return default
    return v if v > 0 else default


def _empty(inp: CapacityInput, engine: str, errors: list[str]) -> CapacityResult:
    return CapacityResult(engine=engine, model=getattr(inp.arch, "name", None), accelerator=None,
                          kv_bytes_per_token_per_gpu=None, weights_bytes_per_gpu=None, kv_budget_bytes_per_gpu=None,
                          budget_is_estimate=True, block_size=1, pool_tokens=None, max_concurrency_at_context=None,
                          max_context_at_concurrency_1=None, context_length=inp.context_length, fits=None,
                          errors=tuple(errors))


def _resolve_accel(inp: CapacityInput, errors: list[str]) -> Accelerator | None:
    acc = inp.accelerator
    if isinstance(acc, Accelerator) or acc is None:
        return acc
    found = lookup_accelerator(str(acc), inp.extra_accelerators)
    if found is None:
        errors.append(f"unknown accelerator {acc!r}: add it to extra_accelerators with memory_gib or memory_bytes")
    return found


def compute(inp: CapacityInput) -> CapacityResult:
    """The estimate without suggestions (suggestions re-run this)."""
    engine = normalize_engine(getattr(inp, "engine", "") or "")
    if engine is None:
        return _empty(inp, str(getattr(inp, "engine", "")), [f"unknown engine {getattr(inp, 'engine', None)!r}"])
    if not isinstance(inp.arch, ModelArch):
        return _empty(inp, engine, ["model architecture unknown: give a catalog id, a config.json or inline facts"])
    arch = inp.arch
    errors: list[str] = []
    steps: list[Step] = []
    asm: list[str] = []
    tp, pp = _int(inp.tp, 1), _int(inp.pp, 1)
    draft = max(0, _int(inp.draft_layers, 0)) if inp.draft_layers else 0
    settings = inp.settings if isinstance(inp.settings, Mapping) else {}
    ctx = _int(inp.context_length, 0) or None
    acc = _resolve_accel(inp, errors)
    if inp.accelerator_count and _int(inp.accelerator_count, 0) and _int(inp.accelerator_count, 0) < tp * pp:
        errors.append(f"accelerator_count {inp.accelerator_count} < tp x pp = {tp * pp}")
    swa_ratio = float(settings.get("swa_full_tokens_ratio", 0.8) or 0.8) if engine == "sglang" else 0.8
    window_extra = 0
    if engine == "vllm":
        window_extra = _int(settings.get("max_num_batched_tokens"), 0) or 2048
    try:
        br = kv_breakdown(arch, engine, tp, pp, inp.kv_cache_dtype, draft, window_tokens=window_extra,
                          swa_full_tokens_ratio=swa_ratio, swa_full=bool(settings.get("swa_full")))
    except (ValueError, TypeError, ZeroDivisionError) as exc:
        return dataclasses.replace(_empty(inp, engine, errors + [str(exc)]), accelerator=getattr(acc, "name", None))
    bpt = br.bytes_per_token
    steps.append(("KV bytes/token/GPU", br.formula, bpt))
    asm.extend(br.notes)
    if bpt <= 0:
        errors.append(f"{engine}: {arch.num_kv_heads} KV heads over TP {tp} gives 0 heads per shard")
        return dataclasses.replace(_empty(inp, engine, errors), kv_bytes_per_token_per_gpu=bpt, steps=tuple(steps))
    weights, w_formula, w_notes = weights_per_gpu(arch, tp, pp, draft)
    if weights is not None:
        steps.append(("weights/GPU", w_formula, weights))
    asm.extend(w_notes)
    total = float(acc.memory_bytes) if acc else None
    if acc is not None and not acc.exact:
        asm.append(f"{acc.name} memory {acc.memory_gib:.2f} GiB is an estimate ({acc.source})")
    if inp.available_kv_bytes is not None:
        try:
            kv_given = float(inp.available_kv_bytes)
        except (TypeError, ValueError):
            kv_given = float("nan")
        if not math.isfinite(kv_given) or kv_given < 0:
            errors.append(f"available_kv_bytes {inp.available_kv_bytes!r} is not a non-negative number")
            kv_given = 0.0
        budget = Budget(kv_given, _int(settings.get("block_size") or settings.get("page_size")
                                       or settings.get("tokens_per_block"), DEFAULT_BLOCK[engine]))
        if engine == "llamacpp":
            budget = engine_budget(engine, arch, total, tp, pp, settings, weights)
            budget = dataclasses.replace(budget, kv_bytes=kv_given)
        if engine == "sglang" and settings.get("max_total_tokens"):
            budget = dataclasses.replace(budget, token_cap=_int(settings.get("max_total_tokens"), 0) or None)
        steps.append(("KV budget (given)", "available_kv_bytes", kv_given))
        estimate = False
    else:
        budget = engine_budget(engine, arch, total, tp, pp, settings, weights,
                               acc.nvidia_smi_total_mib if acc else None)
        steps.extend(budget.steps)
        estimate = True
    asm.extend(budget.assumptions)
    errors.extend(budget.errors)
    pool, max1, conc = _pool(engine, budget, br, settings, ctx, errors, steps, asm)
    fits = None if ctx is None or max1 is None else max1 >= ctx
    if fits is False:
        errors.append(f"context_length {ctx:,} does not fit: one request can hold at most {max1:,} tokens")
    return CapacityResult(
        engine=engine, model=arch.name, accelerator=getattr(acc, "name", None), kv_bytes_per_token_per_gpu=bpt,
        weights_bytes_per_gpu=weights, kv_budget_bytes_per_gpu=budget.kv_bytes, budget_is_estimate=estimate,
        block_size=budget.block_size, pool_tokens=pool, max_concurrency_at_context=conc,
        max_context_at_concurrency_1=max1, context_length=ctx, fits=fits, steps=tuple(steps),
        assumptions=tuple(dict.fromkeys(asm)), errors=tuple(dict.fromkeys(errors)), kv_formula=br.formula)


def _pool(engine: str, budget: Budget, br, settings: Mapping[str, Any], ctx: int | None,
          errors: list[str], steps: list[Step], asm: list[str]) -> tuple[int | None, int | None, float | None]:
    """Pool tokens, longest single request, and concurrency at ctx."""
    block, bpt = max(1, budget.block_size), br.bytes_per_token
    if engine == "llamacpp" and budget.fixed_blocks:
        cells = budget.fixed_blocks
        need = cells * bpt
        steps.append(("KV bytes for ctx_size", f"{cells} cells x {bpt:g} B", need))
        if budget.kv_bytes is not None and need > budget.kv_bytes:
            errors.append(f"llama.cpp ctx_size {cells:,} needs {gib(need)} of KV but only {gib(budget.kv_bytes)} is left")
        par = _int(settings.get("parallel"), 1)
        per_slot = cells if settings.get("kv_unified") or par <= 1 else cells // par
        steps.append(("per-slot context", f"{cells} / parallel {par}" if per_slot != cells else "kv_unified", per_slot))
        conc = round(cells / ctx, 2) if ctx else None
        return cells, per_slot, conc
    if budget.fixed_blocks:
        pool = budget.fixed_blocks * block
    elif budget.kv_bytes is None:
        if budget.token_cap:
            pool = budget.token_cap
        else:
            return None, None, None
    else:
        if budget.kv_bytes <= 0:
            what = "estimated " if budget.knob else ""
            errors.append(f"no memory left for the KV cache ({what}budget {gib(budget.kv_bytes)}); "
                          "if the engine starts, pass its logged KV memory as available_kv_bytes")
            return 0, 0, 0.0 if ctx else None
        pool = int(budget.kv_bytes // (block * bpt)) * block
        steps.append(("pool tokens", f"floor({gib(budget.kv_bytes)} / ({block} x {bpt:g} B)) x {block}", pool))
    if budget.token_cap and pool > budget.token_cap:
        pool = budget.token_cap // block * block
        steps.append(("capped by explicit token limit", str(budget.token_cap), pool))
    # Per-request overheads that come out of the same pool.
    bounded = math.ceil(br.bounded_bytes_per_request / bpt) if br.bounded_bytes_per_request else 0
    state = math.ceil(br.state_bytes_per_request / bpt) if br.state_bytes_per_request else 0
    reserve = {"vllm": block, "lmdeploy": block, "sglang": 1}.get(engine, 0)  # null block / last slot
    max1 = max(0, (pool - reserve - bounded - state) // block * block)
    if engine == "sglang":
        asm.append("SGLang max_req_len = min(context_length - 1, pool - 1); prompts are limited to pool - 6")
    if engine == "vllm":
        asm.append("vLLM usable = (blocks - 1) x block_size: BlockPool reserves one null block")
    if bounded:
        steps.append(("window layers per request", f"{br.bounded_bytes_per_request:,.0f} B / {bpt:g}", bounded))
    steps.append(("longest single request", f"{pool} - reserved {reserve} - windows {bounded} - state {state}", max1))
    conc = None
    if ctx:
        per_req = math.ceil(ctx / block) * block + bounded + state
        conc = round((pool - reserve) / per_req, 2) if per_req else None
        steps.append(("max concurrency at context", f"({pool} - {reserve}) / {per_req}", conc))
    return pool, max1, conc


def estimate(inp: CapacityInput) -> CapacityResult:
    """Compute capacity and, when context_length does not fit, suggestions."""
    try:
        res = compute(inp)
    except Exception as exc:  # last resort: a linter must report, not crash
        return _empty(inp, str(getattr(inp, "engine", "")), [f"internal error while estimating: {exc!r}"])
    if res.fits is False or (res.kv_budget_bytes_per_gpu is not None and res.kv_budget_bytes_per_gpu <= 0):
        from .suggest import suggestions  # local import: suggest imports this module
        try:
            res = dataclasses.replace(res, suggestions=tuple(suggestions(inp, res)))
        except Exception as exc:
            res = dataclasses.replace(res, suggestions=(f"(suggestions unavailable: {exc!r})",))
    return res


__all__ = ["CapacityInput", "CapacityResult", "estimate", "compute", "GIB"]
