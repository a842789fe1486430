"""An engine context length larger than the KV pool of the same role.

Why:
    The engine accepts requests up to its context length, but one replica can
    hold only its KV pool. vLLM refuses to start ("To serve at least one request
    with the model's max seq len ... KV cache is needed, which is larger than the
    available KV cache memory"), or, with a pool overridden below it, admits such
    requests and hangs them while health checks pass; SGLang silently lowers the
    per-request limit to the pool. When no pool is declared, the pool is derived
    from the model, the accelerators and the engine's memory settings, and the
    message shows that arithmetic. When the advertised window itself exceeds
    the pool, CTX101 reports it instead (one finding for one cause).

Example (bad):
    ```yaml
    model: {id: meta-llama/Llama-3.1-8B-Instruct}
    engine: {name: vllm}
    serving:
      roles:
        - role: unified
          context_length: 131072
          accelerators: {type: L4, count: 1}    # derived pool is far below 131,072
    ```

Example (good):
    ```yaml
    model: {id: meta-llama/Llama-3.1-8B-Instruct}
    engine: {name: vllm}
    serving:
      roles:
        - role: unified
          context_length: 131072
          accelerators: {type: H100, count: 1}
    ```

Options:
    None.
"""
from __future__ import annotations

from typing import Iterator

from ctxlint.findings import Problem
from ctxlint.model import Deployment, fmt

ID = "CTX201"
NAME = "context-exceeds-kv-pool"
SEVERITY = "error"
SCOPE = "deployment"
TAGS = ()
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}


def check(dep: Deployment, options) -> Iterator[Problem]:
    window = dep.advertised.context_window
    for role in dep.roles:
        ctx, pool = role.context_length, role.pool
        if ctx is None or pool is None or ctx.value <= pool.tokens:
            continue
        if window is not None and window.value > pool.tokens:
            continue  # CTX101 already reports this pool against the window
        yield Problem(
            f"{fmt(ctx.value)} > {fmt(pool.tokens)}: the {role.label} engine context length {ctx.show()} "
            f"exceeds its KV pool {pool.describe()} by {fmt(ctx.value - pool.tokens)} tokens; one "
            f"maximum-length request cannot be held. Lower the context length to {fmt(pool.tokens)}, or add "
            "memory (more or larger accelerators, a higher memory fraction, an fp8 KV cache)",
            ctx.source, dep.display_name)
