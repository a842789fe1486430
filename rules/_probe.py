"""Helpers shared by the CTX5xx rules, which judge a live probe run (`ctxlint probe`).

A probe finding points at the limit it tested: the pool, the window or the gateway
cap in the manifest given with --manifest (file, line, column), else at the
endpoint URL.
Its logical path names the case, e.g. `probe.pool+1`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from ctxlint.records import replace
from ctxlint.model import Source, fmt

if TYPE_CHECKING:  # probe.run pulls in http.client and threads; `ctxlint check` never needs it
    from ctxlint.probe.run import Exchange, ProbeRun


def server_prompt(exchange: Exchange) -> int:
    """The request's prompt tokens as the server counted them, else as planned."""
    prompt = exchange.answer.prompt_tokens
    return prompt if prompt is not None else exchange.planned_prompt


def server_total(exchange: Exchange) -> int:
    """The request's total (prompt + max_tokens) as the server counted it, else as planned."""
    return server_prompt(exchange) + exchange.max_tokens


def over_pool(run: ProbeRun, exchange: Exchange, total: Optional[int] = None) -> bool:
    ceiling = run.limits.pool_ceiling
    return ceiling is not None and (server_total(exchange) if total is None else total) > ceiling


def over_window(run: ProbeRun, exchange: Exchange, total: Optional[int] = None) -> bool:
    window = run.limits.window
    return window is not None and (server_total(exchange) if total is None else total) > window


def over_cap(run: ProbeRun, exchange: Exchange, prompt: Optional[int] = None) -> bool:
    cap = run.limits.prompt_cap
    return cap is not None and (server_prompt(exchange) if prompt is None else prompt) > cap


def over_any(run: ProbeRun, exchange: Exchange, planned: bool = False) -> bool:
    """Past the window, the pool or the cap: by the server's count, or with `planned`, the probe's."""
    prompt = exchange.planned_prompt if planned else server_prompt(exchange)
    total = prompt + exchange.max_tokens
    return over_window(run, exchange, total) or over_pool(run, exchange, total) or over_cap(run, exchange, prompt)


def locate(run: ProbeRun, exchange: Exchange, pool_first: bool = False) -> Source:
    """The limit the case is about: the pool (when `pool_first`), the cap for cap cases, else the window."""
    limits = run.limits
    cap_case = exchange.case is not None and exchange.case.name.startswith("cap")
    order = (limits.pool_source, limits.window_source) if pool_first else (limits.window_source, limits.pool_source)
    found = next((s for s in ((limits.cap_source,) if cap_case else ()) + order + (limits.cap_source,)
                  if s is not None), None) or Source(run.url, 1, 1)
    return replace(found, path=f"probe.{what(exchange)}")


def what(exchange: Exchange) -> str:
    return exchange.case.name if exchange.case is not None else exchange.session.lower()


def request(exchange: Exchange) -> str:
    """How messages name a request: 'request #7 (case pool+1, 2,049 tokens)'."""
    if exchange.case is None:
        name = "calibration" if exchange.session == "calibration" else "session A canary"
        return f"request #{exchange.number} ({name})"
    return f"request #{exchange.number} (case {exchange.case.name}, {fmt(server_total(exchange))} tokens)"
