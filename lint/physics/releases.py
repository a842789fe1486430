"""When a deployment does not say which vLLM release it runs (`vllm/vllm-openai:latest`, a
custom image, a bare `vllm serve`), estimate it under each release whose memory rules differ
and span them.

Taking each term's worst value from a different release would stack behaviours no single
release has (0.12's sampler peak, 0.8's CUDA context counted as non-torch, 0.20's CUDA-graph
estimate): a budget smaller than any release leaves, and false errors on setups vLLM
documents as working (Llama-3.1-8B on one L4 at 32k). Instead the point estimate follows the
release that leaves the least (the most conservative known behaviour, named in the message):
each figure (budget, pool, longest request) is the least any release gives; the band runs
from the least any release can leave to the most: an error then means no release holds the
promise; inside the band it is a warning that asks for the image tag.

A release that cannot load the model's architecture cannot be the one running (vllm_archs.py):
the fold leaves out every release before the model's first, and the range of rules that first
release falls in is estimated under that release itself (Qwen3-Next, from 0.10.2: 0.10.2, 0.12.0,
...). The fold says which were left out and why.
"""
from __future__ import annotations

from typing import Callable, Dict, Optional, Tuple

from ctxlint.versions import parse_version

from ..records import replace
from .models import CHUNKED, FULL, SLIDING
from .vllm_archs import first_release, source

# Releases whose memory rules differ (mem_vllm.py): 0.8.5 (V1 default, CUDA context counted,
# device-name batch rule), 0.9.0 (A100 gets the small batch), 0.10.1 (hybrid KV cache manager,
# light sampler), 0.12.0 (the heavier sampler peak), 0.17.0 (light again), 0.20.0 (CUDA graphs
# estimated, gpu_memory_utilization 0.92), 0.28.0 (16,384-token batch on >= 160 GiB), 0.34.0 (the extensible KV
# cache: sized after warmup and capture, utilization 1.0 by default; vllm_extensible.py).
# Llama 4's chunked layers (vllm_chunked.py) are whole by default in 0.10.1-0.13 and bounded from 0.14.0: 0.10.1
# and 0.12.0 stand for the one, 0.17.0 on for the other, and 0.14-0.16 (the heavier sampler, the chunks bounded)
# leave a pool between 0.12.0's and 0.17.0's, so the flip needs no release of its own.
VLLM_RELEASES = ("0.8.5", "0.9.0", "0.10.1", "0.12.0", "0.17.0", "0.20.0", "0.28.0", "0.34.0")
# A model with window layers beside full ones is read as 0.19.0 too: its memory rules are 0.17.0's, but its
# admission check holds one request of such a model to (num_blocks - 1) // groups blocks
# (ctxlint.physics.logged_eras.reserves_whole), far below what 0.17 and 0.20 admit: the band spans both.
_ADMISSION = "0.19.0"


def releases_for(arch) -> Tuple[Tuple[str, ...], str]:
    """(the releases to fold for `arch`, why any of VLLM_RELEASES is left out, "" when none is).
    Asked of every estimate of an unknown release: remembered by the arch's classes and model_type."""
    kinds = getattr(arch, "layer_kinds", ())
    windows = FULL in kinds and (SLIDING in kinds or CHUNKED in kinds)
    key = (getattr(arch, "architectures", ()), getattr(arch, "model_type", None), windows)
    found = _FOR.get(key)
    if found is None:
        found = _releases(first_release(arch), windows)
        if len(_FOR) < 4096:
            _FOR[key] = found
    return found


_FOR: Dict[tuple, Tuple[Tuple[str, ...], str]] = {}


def _releases(first: Optional[Tuple[str, str]], windows: bool = False) -> Tuple[Tuple[str, ...], str]:
    every = tuple(sorted(VLLM_RELEASES + (_ADMISSION,), key=parse_version)) if windows else VLLM_RELEASES
    if first is None:
        return every, ""
    release, name = first
    v = parse_version(release)
    out = []
    for i, rules in enumerate(every):
        after = every[i + 1] if i + 1 < len(every) else None
        if after is not None and parse_version(after) <= v:
            continue  # every release with these rules predates the class
        out.append(release if parse_version(rules) < v else rules)
    if tuple(out) == every:
        return every, ""
    gone = [r for r in every if parse_version(r) < v]
    return tuple(out), f"vLLM releases before {release} cannot load {name} ({', '.join(gone)} left out)"


