"""One entry point: estimate(CapacityInput) -> CapacityResult.

Never raises: missing facts and odd input produce a result whose `errors`
explain what is missing; `steps` show the arithmetic for a reporter, `terms` each
estimated term with its band, and the pool comes with a low and a high bound.
"""
from __future__ import annotations

import math
from collections.abc import Mapping  # not typing's: its isinstance() goes through an alias, ~3x slower
from typing import Any

from ..records import replace
from . import mem_vllm
from .accelerators import Accelerator, lookup_accelerator, top_smi_total_mib
from .budget import DEFAULT_BLOCK, GIB, Budget, engine_budget
from .capacity_records import CapacityInput, CapacityResult, Step  # noqa: F401 (re-exported: its callers' names)
from .kv import normalize_engine
from .logged_eras import reserves_whole
from .memo import Memo
from .model_side import model_side
from .models import ModelArch
from .pool import llamacpp_tokens, startup_longest, steps_for, tokens_for, vllm_reported
from .releases import releases_for, span_vllm_releases
from .sources import source_of
from .served import positive_int
from .vllm_block import default_block


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
        errors.append(f"unknown accelerator {acc!r}: define it under `accelerators:` in .ctxlint.yaml "
                      "(memory_gib) or state the KV memory the engine logs (available_kv_gib)")
    return found


def compute(inp: CapacityInput) -> CapacityResult:
    """The estimate without suggestions (suggestions re-run this). A vLLM deployment of unknown
    version is estimated under each release whose memory rules differ (releases.py).

    Memoized exactly (memo.py): a tree repeats models, settings and devices, and the CTX208
    memory-need search probes the same inputs for each repetition."""
    return _MEMO(inp)


def remembered(key: Any) -> CapacityResult | None:
    """The whole estimate compute() made of the input whose exact key is `key`, if it is still remembered."""
    return _MEMO.results.get(key)


def compute_keyed(key: Any, inp: CapacityInput, shared: dict | None = None) -> CapacityResult:
    """compute(inp) for a caller that holds an exact key of `inp` (memo.exact_key of its parts, in a
    tuple no exact_key gives): a role estimated on many devices keys its device-free part once.
    `shared`: a dict the caller passes with every input whose fields differ only in accelerator and
    engine_version, so the model side (model_side.py) is keyed once for all of them, and vLLM's
    device-free budget terms (mem_vllm.terms) are worked out once per release."""
    return _MEMO.keyed(key, inp, None if shared is None else lambda one: _compute(one, shared))


def compute_lean(inp: CapacityInput, shared: dict | None = None) -> CapacityResult:
    """compute(inp)'s figures without their description (see _compute_one), for the CTX208 search;
    `shared` as for compute_keyed. Not remembered: a search keeps the estimates it makes and needs.py
    its answer, so no lean estimate is asked for twice (test_cheaper_estimates); the memo only
    paid for its keys and pushed whole estimates out."""
    return _compute(inp, shared, True)


def spanned_releases(inp: CapacityInput) -> tuple:
    """The vLLM releases (those that can load the model) whose estimates compute(inp) folds into one
    (releases.py), or () when it makes one estimate: compute(inp) with each engine_version, folded."""
    if normalize_engine(getattr(inp, "engine", "") or "") == "vllm" and not inp.engine_version \
            and inp.available_kv_bytes is None and not _kv_bytes_given(inp.settings):
        return releases_for(inp.arch)[0]
    return ()


def _kv_bytes_given(settings) -> bool:
    """`--kv-cache-memory-bytes` is set: the release that runs has the flag (an earlier one refuses it), and it
    is the budget on every such release (mem_vllm.explicit_kv_bytes): no fold over releases."""
    return isinstance(settings, Mapping) and mem_vllm.explicit_kv_bytes(None, settings) is not None


def _compute(inp: CapacityInput, shared: dict | None = None, lean: bool = False) -> CapacityResult:
    if spanned_releases(inp):
        shared = {} if shared is None else shared  # the releases' inputs differ only in engine_version
        # the fold keeps one or two releases' text: the others' figures are made lean (the same figures)
        return span_vllm_releases(inp, lambda release_inp: _compute_one(release_inp, shared, True),
                                  None if lean else lambda release_inp: _compute_one(release_inp, shared, False))
    return _compute_one(inp, shared, lean)


