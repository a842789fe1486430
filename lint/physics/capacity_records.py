"""The records of capacity.estimate: what it is asked (CapacityInput) and what it answers (CapacityResult). Apart
from ctxlint.physics.capacity, which re-exports them."""
from __future__ import annotations

from collections.abc import Mapping  # not typing's: its isinstance() goes through an alias, ~3x slower
from typing import Any

from ..records import field, record
from .weights import WeightFormat

Step = tuple[str, str, Any]


@record(frozen=True)
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
    weights: WeightFormat | None = None       # the weight format in force (None: the checkpoint's own)
    engine_version: str | None = None
    # With no version: the build an image names by its commit (lmsysorg/sglang:nightly-dev-<date>-<commit>), whose
    # DeepSeek-V4 pool sizing dsv4_sglang may have read
    engine_build: str | None = None


@record(frozen=True)
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
    # The band: the least and the most the engine can plausibly give (equal when the budget is known).
    pool_low: int | None = None
    pool_high: int | None = None
    max_context_low: int | None = None
    max_context_high: int | None = None
    kv_budget_low: float | None = None
    kv_budget_high: float | None = None
    weights_low_per_gpu: float | None = None
    weights_high_per_gpu: float | None = None  # the band's top (CTX203 quotes both ends of a format band)
    terms: tuple[dict, ...] = ()   # each estimated term: label, point/low/high bytes, how
    rule: str = ""                 # the engine's version rule that applied
    reported_tokens: int | None = None  # what the engine prints, when it differs from the physical pool
    reported_rule: str = ""
    releases_left_out: str = ""  # an unknown vLLM release's fold: releases that cannot load the model, and why
    layout: str = ""  # why every layer holds the whole context, when a release rule says so (model_side)
    # vLLM 0.19.x's admission check bounds the longest request (logged_eras.reserves_whole): the longest context its
    # startup check accepts at the band's low end, so vLLM starts with a longer one and never admits it
    admission_starts: int | None = None
    # DeepSeek-V4 on vLLM (dsv4_kv): its startup check counts the window and compressor-state groups as a request
    # of max_model_len holds them, null block included: the longest context it accepts at the band's low end
    startup_longest: int | None = None
    # ...and its window groups' terms (pool.window_cost): what a request of any length takes of them (_common.pool_for)
    window_groups: tuple | None = None

    def to_dict(self) -> dict[str, Any]:
        import dataclasses  # JSON output only (records.py: the module costs ~7 ms to import)

        d = dataclasses.asdict(self)
        d["steps"] = [{"label": a, "formula": b, "value": c} for a, b, c in self.steps]
        for k in ("assumptions", "errors", "suggestions", "terms"):
            d[k] = list(d[k])
        return d

    @property
    def banded(self) -> bool:
        return self.pool_low is not None and self.pool_high is not None and self.pool_low != self.pool_high
