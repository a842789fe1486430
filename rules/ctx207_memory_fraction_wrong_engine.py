"""A memory setting that belongs to another engine, where the name means something else.

Why:
    Memory knobs look alike and mean different things: vLLM's
    `gpu_memory_utilization` covers weights, activations and KV; SGLang's
    `mem_fraction_static` covers weights plus the KV pool; TensorRT-LLM's
    `kv_cache_free_gpu_memory_fraction` is a fraction of what is left after the
    weights. Copied across engines, the setting is ignored (or, renamed by hand
    with the same number, sizes a very different pool).

Example (bad):
    ```yaml
    engine: {name: vllm}
    serving:
      roles:
        - role: unified
          engine_args: {mem_fraction_static: 0.85}   # SGLang's knob; vLLM ignores it
    ```

Example (good):
    ```yaml
    engine: {name: vllm}
    serving:
      roles:
        - role: unified
          engine_args: {gpu_memory_utilization: 0.90}
    ```

Options:
    None.
"""
from __future__ import annotations

from typing import Iterator

from ctxlint.findings import Problem
from ctxlint.model import Deployment
from ctxlint.rules._hardware import FRACTION_KNOBS, engine_name

ID = "CTX207"
NAME = "memory-fraction-wrong-engine"
SEVERITY = "warning"
SCOPE = "deployment"
TAGS = ()
INPUTS = ("engine", "roles[].engine_args")
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}


def check(dep: Deployment, options) -> Iterator[Problem]:
    engine = engine_name(dep)
    own = next((k for k, (e, _) in FRACTION_KNOBS.items() if e == engine), None)
    if own is None:
        return
    for role in dep.roles:
        for key, val in role.engine_args:
            owner = FRACTION_KNOBS.get(key, (engine, ""))[0]
            if owner == engine:
                continue
            yield Problem(
                f"{key} is {owner}'s setting (a fraction {FRACTION_KNOBS[key][1]}); {engine} ignores it. "
                f"{engine}'s own is {own}, a fraction {FRACTION_KNOBS[own][1]}: convert the value, do not copy it",
                val.source, dep.display_name)