# A role's CTX208 search probes ~30 memory sizes and its suggestions a few more. 4,096 results
# (~4 KB each) hold the real corpus's 3,217 distinct estimates, and bound memory on any tree.
_MEMO = Memo(_compute, 4096)


def _device_free(inp: CapacityInput, shared: dict | None, remember: bool = True) -> tuple | CapacityResult:
    """(engine, tp, pp, settings, context, model side) of an estimate, or its whole answer when the
    engine or the model is unknown."""
    engine = normalize_engine(getattr(inp, "engine", "") or "")
    if engine is None:
        return _empty(inp, str(getattr(inp, "engine", "")), [f"unknown engine {getattr(inp, 'engine', None)!r}"])
    if not isinstance(inp.arch, ModelArch):
        return _empty(inp, engine, ["model architecture unknown: give a catalog id, a config.json or inline facts"])
    tp, pp = positive_int(inp.tp, 1), positive_int(inp.pp, 1)
    draft = max(0, positive_int(inp.draft_layers, 0)) if inp.draft_layers else 0
    settings = inp.settings if type(inp.settings) is dict or isinstance(inp.settings, Mapping) else {}  # ABC: slow
    ctx = positive_int(inp.context_length, 0) or None
    release = inp.engine_version
    if engine == "sglang" and inp.arch.compress_ratios:
        # DeepSeek-V4: SGLang sets page_size 256 whatever is asked (dsv4_sglang.PAGE), and its pools are read per
        # nightly build too
        settings = {**settings, "page_size": 256}
        release = release or (f"build:{inp.engine_build}" if inp.engine_build else None)
    return engine, tp, pp, settings, ctx, model_side(engine, inp.arch, tp, pp, inp.dp, inp.kv_cache_dtype, draft,
                                                     settings, inp.weights, release, shared, ctx, remember)


def device_free(inp: CapacityInput, shared: dict | None, lean: bool, remember: bool = True) -> tuple | CapacityResult:
    """_device_free, kept in `shared` for a role's lean estimates on ~30 devices (`shared`: inputs that
    differ in device and release only); lean_probe.py prepares them from the same tuple, its model side not
    remembered (`remember`, model_side.py)."""
    keep = lean and shared is not None and (inp.engine_version is None or type(inp.engine_version) is str)
    fixed = shared.get(("device-free", inp.engine_version)) if keep else None
    if fixed is None:
        fixed = _device_free(inp, shared, remember)
        if keep and type(fixed) is tuple:
            shared["device-free", inp.engine_version] = fixed
    return fixed


