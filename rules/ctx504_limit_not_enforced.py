"""A request past the advertised window or the gateway's prompt cap (but within the KV pool) got a completion.

Why:
    The window is a promise in both directions: requests up to it are served,
    requests past it are refused with a 4xx that says so; the same holds for a
    gateway's prompt cap. A stack that answers past them truncates the prompt
    silently (clients lose the start of their context without knowing) or runs
    with a limit larger than the one advertised and checked, so `ctxlint check`
    verified the wrong number. The size is the server's own count
    (usage.prompt_tokens) plus max_tokens when reported.
    Above the pool, CTX502 reports it instead; a 2xx that is no valid completion,
    CTX503.

Example (bad):
    ```console
    $ ctxlint probe http://127.0.0.1:8000 --model m --window 2048 --pool 8192
    http://127.0.0.1:8000/v1/chat/completions:1:1: CTX504 [warning] request #9 (case window+1, 2,049
    tokens) answered HTTP 200 past the advertised window 2,048 ...
    ```

Example (good):
    ```console
    $ ctxlint probe http://127.0.0.1:8000 --model m --window 2048 --pool 8192
    (window+1 and output-past-window answered 400 with an error body: no finding)
    ```

Options:
    None.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ctxlint.findings import Problem
from ctxlint.model import fmt
from ctxlint.rules._probe import locate, over_cap, over_pool, over_window, request, server_prompt

if TYPE_CHECKING:  # probe.run pulls in http.client and threads; `ctxlint check` never needs it
    from ctxlint.probe.run import ProbeRun

ID = "CTX504"
NAME = "limit-not-enforced"
SEVERITY = "warning"
SCOPE = "probe"
TAGS = ()
INPUTS = ("probe",)
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}


def check(run: ProbeRun, options) -> Iterator[Problem]:
    from ctxlint.probe.answers import COMPLETION  # only `ctxlint probe` loads it

    for exchange in run.boundary:
        answer = exchange.answer
        if answer.kind != COMPLETION or over_pool(run, exchange):
            continue
        if over_window(run, exchange):
            past = f"the advertised window {fmt(run.limits.window)}"
        elif over_cap(run, exchange):
            past = f"the gateway's prompt cap {fmt(run.limits.prompt_cap)} with {fmt(server_prompt(exchange))} " \
                "prompt tokens"
        else:
            continue
        yield Problem(
            f"{request(exchange)} answered HTTP {exchange.status} past {past}: the stack truncates or serves a "
            "longer context than it advertises. Make the engine's context length (or the gateway cap) match the "
            "advertised limits",
            locate(run, exchange))
