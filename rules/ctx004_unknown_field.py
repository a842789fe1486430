"""A field the native manifest does not define (usually a typo).

Why:
    A misspelt `kv_pool_token:` or `max_ouput_tokens:` is not an extra comment:
    the value the author meant to declare is missing, and the check it should
    feed silently does not run. Reported at the key, with the closest known
    field name as a suggestion.

Example (bad):
    ```yaml
    advertised:
      context_window: 131072
      max_ouput_tokens: 8192      # typo: the output limit goes unchecked
    ```

Example (good):
    ```yaml
    advertised:
      context_window: 131072
      max_output_tokens: 8192
    ```

Options:
    None.
"""
from __future__ import annotations

from typing import Iterator, Sequence

from ctxlint.findings import Diagnostic, Problem
from ctxlint.rules._common import from_diagnostics

ID = "CTX004"
NAME = "unknown-field"
SEVERITY = "error"
SCOPE = "input"
TAGS = ()
INPUTS = ("schema",)
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}


def check(diagnostics: Sequence[Diagnostic], options) -> Iterator[Problem]:
    return from_diagnostics(diagnostics, NAME)