def _compute_one(inp: CapacityInput, shared: dict | None = None, lean: bool = False) -> CapacityResult:
    """One estimate. `lean`: its figures only, for the CTX208 search, which probes ~30 devices per
    role and reads nothing but the pool, longest request and budget figures: the same arithmetic
    runs, but the steps, assumptions, errors and terms (their text was a third of the cost) are
    left empty and vLLM's budget leaves its rule and formulas unwritten (test_cheaper_estimates)."""
    fixed = device_free(inp, shared, lean)
    if type(fixed) is not tuple:
        return fixed  # an answer that reads no device: the engine or the model is unknown
    engine, tp, pp, settings, ctx, side = fixed
    errors: list[str] = []
    acc = _resolve_accel(inp, errors)
    if inp.accelerator_count and positive_int(inp.accelerator_count, 0) and positive_int(inp.accelerator_count, 0) < tp * pp:
        errors.append(f"accelerator_count {inp.accelerator_count} < tp x pp = {tp * pp}")
    arch, br, mnbt, swa_full = side.arch, side.br, side.mnbt, side.swa_full
    if br is None:  # the KV side unknown; the weights (when counted) still say whether the model loads (CTX203)
        w = side.weights
        return replace(_empty(inp, engine, errors + [side.error]), accelerator=getattr(acc, "name", None),
                       weights_bytes_per_gpu=w.point if w else None, weights_low_per_gpu=w.low if w else None,
                       weights_high_per_gpu=w.high if w else None)
    bpt = br.bytes_per_token
    steps: list[Step] = [("KV bytes/token/GPU", br.formula, bpt)]
    asm = list(side.assumptions)
    if bpt <= 0:
        errors.append(f"{engine}: {arch.num_kv_heads} KV heads over TP {tp} gives 0 heads per shard")
        return replace(_empty(inp, engine, errors), kv_bytes_per_token_per_gpu=bpt, steps=tuple(steps))
    weights, w_formula = side.weights, side.w_formula
    total = float(acc.memory_bytes) if acc else None
    if acc is not None and not acc.exact and not lean:
        asm.append(f"{acc.name} memory {acc.memory_gib:.2f} GiB is an estimate ({acc.source})")
    block = positive_int(settings.get("block_size") or settings.get("page_size") or settings.get("tokens_per_block"),
                         default_block(inp.engine_version) if engine == "vllm" else DEFAULT_BLOCK[engine])
    if inp.available_kv_bytes is not None:
        if weights is not None:
            steps.append(("weights/GPU", w_formula, weights.point))
        budget = _given(inp, engine, arch, total, tp, pp, settings, weights, block, errors, steps)
        estimate = False
    else:
        budget = engine_budget(engine, arch, total, tp, pp, settings, weights,
                               acc.nvidia_smi_total_mib if acc else None, getattr(acc, "name", "") or "",
                               inp.engine_version, ctx, lean=lean, cache=shared)
        if acc is not None and acc.memory_high > total and budget.kv_high is not None:
            budget = _memory_band(budget, acc, engine, arch, tp, pp, settings, weights, inp.engine_version, ctx,
                                  shared, None if lean else asm)
        if not lean:  # a lean estimate's steps are dropped
            if weights is not None and not any(str(label).startswith("weights") for label, _, _ in budget.steps):
                steps.append(("weights/GPU", w_formula, weights.point))
            steps.extend(budget.steps)
        estimate = True
    asm.extend(budget.assumptions)
    errors.extend(budget.errors)
    block = max(1, budget.block_size)
    if side.hybrid is not None and not budget.fixed_blocks:
        block = side.hybrid.block  # vLLM raised the attention block to hold a Mamba state per page (mamba.py)
    if engine == "llamacpp" and budget.fixed_blocks:
        point, low, high = llamacpp_tokens(budget, bpt, settings, ctx, errors, steps)
    else:
        fixed = budget.fixed_blocks

        whole = engine == "vllm" and br.bounded_span is not None and reserves_whole(inp.engine_version, settings,
                                                                                     arch)

        def tokens(kv, layout, context=ctx):
            return tokens_for(engine, kv, block, layout.bytes_per_token, layout.bounded_span,
                              layout.state_bytes_per_request, budget.token_cap, fixed, context, whole)
        # the band's ends are read for their pool and longest request only: no concurrency (context None)
        point, low, high = tokens(budget.kv_bytes, br), tokens(budget.kv_low, br, None), tokens(budget.kv_high, br, None)
        if not lean:
            steps.extend(steps_for(engine, budget.kv_bytes, block, bpt, point, br.bounded_span, ctx))
        if budget.kv_bytes is not None and budget.kv_bytes <= 0 and not fixed:
            what = "estimated " if budget.knob else ""
            errors.append(f"no memory left for the KV cache ({what}budget {budget.kv_bytes / GIB:.2f} GiB)")
    if engine == "vllm":
        asm.append("vLLM usable = (blocks - 1) x block_size: BlockPool reserves one null block")
    if engine == "sglang":
        asm.append("SGLang max_req_len = min(context_length - 1, pool - 1): the token comes off the context length "
                   "too, so a context length up to the pool fits; prompts are limited to pool - 6")
    reported, reported_rule = None, ""
    if engine == "vllm" and br.sliding_layers_per_gpu and budget.kv_bytes:
        reported, reported_rule = vllm_reported(
            budget.kv_bytes, block, br.full_layers_per_gpu, br.sliding_layers_per_gpu, br.per_layer_bytes,
            br.full_layer_bytes, max(arch.sliding_window or 0, arch.attention_chunk_size or 0), mnbt, ctx,
            inp.engine_version, swa_full)
    elif side.hybrid is not None and budget.kv_bytes:
        from .mamba import vllm_reported as hybrid_reported  # bound: model_side imported it
        reported, reported_rule = hybrid_reported(budget.kv_bytes, side.hybrid, ctx, inp.engine_version)
    fits = None if ctx is None or point.longest is None else point.longest >= ctx
    if fits is False and not lean:
        errors.append(f"context_length {ctx:,} does not fit: one request can hold at most {point.longest:,} tokens")
    return CapacityResult(
        engine=engine, model=arch.name, accelerator=getattr(acc, "name", None), kv_bytes_per_token_per_gpu=bpt,
        weights_bytes_per_gpu=weights.point if weights else None, kv_budget_bytes_per_gpu=budget.kv_bytes,
        budget_is_estimate=estimate, block_size=block, pool_tokens=point.pool,
        max_concurrency_at_context=point.concurrency, max_context_at_concurrency_1=point.longest,
        context_length=ctx, fits=fits, steps=() if lean else tuple(steps),
        assumptions=() if lean else tuple(dict.fromkeys(asm)), errors=() if lean else tuple(dict.fromkeys(errors)),
        kv_formula=br.formula,
        pool_low=low.pool, pool_high=high.pool, max_context_low=low.longest, max_context_high=high.longest,
        kv_budget_low=budget.kv_low, kv_budget_high=budget.kv_high,
        weights_low_per_gpu=weights.low if weights else None, weights_high_per_gpu=weights.high if weights else None,
        terms=() if lean else tuple({"label": t.label, "point": t.point, "low": t.low, "high": t.high, "how": t.how,
                                     "source": source_of(engine, t.label, t.source)} for t in budget.terms),
        rule=budget.rule, reported_tokens=reported, reported_rule=reported_rule, layout=side.layout,
        admission_starts=low.starts, startup_longest=startup_longest(br.bounded_span, block, bpt, low.pool),
        window_groups=br.bounded_span if br.bounded_span and isinstance(br.bounded_span[0], tuple) else None)


