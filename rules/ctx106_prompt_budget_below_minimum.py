"""The advertised output limit leaves less than a minimum prompt budget in the window.

Why:
    A client that requests the full advertised output can only send
    `context_window - max_output_tokens` prompt tokens. When that is smaller
    than a realistic prompt (system prompt, tools, history), the advertised
    output limit is unusable in practice. The minimum is configurable.

Example (bad):
    ```yaml
    advertised:
      context_window: 32768
      max_output_tokens: 30720    # leaves 2,048 prompt tokens
    ```

Example (good):
    ```yaml
    advertised:
      context_window: 32768
      max_output_tokens: 8192
    ```

Options:
    min_prompt_tokens (integer, default 4096): the smallest prompt budget
    (window minus max output) that does not warn.
"""
from __future__ import annotations

from typing import Iterator

from ctxlint.findings import Problem
from ctxlint.model import Deployment, fmt

ID = "CTX106"
NAME = "prompt-budget-below-minimum"
SEVERITY = "warning"
SCOPE = "deployment"
TAGS = ()
INPUTS = ("advertised.context_window", "advertised.max_output_tokens")
OPTIONS = {
    "type": "object",
    "additionalProperties": False,
    "properties": {"min_prompt_tokens": {"type": "integer", "minimum": 1, "default": 4096}},
}


def check(dep: Deployment, options) -> Iterator[Problem]:
    window, output = dep.advertised.context_window, dep.advertised.max_output_tokens
    if window is None or output is None or output.value >= window.value:
        return  # CTX105 reports an output limit at or above the window
    minimum = options.get("min_prompt_tokens", 4096)
    budget = window.value - output.value
    if budget >= minimum:
        return
    yield Problem(
        f"{fmt(window.value)} - {fmt(output.value)} = {fmt(budget)} < {fmt(minimum)}: a request that uses the "
        f"full max output tokens can send only {fmt(budget)} prompt tokens, below the minimum prompt budget "
        f"{fmt(minimum)}. Lower max_output_tokens to at most {fmt(window.value - minimum)}",
        output.source, dep.display_name)
