"""The calibration table (calibration.yaml): each public boot log against ctxlint's physics.

    python tests/physics/calibration.py            # the error table, as the README shows it

For every case: the pool from the KV budget the engine logged (must match its token figure), and
the estimate from the accelerator and settings alone (point and band), held against the engine's
own figure: its logged KV budget when it printed one, else its token count.
"""
from __future__ import annotations

import statistics
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional

import yaml

from ctxlint.physics.capacity import CapacityInput, CapacityResult, estimate
from ctxlint.physics.context import default_context
from ctxlint.physics.weights import format_by_key
from ctxlint.resolution.resolve import resolve

GIB = 1 << 30
TABLE = Path(__file__).resolve().parent / "calibration.yaml"
_SETTING = {"vllm": {"tp": "tensor_parallel_size"}, "sglang": {"tp": "tp_size"}}


@dataclass
class Outcome:
    case: Dict[str, Any]
    with_budget: Optional[float]  # relative error of the token figure from the logged budget
    point: Optional[float]  # settings alone: relative error of the point estimate
    high: Optional[float]  # ... of the band's high bound (the error threshold)
    low: Optional[float]
    compared: str  # "KV GiB" or "tokens"
    result: Optional[CapacityResult] = None

    @property
    def id(self) -> str:
        return self.case["id"]


def cases() -> List[Dict[str, Any]]:
    return yaml.safe_load(TABLE.read_text(encoding="utf-8"))["cases"]


def _input(case: Dict[str, Any], budget: Optional[float]) -> CapacityInput:
    found = resolve(case["model"])
    if not found.resolved:
        raise AssertionError(f"{case['id']}: model {case['model']} does not resolve")
    weights = format_by_key(case["weights"]) if case.get("weights") else found.weights
    accelerator: Any = case.get("gpu")
    extra = None
    if case.get("gpu_gib") and not accelerator:
        accelerator, extra = "logged-device", {"logged-device": {"memory_gib": case["gpu_gib"]}}
    settings = dict(case.get("settings") or {})
    tp = int(case.get("tp") or 1)
    context = settings.get("max_model_len") or settings.get("context_length") or settings.get("ctx_size")
    if context is None:  # the engine ran at its own default context, as ctxlint fills it in
        default = default_context(case["engine"], found.arch, settings, case.get("version"))
        context = default.tokens if default is not None else None
    return CapacityInput(arch=found.arch, engine=case["engine"], accelerator=accelerator, tp=tp,
                         kv_cache_dtype=case.get("kv_dtype", "auto"), settings=settings,
                         available_kv_bytes=budget, context_length=context,
                         draft_layers=int(case.get("draft_layers") or 0), extra_accelerators=extra,
                         weights=weights, engine_version=case.get("version"))


def _tokens(case: Dict[str, Any], r: CapacityResult, which: str = "point") -> Optional[int]:
    if case.get("tokens_are") == "reported":
        return r.reported_tokens
    if case["engine"] == "llamacpp":
        return r.pool_tokens
    return {"point": r.pool_tokens, "low": r.pool_low, "high": r.pool_high}[which]


def run(case: Dict[str, Any]) -> Outcome:
    logged = case.get("logged") or {}
    kv, tokens = logged.get("kv_gib"), logged.get("tokens")
    with_budget = None
    if kv is not None and kv > 0 and tokens:
        r = estimate(_input(case, kv * GIB))
        if case["engine"] == "llamacpp":
            need = r.pool_tokens * r.kv_bytes_per_token_per_gpu
            with_budget = need / (kv * GIB) - 1
        else:
            with_budget = (_tokens(case, r) - tokens) / tokens
    if case.get("from_settings") is False or not (case.get("gpu") or case.get("gpu_gib")):
        return Outcome(case, with_budget, None, None, None, "")
    r = estimate(_input(case, None))
    if kv is not None:
        if r.kv_budget_bytes_per_gpu is None:
            return Outcome(case, with_budget, None, None, None, "KV GiB", r)
        if kv <= 0:  # the engine refused to start: compare budgets in GiB, not relative
            return Outcome(case, with_budget, (r.kv_budget_bytes_per_gpu / GIB - kv),
                           (r.kv_budget_high / GIB - kv), (r.kv_budget_low / GIB - kv), "KV GiB (absolute)", r)
        rel = lambda x: None if x is None else x / (kv * GIB) - 1  # noqa: E731
        return Outcome(case, with_budget, rel(r.kv_budget_bytes_per_gpu), rel(r.kv_budget_high),
                       rel(r.kv_budget_low), "KV GiB", r)
    rel = lambda x: None if x is None else x / tokens - 1  # noqa: E731
    return Outcome(case, with_budget, rel(_tokens(case, r)), rel(_tokens(case, r, "high")),
                   rel(_tokens(case, r, "low")), "tokens", r)


def outcomes() -> List[Outcome]:
    return [run(c) for c in cases()]


def median_abs_error(found: List[Outcome]) -> float:
    errors = [abs(o.point) for o in found if o.point is not None and o.compared != "KV GiB (absolute)"]
    return statistics.median(errors) if errors else 0.0


def pct(x: Optional[float], absolute: bool = False) -> str:
    if x is None:
        return "-"
    return f"{x:+.2f} GiB" if absolute else f"{x:+.1%}"


def table(found: List[Outcome]) -> str:
    from tabulate import tabulate

    rows = []
    for o in found:
        c = o.case
        absolute = o.compared == "KV GiB (absolute)"
        band = f"{pct(o.low, absolute)} .. {pct(o.high, absolute)}" if o.point is not None else "-"
        rows.append((o.id, f"{c['engine']} {c.get('version') or '?'}", c["model"].split("/")[-1],
                     c.get("gpu") or (f"{c['gpu_gib']} GiB" if c.get("gpu_gib") else "-"), c.get("tp", 1),
                     pct(o.with_budget), o.compared or "-", pct(o.point, absolute), band))
    head = ("case", "engine", "model", "GPU", "TP", "from logged budget", "compared", "settings alone", "band")
    return tabulate(rows, headers=head, tablefmt="github")


if __name__ == "__main__":
    found = outcomes()
    print(table(found))
    print(f"\nmedian absolute error (settings alone): {median_abs_error(found):.1%} over "
          f"{sum(1 for o in found if o.point is not None)} cases; {len(found)} cases in all")
    sys.exit(0)
