"""A suppression that suppresses nothing: the finding it waived is gone.

Why:
    Once a value is fixed, its old `# ctxlint: ignore[...]` stays behind and
    silently waives the next, unrelated problem of that rule on the same line
    or in the same file. Reporting unused suppressions (as ruff's RUF100 does)
    keeps every waiver tied to a finding that still exists.

Example (bad):
    ```yaml
    kv_pool_tokens: 600000  # ctxlint: ignore[CTX101] -- the pool was raised since
    ```

Example (good):
    ```yaml
    kv_pool_tokens: 600000
    ```

Options:
    None.
"""
from __future__ import annotations

from typing import Iterator, Sequence

from ctxlint.findings import Diagnostic, Problem
from ctxlint.rules._common import from_diagnostics

ID = "CTX007"
NAME = "unused-suppression"
SEVERITY = "warning"
SCOPE = "input"
TAGS = ()
INPUTS = ("suppressions",)
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}


def check(diagnostics: Sequence[Diagnostic], options) -> Iterator[Problem]:
    return from_diagnostics(diagnostics, NAME)
