"""A token count that is not a whole, positive number with an unambiguous suffix.

Why:
    Engines disagree on suffixes: vLLM reads `1M` as 1,048,576 and `128K` as
    131,072, SGLang reads `1M` as 1,000,000 and rejects `128K`. A manifest that
    is checked against capacity must say exactly which number it means, so it
    accepts integers (`1_048_576` too) and the suffixes k, M, G (x1000) and
    Ki, Mi, Gi (x1024) only. `128K`, `1m`, `2GB`, `1048576.0`, zero and negative
    counts are errors that name the readings the author may have meant. So are
    plain integers YAML 1.1 reads in another base: `0755` (octal 493), `1:20`
    (base-60 80), `0x20000`.

Example (bad):
    ```yaml
    advertised:
      context_window: 128K        # 128,000 or 131,072?
    ```

Example (good):
    ```yaml
    advertised:
      context_window: 128Ki       # 131,072
    ```

Options:
    None.
"""
from __future__ import annotations

from typing import Iterator, Sequence

from ctxlint.findings import Diagnostic, Problem
from ctxlint.rules._common import from_diagnostics

ID = "CTX005"
NAME = "invalid-token-count"
SEVERITY = "error"
SCOPE = "input"
TAGS = ()
INPUTS = ("token-counts",)
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}


def check(diagnostics: Sequence[Diagnostic], options) -> Iterator[Problem]:
    return from_diagnostics(diagnostics, NAME)
