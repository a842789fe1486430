"""What one request holds of a KV pool vLLM logged ("GPU KV cache size: N tokens", or one set with
--num-gpu-blocks-override) for a model with sliding-window or chunked-attention layers, release by release.

vLLM's hybrid KV cache manager puts the layers of each attention kind in KV cache groups of one size and
draws every group's blocks from one pool of num_blocks (a --num-gpu-blocks-override is that num_blocks:
`may_override_num_blocks`). A request takes, in each full-attention group, a block per block_size tokens
and, in each window group, the blocks of its window and one batch (pool.window_cost, kv.vllm_groups). The
log line means something else in each release (read in the package vLLM published, vllm==X, cited as
vllm-project/vllm@vX:path):

- Window layers stored whole (before 0.9.1; the manager off: --disable-hybrid-kv-cache-manager, a KV
  connector (0.9.1-0.12 always, from 0.13 unless --no-disable-hybrid-kv-cache-manager), KV events; chunked
  attention before 0.10.0, beside an EAGLE/MTP draft, and from 0.10.1 unless
  VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE is 1, its default from 0.14.0: ctxlint.physics.vllm_chunked):
  the figure is the pool, num_blocks x block_size, and ctxlint.held reads it as before. An unknown release
  of Llama 4 reads 0.14-0.17 as 0.18 does: 12 full layers beside 36 chunked ones group alike in both.
- 0.9.1-0.20.0: num_blocks // groups x block_size (`_report_kv_cache_config`,
  @v0.10.0/@v0.20.0:vllm/v1/core/kv_cache_utils.py), as if every group held the whole context. A request
  is admitted with its first chunk and its window groups recycle their blocks, so it holds about `groups`
  times the figure, less its windows; 0.20.0 caps the admission reservation of a window group at the same
  bound (`max_admission_blocks_per_request`, @v0.20.0:vllm/v1/core/single_type_kv_cache_manager.py).
- 0.19.x: the same figure, but the admission check `scheduler_reserve_full_isl` (on by default) reserves
  cdiv(length, block) blocks in every group, windows too (`can_fit_full_sequence`,
  @v0.19.0:vllm/v1/core/kv_cache_manager.py): a longer request waits at the head of the queue forever
  (vllm#39734) though vLLM started, so one request holds (num_blocks - 1) // groups blocks.
- From 0.20.1: max concurrency x max_model_len, concurrency = num_blocks / the blocks one request of
  max_model_len takes (@v0.20.1:vllm/v1/core/kv_cache_utils.py; `get_kv_cache_capacity`, @v0.34.0).
Each figure gives num_blocks within a few blocks (the division rounds); one block is the null block.
"""
from __future__ import annotations

from typing import Any, Mapping

from ctxlint.versions import parse_version

from ..records import record
from .kv import vllm_groups
from .logged_eras import CONCURRENCY, FULL_ISL, WHOLE, eras, release_rule, reserves_whole
from .mem_vllm import batch_defaults
from .models import CHUNKED, FULL, SLIDING, ModelArch
from .pool import window_cost
from .terms import GIB


@record(frozen=True)
class Way:
    """One reading: a release's rule, its groups and window span, and the blocks the figure gives."""

    release: str
    rule: str
    label: str = ""  # the releases it stands for, for messages
    full: int = 0  # full-attention groups
    window: int = 0  # window groups
    span: int = 0  # tokens a window group keeps of one request (window + one batch), and extra blocks
    extra: int = 0
    batch: int = 0  # max_num_batched_tokens
    blocks: tuple = (0, 0)  # num_blocks, least and most
    held: tuple = (0, 0)  # what one request holds at each end
    starts: int = 0  # the longest context vLLM's startup check accepts (the least of `blocks`)


