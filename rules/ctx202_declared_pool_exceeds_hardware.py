"""A declared KV pool larger than the accelerators could hold even with all their memory.

Why:
    A declared `kv_pool_tokens` is what the capacity checks trust. If it is more
    than the whole accelerator memory, less the weights, divided by the KV bytes
    per token, the number cannot be true, and what happens depends on who stated it
    (ctxlint.stated_pools): vLLM's `--num-gpu-blocks-override` and LMDeploy's
    `--num-gpu-blocks` are allocated as told, so the engine runs out of memory and
    exits at startup (the audit: "KV does not fit"); SGLang's `--max-total-tokens`
    and TensorRT-LLM's `max_tokens` are caps, and the engine silently uses the
    smaller pool it profiles ("max_total_tokens=... is larger than the profiled
    value ... Use the profiled value instead"), which the audit judges; a pool a
    person declared is fiction, so every check that passed against it passed
    against nothing, and the audit holds the promise against the ceiling instead.

Example (bad):
    ```yaml
    model: {id: meta-llama/Llama-3.1-8B-Instruct}
    engine: {name: vllm}
    serving:
      roles:
        - role: unified
          kv_pool_tokens: 2000000          # one H100 holds at most ~500k tokens
          accelerators: {type: H100, count: 1}
    ```

Example (good):
    ```yaml
    model: {id: meta-llama/Llama-3.1-8B-Instruct}
    engine: {name: vllm}
    serving:
      roles:
        - role: unified
          kv_pool_tokens: 444500
          accelerators: {type: H100, count: 1}
    ```

Options:
    None.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ctxlint.findings import Problem
from ctxlint.model import Deployment, fmt

if TYPE_CHECKING:  # imported by check() for a role that states a pool: most runs never need it
    from ctxlint.stated_pools import Overreach

ID = "CTX202"
NAME = "declared-pool-exceeds-hardware"
SEVERITY = "error"
SCOPE = "deployment"
TAGS = ()
INPUTS = ("roles[].kv_pool_tokens", "roles[].capacity", "roles[].accelerators", "roles[].engine_args",
          "custom_accelerators")
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}


def check(dep: Deployment, options) -> Iterator[Problem]:
    for role in dep.roles:
        # most roles state no pool: skip them before any lookup (stated_pools.overreach reads what else it needs)
        if role.capacity is None or role.accelerators.type is None or (
                role.kv_pool_tokens is None and role.arg("num_gpu_blocks") is None):
            continue
        from ctxlint.stated_pools import overreach
        over = overreach(dep, role)
        if over is not None:
            yield Problem(_message(role, over), over.source, dep.display_name)


def _message(role, o: Overreach) -> str:
    from ctxlint.stated_pools import ALLOCATES, CAPPED, GIB
    held = (f"{o.accelerator} could hold with all of its memory: ({o.memory / GIB:.2f} GiB - weights at least "
            f"{o.weights / GIB:.2f} GiB) / {fmt(int(o.per_token))} B per token per GPU = {fmt(o.ceiling)} tokens")
    if o.kind == ALLOCATES:
        engine = "vLLM" if o.flag == "--num-gpu-blocks-override" else "LMDeploy's PyTorch engine"
        return (f"{fmt(o.tokens)} > {fmt(o.ceiling)}: {o.flag} {o.blocks} is {fmt(o.blocks)} blocks x {o.block} "
                f"tokens = {fmt(o.tokens)} tokens of KV ({o.tokens * o.per_token / GIB:.2f} GiB per GPU), more than "
                f"{held}. {engine} allocates the blocks it is told, whatever memory it profiled, so the KV cache "
                f"allocation fails (CUDA out of memory) and the engine exits at startup. Lower {o.flag} well "
                f"below {fmt(o.ceiling // max(1, o.block))} blocks, or drop it and let the engine size the pool")
    text = f"{fmt(o.tokens)} > {fmt(o.ceiling)}: the declared {role.label} KV pool exceeds what {held}. "
    if o.kind == CAPPED:
        return text + "The engine will profile a smaller pool and use that; declare the pool the engine logs at boot"
    return (text + "The number cannot be true (the engine's pool is smaller), so the audit holds the promise "
            "against that ceiling, not against it; declare the pool the engine logs at boot")
