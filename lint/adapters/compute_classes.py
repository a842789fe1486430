"""GKE compute classes: the device a pod gets from the ComputeClass its node selector names.

A GKE pod may state its device through a class, `nodeSelector: {cloud.google.com/compute-class: gpu-h100-x1}`,
defined by a `ComputeClass` object (`apiVersion: cloud.google.com/v1`) whose `spec.priorities[]` each describe
one node shape: `gpu: {type: nvidia-h100-80gb, count: 1, driverVersion: latest}`, a `machineType`
(a3-highgpu-1g), a `machineFamily`, a `tpu`, or existing `nodepools`. The priorities are fallbacks: "if the
most preferred configuration is unavailable, GKE automatically selects the next in the hierarchy"
(cloud.google.com/kubernetes-engine/docs/concepts/about-custom-compute-classes, "Fallback compute priorities";
fields: cloud.google.com/kubernetes-engine/docs/reference/crds/computeclass). So a pod of the class may run on
the device of any priority: the class names a device only when every priority names the same one, as a
`key In [...]` node affinity does (hardware.one_device); priorities on different devices, or one that names
none ctxlint can read (node pools, a CPU family), leave the device unknown and say why (`why_unknown`).

The class is looked for in every file of the run (`run_classes.run_files`, set by engine.lint_paths for the whole run, the
same list in every --jobs worker), stdin's text too when the run reads "-" (a class and its pod piped in one
document are found as in the file), read only when a pod names a class: a run that selects none never reads a
file for this. A --jobs worker is given the run's files once, when it starts (parallel.py), and keeps what it
read for all its chunks: not the whole list pickled, filtered and searched again for each chunk of 16 files. A name is never read as a device by itself (`gpu-h100-80gb-high-x1` says nothing GKE holds to).
"""
from __future__ import annotations

import re
from typing import Any, Optional, Sequence, Tuple

from ctxlint.adapters.device_labels import selected_without_device
from ctxlint.adapters.run_classes import current
from ctxlint.model import Val
from ctxlint.nodes import MAP, SCALAR, SEQ, Node

LABEL = "cloud.google.com/compute-class"

# Machine families whose every machine type carries one GPU model ("Each machine type within a series has a
# specific model and number of NVIDIA GPUs attached": docs.cloud.google.com/compute/docs/accelerator-optimized-
# machines; GPU models by series: docs.cloud.google.com/compute/docs/gpus). a2 (A100 40 GB or 80 GB), a3
# (H100 or H200) and a4x (GB200, or GB300 in A4X Max) are left out: their types carry different GPUs
# (hardware.INSTANCE_FAMILIES reads the types).
FAMILY_GPUS = {"g2": "L4", "g4": "RTX-PRO-6000-Blackwell", "a4": "B200"}

# The ComputeClasses GKE installs itself (cloud.google.com/kubernetes-engine/docs/concepts/about-built-in-compute-
# classes: autopilot, autopilot-spot; .../concepts/autopilot-compute-classes: Accelerator, Balanced, Performance,
# Scale-Out). No repo defines them and none names a GPU: "Use a built-in ComputeClass for workloads that don't
# require specific hardware (such as GPUs)"; a pod of the Accelerator class gets its GPU from the
# cloud.google.com/gke-accelerator selector beside it (.../how-to/autopilot-gpus). A run's own definition wins.
BUILT_IN = frozenset(("autopilot", "autopilot-spot", "Accelerator", "Balanced", "Performance", "Scale-Out"))

def class_device(name: Any) -> Tuple[Optional[Val[str]], str]:
    """(the device every priority of the class `name` names, at the first priority's `gpu.type` (or whatever
    named it) in the ComputeClass's file; why not, when None)."""
    if not isinstance(name, str) or not name.strip():
        return None, ""
    run = current()
    found = run.named(name.strip()) if run is not None else []
    if not found and name.strip() in BUILT_IN:
        beside = " (the cloud.google.com/gke-accelerator selector beside it does)" \
            if name.strip() == "Accelerator" else ""
        return None, f"it is GKE's built-in class, which names no GPU{beside}"
    if not found:
        return None, f"no checked file defines the ComputeClass '{name}'"
    devices = [_priorities_device(path, obj, name) for path, obj in found]
    # the same class in two files is one: the whys are compared with `{where}` for the place, filled in after
    if len({(d.value if d is not None else None, why) for d, why, _ in devices}) > 1:
        where = ", ".join(f"{path}:{obj.source(path).line}" for path, obj in found)  # two in one file too
        return None, f"the ComputeClass '{name}' is defined {len(found)} times, differently ({where})"
    device, why, place = devices[0]
    return device, why.replace("{where}", place)


