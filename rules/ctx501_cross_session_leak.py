"""A canary marker that probe session A sent came back in session B's answer.

Why:
    The incident's 155 leaked responses were HTTP 200 with well-formed text, built
    from KV pages that earlier requests of other tenants had left behind; only
    canary-marker tests found them, two weeks late. `ctxlint probe` runs two
    sessions against the same replica (one `x-session-affinity` value): session A
    sends long prompts carrying random markers, session B sends the boundary cases.
    A marker of A anywhere in a B answer (content, error message or raw body) is
    proof that the stack returns another session's data. Marked as a security
    finding, critical in SARIF (security-severity 9.5: an observed leak, not a
    possible one); the message names the marker and the request that carried it.

Example (bad):
    ```console
    $ ctxlint probe http://127.0.0.1:8000 --model m --manifest deploy.yaml
    deploy.yaml:21:25: CTX501 [error] request #14 (case pool+1, 2,049 tokens) answered HTTP 200 with
    canary marker canary-5be2c07d6a1f, which session A sent in request #13 ...
    ```

Example (good):
    ```console
    $ ctxlint probe http://127.0.0.1:8000 --model m --manifest deploy.yaml
    ctxlint probe: no findings in 15 requests to http://127.0.0.1:8000/v1/chat/completions
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

ID = "CTX501"
NAME = "cross-session-leak"
SEVERITY = "error"
SCOPE = "probe"
TAGS = ("security",)
SECURITY_SEVERITY = "9.5"  # GitHub: 9.0 and above is "critical"
INPUTS = ("probe",)
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}


def check(run: ProbeRun, options) -> Iterator[Problem]:
    for exchange, marker, sender in run.leaks():
        status = f"HTTP {exchange.status}" if exchange.status is not None else "no status"
        yield Problem(
            f"{request(exchange)} answered {status} with canary marker {marker}, which session A sent in "
            f"request #{sender.number}: the stack returned another session's data. Do not launch: cap prompts "
            "at or below the smallest KV pool in front of the engine and upgrade past the engine's isolation "
            "defects (see `ctxlint check`)",
            locate(run, exchange, pool_first=True))
