"""Model weights alone do not fit in the memory of one accelerator.

Why:
    Weights per GPU are the parameters times their bytes, divided by the tensor
    and pipeline parallel sizes. When that exceeds the accelerator's memory, the
    engine cannot load the model at all, and nothing is left for the KV cache.

Example (bad):
    ```yaml
    model: {id: meta-llama/Llama-3.1-70B-Instruct}
    engine: {name: vllm}
    serving:
      roles:
        - role: unified
          accelerators: {type: H100, count: 1}   # 141 GB of bf16 weights on 80 GB
    ```

Example (good):
    ```yaml
    model: {id: meta-llama/Llama-3.1-70B-Instruct}
    engine: {name: vllm}
    serving:
      roles:
        - role: unified
          accelerators: {type: H100, count: 4}
          parallelism: {tensor: 4}
    ```

Options:
    None.
"""
from __future__ import annotations

from typing import Iterator

from ctxlint.findings import Problem
from ctxlint.model import Deployment
from ctxlint.rules._hardware import accelerator

ID = "CTX203"
NAME = "weights-exceed-memory"
SEVERITY = "error"
SCOPE = "deployment"
TAGS = ()
INPUTS = ("roles[].capacity", "roles[].accelerators", "roles[].parallelism", "custom_accelerators")
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}


def check(dep: Deployment, options) -> Iterator[Problem]:
    for role in dep.roles:
        cap, accel = role.capacity, accelerator(dep, role)
        if cap is None or accel is None or not cap.weights_bytes_per_gpu:
            continue
        weights = cap.weights_bytes_per_gpu
        if (cap.weights_low_per_gpu or weights) <= accel.memory_high:
            continue  # even the smallest estimate of the weights must not fit the most the device may have
        tp, pp = role.parallelism.tp, role.parallelism.pp
        need = int(-(-weights * tp * pp // accel.memory_bytes))
        shown, even, gpus = accel.memory_bytes, "", f"{need} GPUs"
        if accel.members:  # a label naming a family of sizes: the weights exceed even its largest (memory_high)
            shown, even = accel.memory_high, f" even as its largest size, {accel.members[-1]}"
            gpus = f"{int(-(-weights * tp * pp // shown))} GPUs ({need} of its smallest size, {accel.members[0]})"
        yield Problem(
            f"{weights / 2**30:.2f} GiB > {shown / 2**30:.2f} GiB: the weights of {cap.model} per "
            f"GPU (tensor {tp} x pipeline {pp}) exceed the memory of one {accel.name}{even}, before any KV cache. "
            f"Use at least {gpus} with tensor/pipeline parallelism to match, larger accelerators, or a "
            "quantized checkpoint",
            (role.accelerators.type or role.accelerators.count).source, dep.display_name)
