"""The advertised maximum output is at or above the whole context window.

Why:
    The window bounds prompt plus output. An output limit equal to the window
    leaves no room for a prompt at all: a request that asks for the full output
    is rejected (vLLM: "'max_tokens' is too large") or silently clamped,
    depending on the engine, and clients that trust the catalog break.

Example (bad):
    ```yaml
    advertised:
      context_window: 131072
      max_output_tokens: 131072
    ```

Example (good):
    ```yaml
    advertised:
      context_window: 131072
      max_output_tokens: 32768
    ```

Options:
    None.
"""
from __future__ import annotations

from typing import Iterator

from ctxlint.findings import Problem
from ctxlint.model import Deployment, fmt

ID = "CTX105"
NAME = "output-limit-fills-window"
SEVERITY = "error"
SCOPE = "deployment"
TAGS = ()
INPUTS = ("advertised.context_window", "advertised.max_output_tokens")
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}


def check(dep: Deployment, options) -> Iterator[Problem]:
    window, output = dep.advertised.context_window, dep.advertised.max_output_tokens
    if window is None or output is None or output.value < window.value:
        return
    yield Problem(
        f"{fmt(output.value)} >= {fmt(window.value)}: max output tokens {output.show()} is at or above the "
        f"context window, leaving {fmt(max(0, window.value - output.value))} tokens for the prompt. "
        f"Lower max_output_tokens below {fmt(window.value)}",
        output.source, dep.display_name)
