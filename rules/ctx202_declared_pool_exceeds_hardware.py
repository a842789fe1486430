"""A declared KV pool larger than the accelerators could hold even with all their memory.

Why:
    A declared `kv_pool_tokens` is what the capacity checks trust. If it is more
    than the whole accelerator memory, less the weights, divided by the KV bytes
    per token, the number cannot be true: engines silently use the smaller pool
    they profile at boot (SGLang: "max_total_tokens=... is larger than the
    profiled value ... Use the profiled value instead"), so every check that
    passed against the declared value passed against fiction.

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

from typing import Iterator

from ctxlint.findings import Problem
from ctxlint.model import Deployment, fmt
from ctxlint.rules._hardware import accelerator

ID = "CTX202"
NAME = "declared-pool-exceeds-hardware"
SEVERITY = "error"
SCOPE = "deployment"
TAGS = ()
INPUTS = ("roles[].kv_pool_tokens", "roles[].capacity", "roles[].accelerators", "custom_accelerators")
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}


def check(dep: Deployment, options) -> Iterator[Problem]:
    for role in dep.roles:
        declared, cap = role.kv_pool_tokens, role.capacity
        accel = accelerator(dep, role)
        if declared is None or cap is None or accel is None or not cap.kv_bytes_per_token_per_gpu:
            continue
        weights = cap.weights_bytes_per_gpu or 0
        ceiling = int((accel.memory_bytes - weights) // cap.kv_bytes_per_token_per_gpu)
        if ceiling <= 0 or declared.value <= ceiling:  # weights alone not fitting is CTX203
            continue
        yield Problem(
            f"{fmt(declared.value)} > {fmt(ceiling)}: the declared {role.label} KV pool exceeds what "
            f"{accel.name} could hold with all of its memory: ({accel.memory_bytes / 2**30:.2f} GiB - weights "
            f"{weights / 2**30:.2f} GiB) / {fmt(int(cap.kv_bytes_per_token_per_gpu))} B per token per GPU = "
            f"{fmt(ceiling)} tokens. The engine will profile a smaller pool and use that; declare the pool "
            "the engine logs at boot",
            declared.source, dep.display_name)
