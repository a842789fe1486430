"""From a KV budget to tokens: the pool, the longest single request, the concurrency at a
context length, each for the budget's point and its band; and, for vLLM's hybrid models,
the figure vLLM itself prints ("GPU KV cache size"), which follows its own version rule.
"""
from __future__ import annotations

import math
from typing import Any, Mapping

from ctxlint.versions import parse_version

from ..records import record
from .kv import vllm_groups
from .terms import gib

# The step a vLLM 0.19 point writes for its startup limit (held.py reads it: the point followed the admission check)
ADMITTED_STEP = "longest context vLLM starts with"

_V0_20_1 = parse_version("0.20.1")  # vLLM prints max concurrency x max_model_len (vllm_reported)

Step = tuple[str, str, Any]
# Blocks kept back from every request: vLLM's BlockPool takes one block as its null block before any
# request gets one (`self.null_block = self.free_block_queue.popleft()`,
# vllm-project/vllm@002f34915134cfd1a7d6ed777edd67dcc2289466:vllm/v1/core/block_pool.py); LMDeploy's last block.
RESERVE = {"vllm": 1, "lmdeploy": 1}


@record(frozen=True)
class Tokens:
    pool: int | None
    longest: int | None  # one request, alone
    concurrency: float | None  # requests of the context length at once
    # vLLM 0.19.x's admission check (`whole_windows`): the longest context its startup check accepts, which
    # counts the window layers up to their window; `longest` is then what the admission check admits
    starts: int | None = None


