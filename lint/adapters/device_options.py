"""Deployments of one workload on each device option its scheduler may pick.

SkyPilot (`accelerators: {A100:8, H100:8}`), dstack (`gpu: H100,H200:8`) and Akash (a GPU `attributes`
list) name several devices of which the scheduler takes any one, so each option is checked as a
deployment of its own, named `<workload> [<option>]`. An option is (device, GPUs per node or instance,
its label as the file spells it); the reading of the workload's script is the same on every option apart
from the device, so its diagnostics are reported once, and options whose containers differ only in their
device are read once (workload.read_alike), not once each.
"""
from __future__ import annotations

from typing import Callable, List, Optional, Sequence, Tuple

from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.workload import Container, Reading, Workload, read_alike
from ctxlint.model import Source, Val

from ..records import replace

Option = Tuple[Optional[Val[str]], Optional[Val[int]], str]  # device, GPUs per node, label


def option_workloads(options: Sequence[Option], container: Callable[[Option], Container], base: Val[str],
                     source: Source, input_format: str, replicas: Optional[Val[int]],
                     result: AdaptResult) -> List[Workload]:
    """The workloads `container(option)` runs, one an option whose script starts an engine."""
    workloads = []
    for option, reading in zip(options, readings([container(option) for option in options])):
        if option[2] == options[0][2]:
            result.diagnostics.extend(reading.diagnostics)  # once, not once per option
        if not reading.roles:
            continue
        name = Val(f"{base.value} [{option[2]}]", base.source) if len(options) > 1 and option[2] else base
        workloads.append(Workload(name=name, source=source, input_format=input_format, roles=reading.roles,
                                  replicas=replicas))
    return workloads


def readings(containers: Sequence[Container]) -> List[Reading]:
    """read_container of each container, those equal apart from their accelerator type and count read together:
    the GPUs per node of an option set a variable SkyPilot and dstack inject (SKYPILOT_NUM_GPUS_PER_NODE), so
    options of other counts are read apart."""
    keys = [replace(c, accelerator_type=None, accelerator_count=None) for c in containers]
    out: List[Optional[Reading]] = [None] * len(containers)
    for first, key in enumerate(keys):
        if out[first] is None:
            alike = [i for i in range(first, len(keys)) if out[i] is None and keys[i] == key]
            for i, reading in zip(alike, read_alike([containers[i] for i in alike])):
                out[i] = reading
    return out  # type: ignore[return-value]
