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
INPUTS = ("engine", "roles[].capacity", "roles[].accelerators", "roles[].parallelism", "custom_accelerators")
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}


def check(dep: Deployment, options) -> Iterator[Problem]:
    for role in dep.roles:
        cap, accel = role.capacity, accelerator(dep, role)
        if cap is None or accel is None or not cap.weights_bytes_per_gpu:
            continue
        weights = cap.weights_bytes_per_gpu
        if (cap.weights_low_per_gpu or weights) <= accel.memory_high:
            continue  # even the smallest estimate of the weights must not fit the most the device may have
        if dep.engine.name is not None and dep.engine.name.value == "llamacpp":
            from ctxlint.llamacpp_cells import off_gpu  # a partial -ngl, -ot, --cpu-moe: not all on this GPU
            if off_gpu(dep, role):
                continue
        tp, pp = role.parallelism.tp, role.parallelism.pp
        bits = _format_band(dep, role)
        if bits is not None and cap.weights_low_per_gpu and cap.weights_high_per_gpu:
            # a checkpoint whose format the file leaves open (a served name's, a folder name's, a recipe's
            # model.precision): the verdict is made at the band's low end, so the message quotes both ends. The
            # top is the heaviest format's estimate where that is the point's format (a served name's 16 bits), the
            # figure a single-format checkpoint and other findings print, not that estimate's own margin (x 1.02)
            ends = (cap.weights_low_per_gpu, weights if bits[2] else cap.weights_high_per_gpu)
            size = (f"at {bits[0]:g} to {bits[1]:g} bits a weight: {ends[0] / 2**30:.2f} to "
                    f"{ends[1] / 2**30:.2f} GiB")
        else:
            ends, size = (weights, weights), f"{weights / 2**30:.2f} GiB"
        gpus = f"{_gpus(ends, tp * pp, accel.memory_bytes)} GPUs"
        shown, even = accel.memory_bytes, ""
        if accel.members:  # a label naming a family of sizes: the weights exceed even its largest (memory_high)
            shown, even = accel.memory_high, f" even as its largest size, {accel.members[-1]}"
            gpus = (f"{_gpus(ends, tp * pp, shown)} GPUs ({_gpus(ends, tp * pp, accel.memory_bytes)} of its smallest "
                    f"size, {accel.members[0]})")
        yield Problem(
            f"{size} > {shown / 2**30:.2f} GiB: the weights of {cap.model} per "
            f"GPU (tensor {tp} x pipeline {pp}) exceed the memory of one {accel.name}{even}, before any KV cache. "
            f"Use at least {gpus} with tensor/pipeline parallelism to match, larger accelerators, or a "
            "quantized checkpoint",
            (role.accelerators.type or role.accelerators.count).source, dep.display_name)


def _gpus(ends, parallel: int, memory: float) -> str:
    """The GPUs the weights need at each end of their band: "7", or "2 to 7"."""
    low, high = (int(-(-w * parallel // memory)) for w in ends)
    return f"{high}" if low == high else f"{low} to {high}"


def _format_band(dep: Deployment, role):
    """The fewest and most bits a weight of the formats the checkpoint may be in, and whether the point's format is
    the heaviest of them, when it may be in more than one (WeightFormat.alt), else None. Read only for a finding: the import is paid by a deployment that has one."""
    from ctxlint.capacity import weights_of

    fmt = weights_of(dep, role, dep.resolution)
    if fmt is None or not fmt.alt:
        return None
    formats = (fmt, *fmt.alt)
    return min(f.low for f in formats), max(f.high for f in formats), all(f.high < fmt.high for f in fmt.alt)