def window_cost(bounded: tuple | None, block: int, bpt: float, length: int) -> int:
    """Tokens of the pool (counted in the full-attention layers' bytes per token) that the window layers
    take for one request of `length` tokens: their span or the request, in whole blocks (KVBreakdown
    .bounded_span: bytes per token of the window layers, span, extra blocks)."""
    if not bounded:
        return 0
    if isinstance(bounded[0], tuple):  # window groups of their own blocks (dsv4_kv: per token, span, extra, block)
        return sum(window_cost(term[:3], term[3], bpt, length) for term in bounded)
    per_token, span, extra = bounded
    return math.ceil(per_token * (-(-min(span, length) // block) + extra) * block / bpt)


def _longest(avail: int, block: int, bpt: float, bounded: tuple | None) -> int:
    """The longest request, in whole blocks (in tokens where the window groups have blocks of their own), whose
    own tokens and window-layer tokens fit in `avail`."""
    if not bounded:
        return max(0, avail // block * block)
    if isinstance(bounded[0], tuple):
        # several window groups of their own blocks (DeepSeek-V4, dsv4_kv): the cost rises with the length, and a
        # length short of a whole block can still save the window groups' blocks, so halve on tokens as vLLM's
        # _estimate_max_model_len_from_groups does (its 13,528 for vllm#44376, not 13,312)
        low, high = 0, max(0, avail)
        while low < high:
            mid = (low + high + 1) // 2
            if -(-mid // block) * block + window_cost(bounded, block, bpt, mid) <= avail:
                low = mid
            else:
                high = mid - 1
        return low
    span = bounded[1]
    longest = (avail - window_cost(bounded, block, bpt, span)) // block * block
    if longest >= span:  # past its span a window costs the same: the longest is past it too
        return longest
    # shorter than the span, a request costs its length twice over (its own and its windows'): a line guesses
    # the length in whole blocks; the cost rises with the length, so halving settles it: below the guess when
    # the guess does not fit, else up to the last block short of the span. (Stepping a block at a time from the
    # guess took millions of steps for a one-token block and a budget far from the line.)
    ratio = bounded[0] / bpt
    guess = max(0, int((avail - ratio * bounded[2] * block) / (1 + ratio)) // block)

    def fits(blocks: int) -> bool:
        length = blocks * block
        return length + window_cost(bounded, block, bpt, length) <= avail

    low, high = (guess, max(guess, (span - 1) // block)) if fits(guess) else (0, guess - 1)
    while low < high:
        mid = (low + high + 1) // 2
        if fits(mid):
            low = mid
        else:
            high = mid - 1
    return low * block


def startup_longest(bounded: tuple | None, block: int, bpt: float, pool: int | None) -> int | None:
    """The longest context vLLM's startup check accepts where the window groups have blocks of their own
    (DeepSeek-V4, dsv4_kv): the pool's blocks, null block counted, hold its own and its windows' blocks."""
    if not bounded or not isinstance(bounded[0], tuple) or pool is None:
        return None
    return _longest(pool, block, bpt, bounded)


def whole_windows(bounded: tuple | None, pool: int) -> tuple | None:
    """`bounded` as vLLM 0.19.x's admission check counts it (release_rule's FULL_ISL, ctxlint.physics.logged_eras):
    `can_fit_full_sequence` asks every KV cache group for cdiv(length, block_size) blocks, window groups too
    (no token of a new request is past its window yet, `get_num_skipped_tokens(0)`;
    vllm-project/vllm@v0.19.0:vllm/v1/core/kv_cache_manager.py, @v0.19.0:vllm/v1/core/single_type_kv_cache_manager.py
    `get_num_blocks_to_allocate`), so the window layers cost a block per block_size tokens of the whole request,
    with no extra block: a span no request in the pool reaches."""
    return None if not bounded else (bounded[0], max(1, pool) + 1, 0)


def tokens_for(engine: str, kv: float | None, block: int, bpt: float, bounded: tuple | None,
               state: float | None, cap: int | None, fixed: int | None, ctx: int | None,
               admission: bool = False) -> Tokens:
    """Pool and longest request for one budget value (bytes per GPU). `admission`: vLLM 0.19.x's admission
    check bounds one request (whole_windows); the startup check's longest is then `starts`."""
    if fixed:
        pool = fixed * block
    elif kv is None:
        if not cap:
            return Tokens(None, None, None)
        pool = cap
    elif kv <= 0:
        return Tokens(0, 0, 0.0 if ctx else None)
    else:
        pool = int(kv // (block * bpt)) * block
    if cap and pool > cap:
        pool = cap // block * block
    held = math.ceil(state / bpt) if state else 0
    kept = RESERVE.get(engine, 0) * block
    # `longest` is the largest context length one request of which the pool holds, the figure every
    # promise is compared with. SGLang keeps one token back, but from the context length as much as from
    # the pool (max_req_len = min(context_len - 1, max_total_num_tokens - 1),
    # sgl-project/sglang@4f34e24af764d45c2dde4a17cadcdaa7d08a7248:python/sglang/srt/managers/tp_worker.py),
    # so a context length up to the pool loses nothing to the pool: it does not count here.
    starts = None
    if admission and bounded:
        # the startup check sums each layer's most for one request of max_model_len (window layers up to their
        # window) against the whole KV memory, null block included (held.starts_and_hangs)
        starts = _longest(pool - held, block, bpt, bounded)
        bounded = whole_windows(bounded, pool)
    longest = _longest(pool - kept - held, block, bpt, bounded)
    conc = None
    if ctx:
        per_req = math.ceil(ctx / block) * block + window_cost(bounded, block, bpt, ctx) + held
        conc = round((pool - kept - (1 if engine == "sglang" else 0)) / per_req, 2) if per_req else None
    return Tokens(pool, longest, conc, starts)


def search_figures(kv: float, block: int, bpt: float, bounded: tuple | None, cap: int | None, held: int, kept: int,
                   admission: bool) -> tuple[int, int]:
    """tokens_for's pool and longest request for a budget in bytes (a number, no fixed pool), without the
    concurrency and the startup check's figure: what the CTX208 search reads of each of its ~30 estimates
    (lean_probe.py). `held`, `kept`: tokens_for's state and reserved blocks, in tokens."""
    if kv <= 0:
        return 0, 0
    pool = int(kv // (block * bpt)) * block
    if cap and pool > cap:
        pool = cap // block * block
    if admission and bounded:
        bounded = whole_windows(bounded, pool)
    return pool, _longest(pool - kept - held, block, bpt, bounded)


def vllm_reported(kv: float | None, block: int, full_layers: int, window_layers: int, per_layer: float,
                  full_per_layer: float, window: int, mnbt: int, ctx: int | None, version: str | None,
                  windows_full: bool) -> tuple[int | None, str]:
    """What vLLM prints as "GPU KV cache size: N tokens" for a model with sliding-window layers.

    0.9.1-0.20.0: num_blocks // num_groups x block_size, i.e. as if every layer stored the full
    context; from 0.20.1: max concurrency x max_model_len, which counts window layers only up to their
    window (vllm-project/vllm@v0.20.0/@v0.20.1:vllm/v1/core/kv_cache_utils.py `_report_kv_cache_config`;
    ctxlint.physics.logged reads such a figure back). Without the hybrid KV cache manager the window
    layers do store everything, and the print is the physical pool."""
    if kv is None or kv <= 0 or not window_layers:
        return None, ""
    all_layers = full_layers * full_per_layer + window_layers * per_layer
    if windows_full:
        return int(kv // (block * all_layers)) * block, "window layers store the whole context"
    # an unknown release groups as the releases before 0.18.0 do (groups of the least layer count)
    grouped = vllm_groups(full_layers, window_layers, version) or vllm_groups(full_layers, window_layers, "0.17.0")
    if grouped is None:
        return None, ""
    group, groups_full, groups_window = grouped
    page = block * max(per_layer, full_per_layer)
    blocks = int(kv // (page * group))
    old = blocks // (groups_full + groups_window) * block
    v = parse_version(version) if version else None
    if ctx and (v is None or v >= _V0_20_1):
        per_request = groups_full * math.ceil(ctx / block) + groups_window * (
            math.ceil(min(window - 1 + mnbt, ctx) / block) + 1)
        new = int(blocks / per_request * ctx) if per_request else None
        if v is not None:
            return new, ">= 0.20.1: max concurrency x max_model_len"
        return old, f"0.9.1-0.20.0: {old:,}; >= 0.20.1 prints {new:,} (max concurrency x max_model_len)"
    return old, "0.9.1-0.20.0: num_blocks // groups x block_size, as if every layer held the whole context"


def steps_for(engine: str, kv: float | None, block: int, bpt: float, point: Tokens, bounded: tuple | None,
              ctx: int | None) -> list:
    steps: list[Step] = []
    if point.starts is not None and point.pool is not None:  # vLLM 0.19.x's admission check (tokens_for)
        bounded = whole_windows(bounded, point.pool)
    if kv is not None and point.pool is not None:
        steps.append(("pool tokens", f"floor({gib(kv)} / ({block} x {bpt:g} B)) x {block}", point.pool))
    if bounded and point.longest is not None:
        # what the window layers take of the longest single request (held.py says it beside the null block)
        length = point.longest
        terms = bounded if isinstance(bounded[0], tuple) else (bounded + (block,),)
        held = " + ".join(f"(ceil(min({span:,}, {length:,}) / {blk}){' + 1' if extra else ''}) x {blk} x "
                          f"{per_token:g} B" for per_token, span, extra, blk in terms) if point.starts is None \
            else f"ceil({length:,} / {block}) x {block} x {bounded[0]:g} B"  # the admission check's: the whole request
        steps.append(("window layers per request", f"({held}) / {bpt:g}", window_cost(bounded, block, bpt, length)))
    if point.longest is not None:
        steps.append(("longest single request", "pool - reserved blocks - window layers - state", point.longest))
    if point.starts is not None:
        steps.append((ADMITTED_STEP, "pool - window layers up to their window - state "
                      "(its startup check; longer requests up to it are never admitted)", point.starts))
    if ctx and point.concurrency is not None:
        steps.append(("max concurrency at context", f"pool / {ctx:,} tokens per request", point.concurrency))
    return steps


def llamacpp_tokens(budget: Any, bpt: float, settings: Mapping[str, Any], ctx: int | None, errors: list,
                    steps: list) -> tuple[Tokens, Tokens, Tokens]:
    """llama.cpp's cells (point, low, high): the pool it allocates, after --fit where -c is unset, and what
    one slot holds of it (physics/llamacpp.py). Two readings of a build not proven are the band's ends."""
    from .llamacpp import FIT_MARGIN, fit_cells, per_slot  # bound: budget._llamacpp imported the module

    found = budget.extra.get("llamacpp") or ()
    ends = []
    for i, reading in enumerate(found):
        for kv in ((budget.kv_bytes,) if i == 0 else ()) + (budget.kv_low, budget.kv_high):
            cells = fit_cells(reading, kv, bpt, settings)
            ends.append(Tokens(cells, per_slot(cells, reading), round(cells / ctx, 2) if ctx else None))
    point = ends[0]
    low = Tokens(min(t.pool for t in ends), min(t.longest for t in ends), None)
    high = Tokens(max(t.pool for t in ends), max(t.longest for t in ends), None)
    reading = found[0]
    need = reading.cells * bpt
    steps.append(("KV bytes for ctx_size", f"{reading.cells} cells x {bpt:g} B", need))
    if reading.auto and point.pool != reading.cells:
        steps.append(("cells after --fit", f"(memory left for KV - {FIT_MARGIN >> 20} MiB) / {bpt:g} B, in steps of "
                      f"{256 * reading.streams}", point.pool))
    elif budget.kv_bytes is not None and need > budget.kv_bytes:
        errors.append(f"llama.cpp ctx_size {reading.cells:,} needs {gib(need)} of KV but only "
                      f"{gib(budget.kv_bytes)} is left")
    how = f"{point.pool} / parallel {reading.streams}" if reading.streams > 1 else "kv_unified"
    if reading.cap is not None and point.longest == reading.cap:
        how = f"kv_unified_per_slot {reading.cap}"
    steps.append(("per-slot context", how, point.longest))
    return point, low, high
