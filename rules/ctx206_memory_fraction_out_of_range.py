"""An engine memory fraction outside (0, 1].

Why:
    `gpu_memory_utilization` (vLLM), `mem_fraction_static` (SGLang),
    `cuda_memory_fraction` (TGI), `kv_cache_free_gpu_memory_fraction`
    (TensorRT-LLM) and `cache_max_entry_count` below 1 (LMDeploy) are fractions:
    zero, negative or above one either fails at boot or leaves no KV cache.
    A value like 90 usually meant 0.90.

Example (bad):
    ```yaml
    engine_args: {gpu_memory_utilization: 90}
    ```

Example (good):
    ```yaml
    engine_args: {gpu_memory_utilization: 0.90}
    ```

Options:
    None.
"""
from __future__ import annotations

from typing import Iterator

from ctxlint.findings import Problem
from ctxlint.model import Deployment
from ctxlint.rules._hardware import FRACTION_KNOBS

ID = "CTX206"
NAME = "memory-fraction-out-of-range"
SEVERITY = "error"
SCOPE = "deployment"
TAGS = ()
INPUTS = ("roles[].engine_args",)
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}


def check(dep: Deployment, options) -> Iterator[Problem]:
    for role in dep.roles:
        for key, val in role.engine_args:
            if key not in FRACTION_KNOBS:
                continue
            value = val.value
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                yield Problem(f"{key} must be a number between 0 and 1, got {value!r}", val.source, dep.display_name)
                continue
            if key == "cache_max_entry_count" and value >= 1:
                continue  # LMDeploy reads values >= 1 as a block count
            if 0 < value <= 1:
                continue
            hint = f"; did you mean {value / 100:g}?" if 1 < value <= 100 else ""
            yield Problem(f"{key} {value:g} is outside (0, 1]: it is a fraction "
                          f"{FRACTION_KNOBS[key][1]}{hint}", val.source, dep.display_name)
