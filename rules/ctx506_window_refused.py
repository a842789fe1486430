"""A request within the advertised window, the KV pool and the gateway's prompt cap was refused with a 4xx.

Why:
    The stack promises less than it serves: clients were told they may send
    this much, and the gateway or the engine refuses it (a gateway cap below the
    window, an engine context length set lower, a pool smaller than the one
    `ctxlint check` read). Either the advertised window or the deployment is
    wrong; fix whichever is. A warning, since nothing leaks, but clients break.

Example (bad):
    ```console
    $ ctxlint probe http://127.0.0.1:8000 --model m --window 4096
    http://127.0.0.1:8000/v1/chat/completions:1:1: CTX506 [warning] request #3 (case window-1, 4,095
    tokens) was refused (HTTP 400: "maximum context length is 2048 tokens") ...
    ```

Example (good):
    ```console
    $ ctxlint probe http://127.0.0.1:8000 --model m --window 2048
    (window-1 and window answered with completions: no finding)
    ```

Options:
    None.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ctxlint.findings import Problem
from ctxlint.rules._probe import locate, over_any, request

if TYPE_CHECKING:  # probe.run pulls in http.client and threads; `ctxlint check` never needs it
    from ctxlint.probe.run import ProbeRun

ID = "CTX506"
NAME = "window-refused"
SEVERITY = "warning"
SCOPE = "probe"
TAGS = ()
INPUTS = ("probe",)
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}
QUOTE = 80  # characters of the server's error message shown


def check(run: ProbeRun, options) -> Iterator[Problem]:
    from ctxlint.probe.answers import REFUSAL  # only `ctxlint probe` loads it

    for exchange in run.boundary:
        if exchange.answer.kind != REFUSAL or over_any(run, exchange):
            continue
        said = " ".join(exchange.answer.text.split())
        said = said[:QUOTE] + ("..." if len(said) > QUOTE else "")
        yield Problem(
            f"{request(exchange)} was refused (HTTP {exchange.status}: {said!r}) although it is within the "
            "advertised limits: the stack serves less than it promises",
            locate(run, exchange))
