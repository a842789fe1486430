"""Helpers shared by the CTX5xx rules, which judge a live probe run (`ctxlint probe`).

A probe finding points at the limit it tested: the pool or the window in the
manifest given with --manifest (file, line, column), else at the endpoint URL.
Its logical path names the case, e.g. `probe.pool+1`.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Optional

from ctxlint.model import Source, fmt
from ctxlint.probe.run import Exchange, ProbeRun


def server_total(exchange: Exchange) -> int:
    """The request's total (prompt + max_tokens) as the server counted it, else as planned."""
    prompt = exchange.answer.prompt_tokens
    return (prompt if prompt is not None else exchange.planned_prompt) + exchange.max_tokens


def over_pool(run: ProbeRun, exchange: Exchange, total: Optional[int] = None) -> bool:
    ceiling = run.limits.pool_ceiling
    return ceiling is not None and (server_total(exchange) if total is None else total) > ceiling


def over_window(run: ProbeRun, exchange: Exchange, total: Optional[int] = None) -> bool:
    window = run.limits.window
    return window is not None and (server_total(exchange) if total is None else total) > window


def locate(run: ProbeRun, exchange: Exchange, pool_first: bool = False) -> Source:
    limits = run.limits
    order = (limits.pool_source, limits.window_source) if pool_first else (limits.window_source, limits.pool_source)
    found = next((s for s in order if s is not None), None) or Source(run.url, 1, 1)
    return replace(found, path=f"probe.{what(exchange)}")


def what(exchange: Exchange) -> str:
    return exchange.case.name if exchange.case is not None else exchange.session.lower()


def request(exchange: Exchange) -> str:
    """How messages name a request: 'request #7 (case pool+1, 2,049 tokens)'."""
    if exchange.case is None:
        name = "calibration" if exchange.session == "calibration" else "session A canary"
        return f"request #{exchange.number} ({name})"
    return f"request #{exchange.number} (case {exchange.case.name}, {fmt(server_total(exchange))} tokens)"