def _memory_band(budget, acc, engine, arch, tp, pp, settings, weights, version, ctx, shared, asm):
    """An estimated device's memory is a band (accelerators.Accelerator.memory_high): the budget's top is the
    engine's budget on the band's top (a family's largest size, with that card's nvidia-smi figure:
    top_smi_total_mib), so a device figure that may be low widens the band, never the verdict.
    One more budget, only for an estimated device whose top differs."""
    top = engine_budget(engine, arch, float(acc.memory_high), tp, pp, settings, weights, top_smi_total_mib(acc),
                        acc.name, version, ctx, lean=True, cache=shared)
    if top.kv_high is None or top.kv_high <= budget.kv_high:
        return budget
    if asm is not None:
        asm.append(f"{acc.name} memory {acc.memory_gib:.2f}-{acc.memory_high / GIB:.2f} GiB: the band's top is the "
                   f"budget on {acc.memory_high / GIB:.2f} GiB ({acc.memory_high_source or 'nvidia-smi Total'})")
    return replace(budget, kv_high=top.kv_high)


def _given(inp, engine, arch, total, tp, pp, settings, weights, block, errors, steps) -> Budget:
    """A KV budget the engine logged: no estimate, no band."""
    try:
        kv_given = float(inp.available_kv_bytes)
    except (TypeError, ValueError):
        kv_given = float("nan")
    if not math.isfinite(kv_given) or kv_given < 0:
        errors.append(f"available_kv_bytes {inp.available_kv_bytes!r} is not a non-negative number")
        kv_given = 0.0
    budget = Budget(kv_given, block)
    if engine == "llamacpp":
        budget = replace(engine_budget(engine, arch, total, tp, pp, settings, weights),
                                     kv_bytes=kv_given, kv_low=kv_given, kv_high=kv_given)
    if engine == "sglang" and settings.get("max_total_tokens"):
        budget = replace(budget, token_cap=positive_int(settings.get("max_total_tokens"), 0) or None)
    if engine == "trtllm" and settings.get("max_tokens"):
        budget = replace(budget, token_cap=positive_int(settings.get("max_tokens"), 0) or None)
    steps.append(("KV budget (given)", "available_kv_bytes", kv_given))
    return budget


def estimate(inp: CapacityInput) -> CapacityResult:
    """Compute capacity and, when context_length does not fit, suggestions."""
    try:
        res = compute(inp)
    except Exception as exc:  # last resort: a linter must report, not crash
        return _empty(inp, str(getattr(inp, "engine", "")), [f"internal error while estimating: {exc!r}"])
    if res.fits is False or (res.kv_budget_bytes_per_gpu is not None and res.kv_budget_bytes_per_gpu <= 0):
        from .suggest import suggestions  # local import: suggest imports this module
        try:
            res = replace(res, suggestions=tuple(suggestions(inp, res)))
        except Exception as exc:
            res = replace(res, suggestions=(f"(suggestions unavailable: {exc!r})",))
    return res


__all__ = ["CapacityInput", "CapacityResult", "estimate", "compute", "GIB"]