def _priorities_device(path: str, obj: Node, name: str) -> Tuple[Optional[Val[str]], str, str]:
    """(the device the class's priorities name; why not, with `{where}` for the place; that place)"""
    items = obj.dig("spec", "priorities")
    if items is None or items.kind != SEQ or not items.value:
        return None, f"the ComputeClass '{name}' ({{where}}) lists no priorities", path
    named = []
    for index, item in enumerate(items.value):
        device = _priority_device(item, path)
        if device is None:
            at = item.source(path)
            return None, (f"priority {index + 1} of the ComputeClass '{name}' ({{where}}) names no GPU "
                          "ctxlint knows (a gpu.type, or a machineType or machineFamily that fixes the GPU)"), \
                f"{path}:{at.line}"
        named.append(device)
    kinds = list(dict.fromkeys(d.value for d in named))
    if len(kinds) > 1:
        return None, (f"the priorities of the ComputeClass '{name}' ({{where}}) name different GPUs "
                      f"({', '.join(kinds)}): GKE falls back from one to the next, so a pod may run on any of "
                      "them"), path
    return named[0], "", path


def _priority_device(item: Node, path: str) -> Optional[Val[str]]:
    """The device one priority names: `gpu.type` (or `tpu.type`), else a machine type or family that carries one
    GPU model. A type the accelerator catalog does not know is kept as written (hardware.canonical_type)."""
    from ctxlint.adapters.hardware import canonical_type

    if item.kind != MAP:
        return None
    for block in ("gpu", "tpu"):
        node = item.dig(block, "type")
        found = canonical_type(_scalar(node))
        if found is not None:
            return Val(found[0], node.source(path), raw=found[1])
    node = item.get("machineType")
    found = machine_gpu(_scalar(node))
    if found is not None:  # the catalog's name, as gpu.type's: a2-ultragpu's A100-80GB is nvidia-a100-80gb
        return Val(canonical_type(found[0])[0], node.source(path), raw=found[1])
    node = item.get("machineFamily")
    family = _scalar(node)
    device = FAMILY_GPUS.get(family.strip().lower()) if isinstance(family, str) else None
    if device is not None:
        return Val(canonical_type(device)[0], node.source(path), raw=family.strip())
    return None


def machine_gpu(name: Any) -> Optional[Tuple[str, str]]:
    """(device, text as written) of a machine type that carries one GPU model (hardware.INSTANCE_FAMILIES, whose
    GCP entries say which), else None: a type of no known family names no device."""
    from ctxlint.adapters.hardware import canonical_type
    from ctxlint.adapters.instance_types import INSTANCE_FAMILIES, INSTANCE_GPUS

    low = name.strip().lower() if isinstance(name, str) else ""
    known = low in INSTANCE_GPUS or any(re.match(pattern, low) for pattern, _ in INSTANCE_FAMILIES)
    return canonical_type(name) if low and known else None


def why_unknown(pod_spec: Optional[Node], file: str) -> Optional[Val[str]]:
    """The compute class a pod selects that names no device, at the selector's value, with why (raw): for CTX208's
    advice (Role.device_class). None when the pod selects no class, or its class names a device."""
    return selected_without_device(pod_spec, file, LABEL, class_device)


def selected_device(values: Sequence[Node]) -> Optional[Val[str]]:
    """The device of the classes a pod may get (a selector's one, an affinity's any-of): all must name one."""
    devices = [class_device(_scalar(v))[0] for v in values]
    if not devices or any(d is None for d in devices) or len({d.value for d in devices}) != 1:
        return None
    return devices[0]


def _scalar(node: Optional[Node]) -> Any:
    return node.value if node is not None and node.kind == SCALAR else None
