"""A mapping key written twice; YAML silently keeps only the last value.

Why:
    PyYAML, Kubernetes tooling and most engines' config readers keep the last
    of two equal keys without a word. A second `kv_pool_tokens:` further down a
    role silently replaces the first, so the value a reviewer reads is not the
    value that ships. Reported at the second key, naming the line of the first.

Example (bad):
    ```yaml
    - role: prefill
      kv_pool_tokens: 2040000
      context_length: 1048576
      kv_pool_tokens: 681280      # replaces the value above
    ```

Example (good):
    ```yaml
    - role: prefill
      kv_pool_tokens: 2040000
      context_length: 1048576
    ```

Options:
    None.
"""
from __future__ import annotations

from typing import Iterator, Sequence

from ctxlint.findings import Diagnostic, Problem
from ctxlint.rules._common import from_diagnostics

ID = "CTX003"
NAME = "duplicate-key"
SEVERITY = "error"
SCOPE = "input"
TAGS = ()
INPUTS = ("file",)
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}


def check(diagnostics: Sequence[Diagnostic], options) -> Iterator[Problem]:
    return from_diagnostics(diagnostics, NAME)
