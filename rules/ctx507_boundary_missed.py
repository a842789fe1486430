"""The server counted a probe case's prompt so differently that it landed on the other side of its limit.

Why:
    The probe sizes prompts with the model's tokenizer or, without one, by words
    plus the template overhead it measured on a first, short request. When the
    server's usage.prompt_tokens puts a case that was meant to be within the
    limits above them (or one meant to be above them within), that case did not
    test its boundary, and its verdict says nothing about it. Give the model's
    tokenizer (`--tokenizer`, with `pip install "ctxlint[probe]"`) or a larger
    `--margin`, and probe again.

Example (bad):
    ```console
    $ ctxlint probe http://127.0.0.1:8000 --model m --window 2048
    http://127.0.0.1:8000/v1/chat/completions:1:1: CTX507 [warning] case window was sized at 2,047
    prompt tokens, the server counted 2,112 ...
    ```

Example (good):
    ```console
    $ ctxlint probe http://127.0.0.1:8000 --model m --window 2048 --tokenizer ./tokenizer.json
    ```

Options:
    None.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ctxlint.findings import Problem
from ctxlint.model import fmt
from ctxlint.rules._probe import locate, over_any

if TYPE_CHECKING:  # probe.run pulls in http.client and threads; `ctxlint check` never needs it
    from ctxlint.probe.run import ProbeRun

ID = "CTX507"
NAME = "boundary-missed"
SEVERITY = "warning"
SCOPE = "probe"
TAGS = ()
INPUTS = ("probe",)
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}


def check(run: ProbeRun, options) -> Iterator[Problem]:
    for exchange in run.boundary:
        counted = exchange.answer.prompt_tokens
        if counted is None or counted == exchange.planned_prompt:
            continue
        meant_over = over_any(run, exchange, planned=True)
        if meant_over == over_any(run, exchange):
            continue
        side = "above" if meant_over else "within"
        yield Problem(
            f"case {exchange.case.name} was sized at {fmt(exchange.planned_prompt)} prompt tokens, the server "
            f"counted {fmt(counted)} (off by {fmt(counted - exchange.planned_prompt)}): meant to be {side} the "
            "limits, it was not, so it did not test its boundary. Give --tokenizer or a larger --margin",
            locate(run, exchange))
