"""A request larger than the smallest KV pool was answered with HTTP 2xx instead of a 4xx.

Why:
    No replica can hold a request larger than its KV pool, so a 2xx answer to one
    is not built from the whole prompt: the engine truncated it, or, as in the
    incident, replaced it by a placeholder and decoded from pages other requests
    left behind. The only safe answer above the pool is a 4xx with an error body,
    from the gateway or the engine. The size is the server's own count
    (usage.prompt_tokens) plus max_tokens when the answer reports it. Marked as a
    security finding; the message says when the body was no valid completion
    either (empty content, zero completion tokens, not JSON).

Example (bad):
    ```console
    $ ctxlint probe http://127.0.0.1:8000 --model m --window 4096 --pool 2048
    http://127.0.0.1:8000/v1/chat/completions:1:1: CTX502 [error] request #6 (case pool+1, 2,049
    tokens) answered HTTP 200 above the KV pool 2,048 ...
    ```

Example (good):
    ```console
    $ ctxlint probe http://127.0.0.1:8000 --model m --window 4096 --pool 2048 --format text
    (pool+1 answered 400 with an error body: no finding)
    ```

Options:
    None.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ctxlint.findings import Problem
from ctxlint.model import fmt
from ctxlint.rules._probe import locate, over_pool, request

if TYPE_CHECKING:  # probe.run pulls in http.client and threads; `ctxlint check` never needs it
    from ctxlint.probe.run import ProbeRun

ID = "CTX502"
NAME = "answer-above-pool"
SEVERITY = "error"
SCOPE = "probe"
TAGS = ("security",)
INPUTS = ("probe",)
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}


def check(run: ProbeRun, options) -> Iterator[Problem]:
    from ctxlint.probe.answers import COMPLETION, INVALID  # only `ctxlint probe` loads it

    for exchange in run.boundary:
        if exchange.answer.kind not in (COMPLETION, INVALID) or not over_pool(run, exchange):
            continue
        body = f"; the body is no valid completion either: {exchange.answer.problem}" \
            if exchange.answer.kind == INVALID else ""
        yield Problem(
            f"{request(exchange)} answered HTTP {exchange.status} above the KV pool "
            f"{fmt(run.limits.pool_ceiling)}: no replica can hold it, so the answer is not built from the "
            f"prompt{body}. The stack must refuse it with a 4xx: cap prompts at or below the pool in the gateway",
            locate(run, exchange, pool_first=True))
