"""Accelerators as deploy files state them: device-plugin resource counts, MIG slices and the devices an engine
sees for a count. Which device a node label, affinity or instance type names is device_labels.py, re-exported
here (types mapped onto the accelerator catalog's names, the Val keeping the text as written in `raw`).
"""
from __future__ import annotations

from typing import Any, Optional, Sequence

# the node labels' reading (device_labels.py), re-exported: adapters import both halves from here
from ctxlint.adapters.device_labels import (COMPUTE_CLASS, FAMILY_LABELS, GPU_NAME_LABELS, TYPE_LABELS,  # noqa: F401
                                            _families, canonical_type, instance_gpus, one_device, site_type,
                                            type_from_affinity, type_from_labels, type_from_pod_spec)
from ctxlint.model import Source, Val
from ctxlint.nodes import MAP, SCALAR, SEQ, Node
from ctxlint.physics.accelerators import lookup_accelerator, mig_slices

# Kubernetes extended resources that count accelerators (one unit = one device). Intel's GPU plugin registers a
# card under its kernel driver's name, `gpu.intel.com/i915` or `gpu.intel.com/xe` (Arc B-series and newer cards
# run the xe driver): intel/intel-device-plugins-for-kubernetes@01b5fb2b93bb2e02d5039445b1e94f4f23fb4f34:
# cmd/gpu_plugin/gpu_plugin.go (deviceTypeI915, deviceTypeXe, one device per card unless -shared-dev-num).
GPU_RESOURCES = ("nvidia.com/gpu", "amd.com/gpu", "habana.ai/gaudi", "google.com/tpu", "intel.com/gpu",
                 "gpu.intel.com/i915", "gpu.intel.com/xe", "aws.amazon.com/neuron", "aws.amazon.com/neurondevice",
                 "aws.amazon.com/neuroncore")
# AWS Neuron devices (Inferentia, Trainium chips) each hold several NeuronCores, and vLLM's and
# transformers-neuronx's tensor parallel size counts NeuronCores: a device count is not in the
# engine's unit. `aws.amazon.com/neuroncore` counts cores, and is.
NEURON_DEVICES = ("aws.amazon.com/neuron", "aws.amazon.com/neurondevice")
# NVIDIA's device plugin under the "mixed" MIG strategy: one resource per MIG profile (`nvidia.com/mig-3g.40gb`),
# one unit one slice (NVIDIA/k8s-device-plugin README, "Configuration Option Details", MIG_STRATEGY).
MIG_RESOURCE = "nvidia.com/mig-"
def _int(node: Optional[Node]) -> Optional[int]:
    if node is None or node.kind != SCALAR or isinstance(node.value, bool):
        return None
    value = node.value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return value if isinstance(value, int) and value >= 0 else None


def count_from_resources(resources: Optional[Node], file: str) -> Optional[Val[int]]:
    """Accelerators one container gets: `limits` first (they are what the device plugin
    allocates when requests are absent), then `requests`."""
    if resources is None or resources.kind != MAP:
        return None
    for section in ("limits", "requests"):
        block = resources.get(section)
        if block is None or block.kind != MAP:
            continue
        for key in GPU_RESOURCES + tuple(k for k in block.value if _mig_profile(k)):
            node = block.get(key)
            count = _int(node)
            if count is not None:
                return Val(count, node.source(file), raw=str(node.value))
    return None


def mig_type(resources: Optional[Node], card: Optional[Val[str]], file: str) -> Optional[Val[str]]:
    """The device of a container's `nvidia.com/mig-<profile>` request (limits first), at the resource's key:
    a slice of `card` (the device the pod's node selector names, which under the mixed strategy is the whole
    card), see mig_device."""
    for section in ("limits", "requests"):
        block = resources.get(section) if resources is not None and resources.kind == MAP else None
        for key, node in (block.keys.items() if block is not None and block.kind == MAP else ()):
            if _mig_profile(key) and _int(block.get(key)) is not None:
                return mig_device(_mig_profile(key), card, node.source(file), key)
    return None


