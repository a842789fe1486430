"""An HTTP 2xx whose body is no valid completion (empty content, zero completion tokens, not JSON).

Why:
    "A green status code is no guarantee of a valid answer." A 2xx must carry an
    OpenAI-style response with non-empty content and at least one completion
    token; `finish_reason` "length" at 0 tokens, an empty message or a body that
    is not JSON means the engine dropped or mangled the request and told the client
    it succeeded. This rule covers every request up to the KV pool (the
    calibration prompt, session A's canaries, the boundary cases, past the window
    too); above the pool CTX502 reports it as a security finding.

Example (bad):
    ```console
    $ ctxlint probe http://127.0.0.1:8000 --model m --window 2048
    http://127.0.0.1:8000/v1/chat/completions:1:1: CTX503 [error] request #3 (case window-1, 2,047
    tokens) answered HTTP 200 with empty content ...
    ```

Example (good):
    ```console
    $ ctxlint probe http://127.0.0.1:8000 --model m --window 2048
    ctxlint probe: no findings in 15 requests to http://127.0.0.1:8000/v1/chat/completions
    ```

Options:
    None.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ctxlint.findings import Problem
from ctxlint.rules._probe import locate, over_pool, request

if TYPE_CHECKING:  # probe.run pulls in http.client and threads; `ctxlint check` never needs it
    from ctxlint.probe.run import ProbeRun

ID = "CTX503"
NAME = "invalid-success"
SEVERITY = "error"
SCOPE = "probe"
TAGS = ()
INPUTS = ("probe",)
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}


def check(run: ProbeRun, options) -> Iterator[Problem]:
    from ctxlint.probe.answers import INVALID  # only `ctxlint probe` loads it

    for exchange in run.exchanges:
        if exchange.answer.kind != INVALID:
            continue
        if exchange.session == "B" and over_pool(run, exchange):
            continue  # CTX502, as a security finding
        yield Problem(
            f"{request(exchange)} answered HTTP {exchange.status} with {exchange.answer.problem}: a success status "
            "on an answer that is not one. Check the engine's logs for aborted or preempted requests",
            locate(run, exchange))