def _order(result) -> tuple:
    """Smaller is more conservative: the longest request first, then the pool, then the budget."""
    longest = result.max_context_at_concurrency_1
    return (-1 if longest is None else longest, -1 if result.pool_tokens is None else result.pool_tokens,
            result.kv_budget_bytes_per_gpu or 0.0)


def _least(values):
    values = [v for v in values if v is not None]
    return min(values) if values else None


def _most(values):
    values = [v for v in values if v is not None]
    return max(values) if values else None


def span_vllm_releases(inp, one: Callable, whole: Optional[Callable] = None):
    """`one(inp)` under each release that can run the model (releases_for), folded into one result.
    `whole`: when `one` gives an estimate's figures only (capacity.compute_lean's, equal to the whole
    estimate's), the whole estimate, asked for only of the releases whose text the fold keeps (two at
    most: the most conservative, and the one that leaves the least budget)."""
    releases, left_out = releases_for(inp.arch)
    results = [(release, one(replace(inp, engine_version=release))) for release in releases]

    def text_of(pair):  # (release, its estimate), whole
        return pair if whole is None else (pair[0], whole(replace(inp, engine_version=pair[0])))

    known = [(r, res) for r, res in results if res.pool_tokens is not None]
    unread = [(r, res) for r, res in results if res.pool_tokens is None]
    if unread and getattr(inp.arch, "compress_ratios", ()):
        # DeepSeek-V4: a release whose layout was not read (dsv4_kv.READ) could hold anything; the least of the
        # others is no bound, so the estimate is that release's: unknown, and why
        known, results = [], unread
    if not known:
        first = text_of(results[0])[1]
        return replace(first, rule="vLLM version unknown", releases_left_out=left_out, assumptions=tuple(
            a for a in first.assumptions if not a.startswith(f"vLLM {releases[0]}")))
    release, worst = text_of(min(known, key=lambda pair: _order(pair[1])))
    every = [res for _, res in known]
    budget_release, thinnest = min(known, key=lambda pair: pair[1].kv_budget_bytes_per_gpu or 0.0)
    if budget_release != release and thinnest.kv_budget_bytes_per_gpu is not None:
        thinnest = text_of((budget_release, thinnest))[1]  # its rule is quoted
    note = (f"vLLM version unknown: each figure is the least any of releases {', '.join(releases)} gives "
            f"(the longest request: vLLM {release}'s rules); the band spans those releases (state the image tag "
            "to narrow it)")
    if left_out:  # releases[0] is then the model's first release
        note = f"{note}; {left_out}: {source(releases[0])} is the first to register it"
    notes = [note]
    if budget_release != release and thinnest.kv_budget_bytes_per_gpu is not None:
        notes.append(f"the least KV budget is vLLM {budget_release}'s: "
                     f"{thinnest.kv_budget_bytes_per_gpu / (1 << 30):.2f} GiB per GPU ({thinnest.rule})")
    return replace(
        worst, pool_tokens=_least([res.pool_tokens for res in every]),
        max_concurrency_at_context=_least([res.max_concurrency_at_context for res in every]),
        kv_budget_bytes_per_gpu=_least([res.kv_budget_bytes_per_gpu for res in every]),
        pool_low=_least([res.pool_low for res in every]), pool_high=_most([res.pool_high for res in every]),
        max_context_low=_least([res.max_context_low for res in every]),
        max_context_high=_most([res.max_context_high for res in every]),
        kv_budget_low=_least([res.kv_budget_low for res in every]),
        kv_budget_high=_most([res.kv_budget_high for res in every]),
        rule=f"{note}; {worst.rule}" if worst.rule else note, releases_left_out=left_out,
        admission_starts=None,  # only 0.19.x hangs a request its startup check accepted: not every release
        assumptions=(*notes, *worst.assumptions))
