"""What one request holds of a KV pool vLLM logged ("GPU KV cache size: N tokens") for DeepSeek-V4, in the
releases whose layout dsv4_kv reads. The figure is not num_blocks x block_size there:

- 0.20.0: num_blocks // groups x the least block size of its groups (4, the ratio-4 compressor states'), so a
  server that holds 30,000 tokens for one request logs about 5,400 (`_report_kv_cache_config`,
  vllm==0.20.0:vllm/v1/core/kv_cache_utils.py);
- from 0.20.1: max concurrency x max_model_len, the concurrency num_blocks over a request of max_model_len whose
  groups' blocks are weighed by the pages of all their layers against the compressed group's
  (`get_max_concurrency_for_kv_cache_config`, vllm==0.23.0:vllm/v1/core/kv_cache_utils.py).

Either gives num_blocks within a few blocks; one request takes dsv4_kv.request_blocks of them, one block is the
null block. A --num-gpu-blocks-override is num_blocks itself.
"""
from __future__ import annotations

from typing import Any, Mapping

from ctxlint.versions import parse_version

from ..records import record
from .dsv4_kv import layout, request_blocks, vllm_breakdown
from .models import ModelArch

_V0_20_1 = parse_version("0.20.1")


def _longest(lay: Mapping[str, Any], block: int, blocks: int) -> int:
    """The longest request, in tokens (vLLM bisects on them), whose blocks fit in `blocks`."""
    low, high = 0, max(0, blocks) * block
    if request_blocks(lay, block, 0) > blocks:
        return 0
    while low < high:
        mid = (low + high + 1) // 2
        low, high = (mid, high) if request_blocks(lay, block, mid) <= blocks else (low, mid - 1)
    return low


def _per_request(lay: Mapping[str, Any], block: int, ctx: int) -> int:
    """vLLM's blocks of one request of max_model_len for its concurrency: each group's blocks weighed by its
    layers' pages, over the compressed group's."""
    sums = lay["page_sums"]
    weighed = -(-ctx // block) * sums[0] + sum(
        (-(-min(span, ctx) // blk) + 1) * pages for (_, span, blk), pages in zip(lay["windows"], sums[1:]))
    return -(-weighed // sums[0])


@record(frozen=True)
class DSV4Reading:
    """The interface of logged.Reading (held.py, model_pool.py) for DeepSeek-V4's groups."""

    tokens: int
    block: int
    lay: Any  # dsv4_kv.layout
    rule: str  # "groups" (0.20.0), "concurrency" (from 0.20.1), "override"
    ctx: int | None
    version: str
    blocks: tuple  # num_blocks, least and most

    @property
    def held(self) -> int:
        return _longest(self.lay, self.block, self.blocks[0] - 1)

    @property
    def high(self) -> int:
        return _longest(self.lay, self.block, self.blocks[1] - 1)

    @property
    def starts(self) -> int:
        return _longest(self.lay, self.block, self.blocks[0])

    hangs = False
    unknown = ""

    def logged_for(self, need: int) -> int:
        """The least figure at which one request of `need` tokens fits (its blocks and the null block)."""
        blocks = request_blocks(self.lay, self.block, need) + 1
        if self.rule == "override":
            return blocks * self.block
        if self.rule == "groups":
            groups = 1 + sum(split for split, _, _ in self.lay["windows"])
            return -(-blocks // groups) * min(blk for _, _, blk in self.lay["windows"])
        per = _per_request(self.lay, self.block, self.ctx or need)
        figure = -(-blocks * (self.ctx or need) // per)
        while -(-figure * per // (self.ctx or need)) < blocks:
            figure += 1
        return figure

    @property
    def text(self) -> str:
        blocks = f"{self.blocks[0]:,}" if self.blocks[0] == self.blocks[1] else \
            f"{self.blocks[0]:,}-{self.blocks[1]:,}"
        held = f"{self.held:,}" if self.held == self.high else f"{self.held:,}-{self.high:,}"
        groups = 1 + sum(split for split, _, _ in self.lay["windows"])
        how = {"override": f"{self.tokens // self.block:,} blocks of --num-gpu-blocks-override",
               "groups": f"{self.tokens:,} as vLLM {self.version} logs it for DeepSeek-V4: num_blocks // {groups} "
                         f"groups x {min(blk for _, _, blk in self.lay['windows'])}, so {blocks} blocks",
               "concurrency": f"{self.tokens:,} as vLLM {self.version} logs it for DeepSeek-V4: max concurrency x "
                              f"max_model_len, so {blocks} blocks"}[self.rule]
        return f"{how}; a request takes its compressed blocks and its window and compressor-state groups' " \
               f"(dsv4_kv), so one request holds {held}; one block is vLLM's null block"


def read_dsv4(tokens: int, arch: ModelArch, draft: int, settings: Mapping[str, Any], ctx: int | None,
              version: str | None, override: bool) -> DSV4Reading | None:
    """The reading of a logged vLLM pool of DeepSeek-V4, or None where its layout is not read (the figure is then
    taken as the pool, as before)."""
    try:
        vllm_breakdown(arch, version, settings, settings.get("kv_cache_dtype"), draft, 1, 1)
    except ValueError:
        return None
    block, mnbt = int(settings["block_size"]), int(settings["max_num_batched_tokens"])
    lay = layout(arch.compress_ratios, arch.index_head_dim or 128, block, mnbt, arch.sliding_window, draft)
    if override:
        return DSV4Reading(tokens, block, lay, "override", ctx, str(version), (tokens // block,) * 2)
    if parse_version(str(version)) < _V0_20_1:
        groups = 1 + sum(split for split, _, _ in lay["windows"])
        low = tokens // min(blk for _, _, blk in lay["windows"]) * groups
        return DSV4Reading(tokens, block, lay, "groups", ctx, str(version), (low, low + groups - 1))
    if not ctx:
        return None
    per = _per_request(lay, block, ctx)  # the figure is int(num_blocks / per x ctx)
    low = -(-tokens * per // ctx)
    return DSV4Reading(tokens, block, lay, "concurrency", ctx, str(version),
                       (low, max(low, -(-(tokens + 1) * per // ctx) - 1)))
