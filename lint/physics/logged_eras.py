"""Which rule a vLLM release reads its logged KV figure by (the eras logged.py describes), and whether a
release's admission check holds one request to its groups' share of the pool (reserves_whole): the one
definition the logged figure (logged.py) and the derived pool (capacity.py, lean_probe.py) both read.
"""
from __future__ import annotations

from typing import Any, Mapping

from ctxlint.versions import parse_version

from .mem_vllm import hybrid_full
from .models import CHUNKED, FULL, SLIDING, ModelArch

WHOLE, GROUPS, FULL_ISL, CONCURRENCY = "whole", "groups", "full-isl", "concurrency"
# The releases whose rules differ here (the eras of logged.py's docstring; 0.18.0: the 1.5x grouping, 0.28.0: a larger
# default batch on the largest devices, which widens the windows): an unknown release is read as each.
ERAS = ("0.9.0", "0.9.1", "0.18.0", "0.19.0", "0.20.0", "0.20.1", "0.28.0")
LABELS = ("before 0.9.1", "0.9.1-0.17", "0.18", "0.19", "0.20.0", "0.20.1-0.27", "0.28 on")
_V = {text: parse_version(text) for text in ERAS + ("0.13.0",)}


def release_rule(version: str, settings: Mapping[str, Any], chunked: bool, draft: int = 0) -> str:
    """The era (above) of a known `version` for a model with window layers (`chunked`: chunked-attention
    ones only; `draft`: draft layers, EAGLE/MTP): the one definition the logged figure and the derived pool
    (reserves_whole) both read."""
    v = parse_version(version)
    if hybrid_full(version, settings) or settings.get("kv_events_config"):
        return WHOLE
    if chunked:  # the release, VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE or a draft decide (vllm_chunked)
        from .vllm_chunked import chunked_whole
        if chunked_whole(version, settings, draft > 0):
            return WHOLE
    if settings.get("kv_transfer_config") and (v < _V["0.13.0"] or settings.get("disable_hybrid_kv_cache_manager")
                                               is not False):
        return WHOLE
    if v >= _V["0.20.1"]:
        return CONCURRENCY
    if _V["0.19.0"] <= v < _V["0.20.0"] and settings.get("scheduler_reserve_full_isl") is not False:
        return FULL_ISL
    return GROUPS


def reserves_whole(version: str | None, settings: Mapping[str, Any], arch: ModelArch) -> bool:
    """vLLM's admission check holds one request of `arch` to (num_blocks - 1) // groups blocks (FULL_ISL:
    vLLM 0.19.x, a model with full and window layers, the hybrid manager on, scheduler_reserve_full_isl not
    turned off). An unknown release is read as each (releases.py folds 0.19.0 in for such models)."""
    kinds = arch.layer_kinds
    if not version or parse_version(version) is None or FULL not in kinds or \
            not (SLIDING in kinds or CHUNKED in kinds):
        return False
    return release_rule(version, settings, SLIDING not in kinds) == FULL_ISL


def eras(first: str | None) -> list:
    """(release, label) to read an unknown release as: one per rule, from the model's first release."""
    start = parse_version(first) if first else None
    out = []
    for i, era in enumerate(ERAS):
        after = _V[ERAS[i + 1]] if i + 1 < len(ERAS) else None
        if start is not None and after is not None and after <= start:
            continue  # every release with this rule predates the model
        if start is not None and _V[era] < start:
            out.append((first, f"{first}-{LABELS[i].split('-')[-1]}" if "-" in LABELS[i] else first))
        else:
            out.append((era, LABELS[i]))
    return out