def request_blocks(way: Way, block: int, length: int, admission: bool = True) -> int:
    """Blocks one request of `length` tokens takes from the pool; `admission`: as vLLM 0.19.x's admission
    check counts them (every group for the whole request), else as the startup check and the allocator."""
    whole = -(-length // block)
    if way.rule == WHOLE:
        return whole
    if way.rule == FULL_ISL and admission:
        return (way.full + way.window) * whole
    return way.full * whole + window_cost((way.window, way.span, way.extra), block, 1, length) // block


def longest(way: Way, block: int, blocks: int, admission: bool = True) -> int:
    """The longest request, in whole blocks, whose blocks fit in `blocks` (the cost rises with the length)."""
    low, high = 0, max(0, blocks)
    if request_blocks(way, block, 0, admission) > blocks:
        return 0
    while low < high:
        mid = (low + high + 1) // 2
        if request_blocks(way, block, mid * block, admission) <= blocks:
            low = mid
        else:
            high = mid - 1
    return low * block


@record(frozen=True)
class Reading:
    tokens: int  # the figure as logged (or the override's blocks x block_size)
    block: int
    ways: tuple  # Way, one per release rule (and default batch) it may be
    ctx: int | None
    known: bool  # the release is known
    override: bool

    @property
    def held(self) -> int:
        """What one request holds at the most conservative reading (the point every promise is held to)."""
        return min(w.held[0] for w in self.ways)

    @property
    def high(self) -> int:
        return max(w.held[1] for w in self.ways)

    @property
    def starts(self) -> int:
        """The longest context vLLM starts with whichever reading is its (vLLM 0.19.x: above `held` it
        starts, and a request that long is never admitted)."""
        return min(w.starts for w in self.ways)

    @property
    def hangs(self) -> bool:
        """vLLM 0.19.x's admission check: a request above `held` waits forever rather than being refused."""
        return all(w.rule == FULL_ISL for w in self.ways)

    @property
    def unknown(self) -> str:
        """What would settle a band (the release, the device's default batch), or why it stays."""
        what = [] if self.known else ["the vLLM release (the image tag)"]
        if len({w.batch for w in self.ways if w.rule != WHOLE}) > 1:
            what.append("the accelerator (its default max_num_batched_tokens sizes the windows)")
        return " and ".join(what)

    def logged_for(self, need: int) -> int:
        """The least figure (as this deployment gives it) at which one request of `need` tokens fits,
        whichever reading is vLLM's."""
        out = 0
        for way in self.ways:
            blocks = request_blocks(way, self.block, need) + 1  # the null block
            if self.override:
                out = max(out, blocks * self.block)
            elif way.rule == WHOLE:
                out = max(out, blocks * self.block)
            elif way.rule == CONCURRENCY and self.ctx:
                per = request_blocks(way, self.block, self.ctx)
                figure = -(-blocks * self.ctx // per)
                while -(-figure * per // self.ctx) < blocks:
                    figure += 1
                out = max(out, figure)
            else:
                groups = way.full + way.window
                out = max(out, -(-blocks // groups) * self.block)
        return out

    @property
    def text(self) -> str:
        """How the figure was read, for messages."""
        what = f"{self.tokens // self.block:,} blocks of --num-gpu-blocks-override" if self.override else \
            f"{self.tokens:,} as vLLM logs it"
        bodies: dict = {}
        for way in self.ways:  # releases that read it alike are named together
            bodies.setdefault(_way_text(way, self.block, self.override), []).append(way.label or way.release)
        parts = "; ".join(f"{', '.join(dict.fromkeys(labels))}: {body}" for body, labels in bodies.items())
        unknown = "" if self.known else ", release unknown (state the image tag)"
        return f"{what}{unknown}: {parts}; one block is vLLM's null block"


def _way_text(way: Way, block: int, override: bool) -> str:
    held = f"{way.held[0]:,}" if way.held[0] == way.held[1] else f"{way.held[0]:,}-{way.held[1]:,}"
    if way.rule == WHOLE:
        return f"window layers store the whole context, so one request holds {held}"
    blocks = f"{way.blocks[0]:,}" if way.blocks[0] == way.blocks[1] else f"{way.blocks[0]:,}-{way.blocks[1]:,}"
    groups = way.full + way.window
    kind = "chunked-attention" if way.extra == 0 else "sliding-window"
    per = window_cost((1, way.span, way.extra), block, 1, way.span) // block
    how = "" if override else ("max concurrency x max_model_len, so " if way.rule == CONCURRENCY else
                               f"num_blocks // {groups} groups x {block}, so ") + f"{blocks} blocks; "
    takes = (f"its admission check (scheduler_reserve_full_isl) reserves 1 block per {block} tokens in each "
             "group, windows too" if way.rule == FULL_ISL else
             f"a request takes 1 block per {block} tokens in each of {way.full} full-attention group"
             f"{'s' if way.full > 1 else ''} and {per} in each of {way.window} {kind} group"
             f"{'s' if way.window > 1 else ''} (its window and a {way.batch:,}-token batch)")
    return f"{how}{takes}, so one request holds {held}"


def read_logged(tokens: int, block: int, arch: ModelArch, draft: int, settings: Mapping[str, Any],
                ctx: int | None, version: str | None, device: Any, first: str | None,
                override: bool = False) -> Reading | None:
    """The reading of a logged vLLM pool (`override`: one set with --num-gpu-blocks-override, whose blocks
    are num_blocks in every release), or None where the figure is the pool in every release it may be
    (no window layers, window layers of another page size, releases without the hybrid manager): held.py
    then reads it as before. `first`: the first release that loads the model (vllm_archs), `device` an
    Accelerator or None."""
    if arch.compress_ratios:  # DeepSeek-V4: groups of their own block sizes, and their own figure (dsv4_logged)
        from .dsv4_logged import read_dsv4
        return read_dsv4(tokens, arch, draft, settings, ctx, version, override)
    kinds = arch.kinds_cached_by("vllm")  # layers reading another's KV hold no pages of their own
    full, window = kinds.count(FULL) + max(0, draft), kinds.count(SLIDING) + kinds.count(CHUNKED)
    if not window or not full or tokens < block or block <= 0 or arch.is_mla or \
            len(set(kinds) - {FULL, SLIDING, CHUNKED}):
        return None  # one page size in every group is what the arithmetic here assumes (kv.py pads alike)
    if (arch.full_kv_heads or arch.full_head_dim) and not reserves_whole(version, settings, arch):
        # Full layers of their own page size (Gemma-4): vLLM raises the smaller page's block_size to unify them
        # (`unify_kv_cache_spec_page_size`, vllm-project/vllm@v0.19.0:vllm/v1/core/kv_cache_utils.py), which the
        # windows' arithmetic here does not follow. 0.19.x's admission check needs none of it: its figure is
        # num_blocks // groups x the least block_size, and counting every group's blocks at that size
        # holds one request to no more than vLLM admits (a larger block needs fewer).
        return None
    chunked = not kinds.count(SLIDING)
    size = max(arch.sliding_window or 0, arch.attention_chunk_size or 0)
    if not size:
        return None
    v = parse_version(version) if version else None  # not a version ("latest", junk): the release is unknown
    releases = [(version, version)] if v is not None else eras(first)
    ways = []
    for release, label in releases:
        rule = release_rule(release, settings, chunked, draft)
        for batch in _batches(settings, ctx, release, device):
            way = _way(tokens, block, full, window, chunked, size, batch, ctx, release, rule, override, label)
            if way is None:
                return None  # not readable without the context length: as before
            ways.append(way)
    ways = list(dict.fromkeys(ways))
    if all(w.rule == WHOLE for w in ways):
        return None
    return Reading(tokens, block, tuple(ways), ctx, v is not None, override)


def _batches(settings: Mapping[str, Any], ctx: int | None, release: str, device: Any) -> tuple:
    """The max_num_batched_tokens values a window group's span may have (the setting, else vLLM's default
    for the device, mem_vllm.batch_defaults; every device size when the device is not known)."""
    given = settings.get("max_num_batched_tokens")
    if isinstance(given, int) and not isinstance(given, bool) and given > 0:
        return (given,)
    if settings.get("enable_chunked_prefill") is False:
        # without chunked prefill the batch is at least max_model_len (SchedulerConfig): windows hold it all
        return (max(ctx or 0, 2048),)
    llm = settings.get("usage_context") == "llm_class"  # vLLM's offline LLM class (TRL's vllm-serve): its own tier
    if device is not None and getattr(device, "memory_bytes", None):
        return (batch_defaults(float(device.memory_bytes), device.name, release, False, llm)[0][0],)
    return tuple(sorted({batch_defaults(total, "", release, False, llm)[0][0] for total in (0, 70 * GIB, 160 * GIB)}))


def _way(tokens: int, block: int, full: int, window: int, chunked: bool, size: int, batch: int, ctx: int | None,
         release: str, rule: str, override: bool, label: str = "") -> Way | None:
    if rule == WHOLE:
        blocks = tokens // block
        return Way(release, WHOLE, label, blocks=(blocks, blocks), held=((blocks - 1) * block,) * 2,
                   starts=blocks * block)
    grouped = vllm_groups(full, window, release)
    if grouped is None:
        return None
    _, groups_full, groups_window = grouped
    span, extra = (size + batch, 0) if chunked else (size - 1 + batch, 1)
    if ctx:  # a window group never keeps more than max_model_len of a request
        span = min(span, ctx)
    way = Way(release, rule, label, groups_full, groups_window, span, extra, batch)
    count = groups_full + groups_window
    if override:
        low = high = tokens // block
    elif rule == CONCURRENCY:
        if not ctx:
            return None
        per = request_blocks(way, block, ctx)  # the figure is int(num_blocks / per x ctx)
        low = -(-tokens * per // ctx)
        high = max(low, -(-(tokens + 1) * per // ctx) - 1)
    else:
        low = tokens // block * count
        high = low + count - 1
    held = (longest(way, block, low - 1), longest(way, block, high - 1))
    return Way(release, rule, label, groups_full, groups_window, span, extra, batch, (low, high), held,
               longest(way, block, low, admission=False))
