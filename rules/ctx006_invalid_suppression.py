"""A suppression that is malformed, names an unknown rule, or gives no reason.

Why:
    A suppression is a reviewed exception, and a reviewer needs to know why the
    launch is safe anyway. A directive without a reason (when
    `require-suppression-reason` is on, the default), a misspelled directive
    (`ignor[...]`) or an unknown rule code suppresses nothing; most linters drop
    such comments silently, so the author believes a finding is waived when it
    is not, or a later reader cannot tell why it was.

Example (bad):
    ```yaml
    kv_pool_tokens: 76640   # ctxlint: ignore[CTX101]
    kv_pool_tokens: 76640   # ctxlint: ignor[CTX101] -- capped at the gateway
    ```

Example (good):
    ```yaml
    kv_pool_tokens: 76640   # ctxlint: ignore[CTX101] -- gateway caps prompts at 64k (INC-2291)
    ```

Options:
    None. `require-suppression-reason: false` in the config accepts suppressions
    without a reason.
"""
from __future__ import annotations

from typing import Iterator, Sequence

from ctxlint.findings import Diagnostic, Problem
from ctxlint.rules._common import from_diagnostics

ID = "CTX006"
NAME = "invalid-suppression"
SEVERITY = "warning"
SCOPE = "input"
TAGS = ()
INPUTS = ("suppressions",)
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}


def check(diagnostics: Sequence[Diagnostic], options) -> Iterator[Problem]:
    return from_diagnostics(diagnostics, NAME)