def container_type(resources: Optional[Node], card: Optional[Val[str]], file: str) -> Optional[Val[str]]:
    """The device one container runs on: the MIG slice its resources request (a slice of the card its pod's
    node selector names, see mig_type), else the pod's device. Every adapter that reads a container from a
    pod spec asks this, so a `nvidia.com/mig-<profile>` request names the device in all of them alike."""
    return mig_type(resources, card, file) or card


def pod_type(pod_spec: Optional[Node], file: str) -> Optional[Val[str]]:
    """The device of a pod whose containers are not read one by one (a Ray worker group): the first MIG
    slice one of its containers requests, else the device its node selector or affinity names."""
    card = type_from_pod_spec(pod_spec, file)
    items = pod_spec.get("containers") if pod_spec is not None and pod_spec.kind == MAP else None
    for c in items.value if items is not None and items.kind == SEQ else ():
        found = mig_type(c.get("resources"), card, file) if c.kind == MAP else None
        if found is not None:
            return found
    return card


def pods_resource(pod_specs: Sequence[Optional[Node]]) -> Optional[str]:
    """The device-plugin resource the first of these pod specs' containers that asks for one asks for: the
    vendor of a count summed over the pods, which then sits at no resource's key (model.Accelerators.resource)."""
    for pod_spec in pod_specs:
        items = pod_spec.get("containers") if pod_spec is not None and pod_spec.kind == MAP else None
        for c in items.value if items is not None and items.kind == SEQ else ():
            found = container_resource(c)
            if found is not None:
                return found
    return None


def container_resource(container: Optional[Node]) -> Optional[str]:
    """The device-plugin resource one container asks for (limits first), None when it asks for none."""
    resources = container.get("resources") if container is not None and container.kind == MAP else None
    for section in ("limits", "requests"):
        block = resources.get(section) if resources is not None and resources.kind == MAP else None
        found = next((key for key in GPU_RESOURCES if block is not None and block.kind == MAP
                      and _int(block.get(key))), None)
        if found is not None:
            return found
    return None


def _mig_profile(key: Any) -> str:
    return key[len(MIG_RESOURCE):].strip() if isinstance(key, str) and key.startswith(MIG_RESOURCE) else ""


def mig_device(profile: str, card: Optional[Val[str]], source: Source, raw: str) -> Val[str]:
    """The catalog slice of a MIG profile on the card named (a card named by its slice counts as that card),
    or the only catalog card with that profile. Otherwise the slice is kept as written, `MIG-3g.40gb` (a
    profile several cards have: A100-80GB and H100 both have 3g.40gb), which the capacity stage cannot size."""
    slices = mig_slices(profile)
    if card is not None:
        named = lookup_accelerator(str(card.value))
        parent = lookup_accelerator(named.parent) if named is not None and named.parent else named
        if parent is None:
            return Val(f"{card.value}-MIG-{profile}", source, raw=raw)
        slices = tuple(s for s in slices if getattr(lookup_accelerator(s.parent or ""), "name", None) == parent.name)
        if not slices:
            return Val(f"{parent.name}-MIG-{profile}", source, raw=raw)
    if len(slices) == 1:
        return Val(slices[0].name, source, raw=raw)
    return Val(f"MIG-{profile}", source, raw=raw)


TPU_CHIPS = "google.com/tpu"


def engine_devices(count: Optional[Val[int]], device: Optional[Val[str]]) -> Optional[Val[int]]:
    """The devices an engine sees for a device-plugin count: a `google.com/tpu` count is chips, and a
    chip without megacore (TPU7x) is two devices to JAX and vLLM, each with half its memory; an AWS
    Neuron device count is not known in NeuronCores (None)."""
    if count is not None and count.source.path.endswith(tuple(f'["{name}"]' for name in NEURON_DEVICES)):
        return None  # cores per device depend on the chip: the count in the engine's unit is not known
    if count is None or device is None or not count.source.path.endswith(f'["{TPU_CHIPS}"]'):
        return count
    acc = lookup_accelerator(str(device.value))
    per = acc.devices_per_chip if acc is not None else 1
    if per <= 1:
        return count
    return Val(count.value * per, count.source, raw=f"{count.value} {acc.name} chips x {per} TensorCores")
