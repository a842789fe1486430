"""A probe request that got neither a completion nor a 4xx with an error body (5xx, timeout, reset).

Why:
    A client can act on a completion or on a 4xx that says why (shorten the
    prompt); it cannot act on a 500, a bare 413 from a proxy, or a request that
    hangs. The last one is how vLLM behaves when its KV pool was overridden below
    the context length: it admits the request and never schedules it while health
    checks pass. Over-long prompts must be refused at the door with an error body,
    and requests within the limits must be served.

Example (bad):
    ```console
    $ ctxlint probe http://127.0.0.1:8000 --model m --window 2048 --timeout 5
    http://127.0.0.1:8000/v1/chat/completions:1:1: CTX505 [error] request #9 (case window+1, 2,049
    tokens) got no answer within the 5 s timeout ...
    ```

Example (good):
    ```console
    $ ctxlint probe http://127.0.0.1:8000 --model m --window 2048 --timeout 5
    (window+1 answered 400 {"error": {"message": "... maximum context length is 2048 tokens ..."}})
    ```

Options:
    None.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ctxlint.findings import Problem
from ctxlint.rules._probe import locate, request

if TYPE_CHECKING:  # probe.run pulls in http.client and threads; `ctxlint check` never needs it
    from ctxlint.probe.run import ProbeRun

ID = "CTX505"
NAME = "unclean-refusal"
SEVERITY = "error"
SCOPE = "probe"
TAGS = ()
INPUTS = ("probe",)
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}


def check(run: ProbeRun, options) -> Iterator[Problem]:
    from ctxlint.probe.answers import FAILED  # only `ctxlint probe` loads it

    for exchange in run.exchanges:
        if exchange.answer.kind == FAILED:
            yield Problem(
                f"{request(exchange)} got {exchange.answer.problem}: neither a completion nor a 4xx with an "
                "error body, so a client cannot tell what went wrong",
                locate(run, exchange, pool_first=exchange.case is not None and exchange.case.above_pool))
