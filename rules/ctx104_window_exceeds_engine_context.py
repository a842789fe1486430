"""The advertised window is larger than the context length an engine role accepts.

Why:
    Clients are promised a window the engine rejects: requests longer than the
    engine's own limit (vLLM `--max-model-len`, SGLang `--context-length`, TGI
    `--max-total-tokens`, TensorRT-LLM `--max_seq_len`) fail with HTTP 400 on
    that role, or, in a disaggregated deployment, on one side of the handoff
    only. The promise and the engine limit must agree on every role. A
    default the engine lowers to an estimated KV pool (llama.cpp's `--fit`
    cut, measured at boot) is known only within a band: a window inside it
    is CTX210's warning, and only one above the band's top is this error.

Example (bad):
    ```yaml
    advertised: {context_window: 262144}
    serving:
      roles:
        - {role: unified, context_length: 131072}
    ```

Example (good):
    ```yaml
    advertised: {context_window: 131072}
    serving:
      roles:
        - {role: unified, context_length: 131072}
    ```

Options:
    None.
"""
from __future__ import annotations

from typing import Iterator

from ctxlint.findings import Problem
from ctxlint.model import Deployment, fmt

ID = "CTX104"
NAME = "window-exceeds-engine-context"
SEVERITY = "error"
SCOPE = "deployment"
TAGS = ()
INPUTS = ("advertised.context_window", "roles[].context_length")
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}


def check(dep: Deployment, options) -> Iterator[Problem]:
    window = dep.advertised.context_window
    if window is None:
        return
    for role in dep.roles:
        limit = role.context_length
        if limit is None or limit.value >= window.value:
            continue
        band = getattr(role.context_default, "band", None)
        if band is not None and window.value <= band[1]:
            continue  # a default lowered to an estimated pool: inside its band CTX210 speaks, with the band
        top = band[1] if band is not None else limit.value
        shown = f"{fmt(top)} (the top of its band: {role.context_default.why})" if band is not None else limit.show()
        yield Problem(
            f"{fmt(window.value)} > {fmt(top)}: the advertised window exceeds the {role.label} "
            f"engine context length {shown} by {fmt(window.value - top)} tokens, so clients "
            f"are promised requests the engine rejects. Raise the {role.label} context length to "
            f"{fmt(window.value)} or lower the advertised window to {fmt(top)}",
            limit.source, dep.display_name)
