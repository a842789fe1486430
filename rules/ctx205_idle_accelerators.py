"""A replica with more accelerators than its engine's parallelism uses.

Why:
    An engine uses tensor x pipeline x data GPUs; the rest of the replica's
    accelerators sit idle, and the KV pool the author counted on (derived from
    all of them) is larger than the one the engine builds. Usually a missing
    `--tensor-parallel-size`.

Example (bad):
    ```yaml
    serving:
      roles:
        - role: unified
          accelerators: {type: H100, count: 8}   # TP defaults to 1: 7 GPUs idle
    ```

Example (good):
    ```yaml
    serving:
      roles:
        - role: unified
          accelerators: {type: H100, count: 8}
          parallelism: {tensor: 8}
    ```

Options:
    None.
"""
from __future__ import annotations

from typing import Iterator

from ctxlint.findings import Problem
from ctxlint.model import Deployment

NEURON_CORES = '["aws.amazon.com/neuroncore"]'  # the count's resource: cores, the unit of the parallel sizes

ID = "CTX205"
NAME = "idle-accelerators"
SEVERITY = "warning"
SCOPE = "deployment"
TAGS = ()
INPUTS = ("roles[].accelerators", "roles[].parallelism")
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}


def check(dep: Deployment, options) -> Iterator[Problem]:
    for role in dep.roles:
        par, count = role.parallelism, role.accelerators.count
        used = par.gpus
        if count is None or count.value <= used:
            continue
        # Name the device: the options of a SkyPilot any-of set are reported on one line, and
        # "8 H100 accelerators" says which option each finding is for.
        # The device as written (H100), else its catalogue name.
        typ = role.accelerators.type
        kind = next((k for k in ((typ.raw, typ.value) if typ is not None else ())
                     if isinstance(k, str) and k and " " not in k), None)
        devices = f"{count.value} {kind} accelerators" if kind else f"{count.value} accelerators"
        pool = f" and the KV pool is computed on {used}"
        if str(count.source.path or "").endswith(NEURON_CORES):
            # NeuronCores, which the engine's parallel sizes count; the device is an instance type (inf2.24xlarge),
            # and no pool is computed from them (ctxlint.neuron)
            devices, pool = f"{count.value} NeuronCores", ""
        yield Problem(
            f"{count.value} > {used}: the {role.label} replica has {devices} but its engine "
            f"uses tensor x pipeline x data = {used}; {count.value - used} sit idle{pool}. "
            f"Set the tensor parallel size (or pipeline/data) to use all {count.value}",
            count.source, dep.display_name)
