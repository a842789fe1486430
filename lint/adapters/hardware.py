"""Accelerators as deploy files state them: device-plugin resource counts and
the node labels, instance types and SkyPilot names that say which device.

Types are mapped onto the accelerator catalog's names (the Val keeps the text
as written in `raw`); a name the catalog does not know is kept as written, so
the capacity stage can say which device it could not size.
"""
from __future__ import annotations

import re
from typing import Any, Optional, Tuple

from ctxlint.lazyre import lazy_compile
from ctxlint.model import Source, Val
from ctxlint.nodes import MAP, SCALAR, SEQ, Node
from ctxlint.physics.accelerators import lookup_accelerator, mig_slices

# Kubernetes extended resources that count accelerators (one unit = one device).
GPU_RESOURCES = ("nvidia.com/gpu", "amd.com/gpu", "habana.ai/gaudi", "google.com/tpu", "intel.com/gpu",
                 "gpu.intel.com/i915", "aws.amazon.com/neuron", "aws.amazon.com/neurondevice",
                 "aws.amazon.com/neuroncore")
# AWS Neuron devices (Inferentia, Trainium chips) each hold several NeuronCores, and vLLM's and
# transformers-neuronx's tensor parallel size counts NeuronCores: a device count is not in the
# engine's unit. `aws.amazon.com/neuroncore` counts cores, and is.
NEURON_DEVICES = ("aws.amazon.com/neuron", "aws.amazon.com/neurondevice")
# NVIDIA's device plugin under the "mixed" MIG strategy: one resource per MIG profile (`nvidia.com/mig-3g.40gb`),
# one unit one slice (NVIDIA/k8s-device-plugin README, "Configuration Option Details", MIG_STRATEGY).
MIG_RESOURCE = "nvidia.com/mig-"
# Node labels whose value names the device.
TYPE_LABELS = ("nvidia.com/gpu.product", "cloud.google.com/gke-accelerator", "karpenter.k8s.aws/instance-gpu-name",
               # EKS Auto Mode's well-known label (docs.aws.amazon.com/eks/latest/userguide/create-node-pool.html)
               "eks.amazonaws.com/instance-gpu-name",
               "cloud.google.com/gke-tpu-accelerator", "node.kubernetes.io/instance-type",
               "beta.kubernetes.io/instance-type", "karpenter.k8s.aws/instance-type",
               # AMD's node labeller: the sysfs product name, spaces as `_` (AMD_Instinct_MI300X_OAM;
               # ROCm/k8s-device-plugin@ed764684:cmd/k8s-node-labeller/main.go "product-name")
               "amd.com/gpu.product-name", "beta.amd.com/gpu.product-name",
               # CoreWeave's class label, values such as A100_NVLINK_80GB (SkyPilot's CoreWeaveLabelFormatter,
               # skypilot-org/skypilot@6daea0f7f0eceb96cf1c2a7a5db7aaba8c74581b:sky/provision/kubernetes/utils.py)
               "gpu.nvidia.com/class")

# The instance family labels of Karpenter and of EKS Auto Mode (its `eks.amazonaws.com/` twin of each Karpenter
# label: docs.aws.amazon.com/eks/latest/userguide/create-node-pool.html). A family (`g6e`) is every size of it, so it
# names a device only where every size carries the same GPU (AWS_FAMILIES); any other family names none.
FAMILY_LABELS = ("karpenter.k8s.aws/instance-family", "eks.amazonaws.com/instance-family")

# AWS instance families whose every size carries the same GPU (same name, same memory), as EC2's
# DescribeInstanceTypes states them in Karpenter's generated reference, one entry per size with its
# instance-gpu-name and instance-gpu-memory (aws/karpenter-provider-aws@1d927085dd81a9df9301e613f371dac5b4d16bfe:
# website/content/en/docs/reference/instance-types.md; p3, retired there, @2be95547983a8948b7172aa66bf92c905fbbf001;
# AWS's table: docs.aws.amazon.com/ec2/latest/instancetypes/ac.html). Left out: g6f and gr6f (a fraction of an L4,
# by size), g5g (T4G), g4ad (Radeon Pro V520) and g7 (RTX PRO 4500), which the catalog does not know, and the
# Neuron families (inf1, inf2, trn1, trn2), whose devices are no GPU. Also the instance types' prefixes below.
AWS_FAMILIES = {"g4dn": "T4", "g5": "A10G", "g6": "L4", "gr6": "L4", "g6e": "L40S", "g7e": "RTX-PRO-6000-Blackwell",
                "p3": "V100-16GB", "p3dn": "V100-32GB", "p4d": "A100-40GB", "p4de": "A100-80GB", "p5": "H100",
                "p5e": "H200", "p5en": "H200", "p6-b200": "B200", "p6-b300": "B300"}

# Well-known cloud instance types -> the device they carry (prefix match on the family).
_INSTANCE_FAMILIES = tuple((re.escape(family) + r"\.", device) for family, device in AWS_FAMILIES.items()) + (
    (r"a3-ultragpu", "H200"), (r"a3-(high|mega|edge)gpu", "H100"), (r"a2-ultragpu", "A100-80GB"),
    (r"a2-highgpu", "A100-40GB"), (r"g2-standard", "L4"), (r"standard_nd\d+is?r_h100", "H100"),
    (r"standard_nd\d+is?r_h200", "H200"), (r"standard_nd\d+amsr_a100", "A100-80GB"),
    (r"standard_nc\d+ads_a100", "A100-80GB"), (r"standard_nd\d+asr_v4", "A100-40GB"),
    (r"standard_nc\d+ads_h100", "H100-NVL"), (r"standard_nc\d+as_t4_v3", "T4"),
    # Oracle Cloud GPU shapes (docs.oracle.com/en-us/iaas/Content/Compute/References/computeshapes.htm "GPU shapes")
    (r"(vm|bm)\.gpu\.a10\.", "A10"), (r"bm\.gpu\.h100\.", "H100"), (r"bm\.gpu\.h200\.", "H200"),
    (r"bm\.gpu\.a100-v2\.", "A100-80GB"), (r"bm\.gpu4\.", "A100-40GB"), (r"bm\.gpu\.l40s", "L40S"),
    (r"bm\.gpu\.mi300x\.", "MI300X"), (r"(vm|bm)\.gpu3\.", "V100-16GB"),
)

# Azure GPU VM sizes -> (devices per VM, device), as Azure's VM size pages and KAITO's own SKU
# table (pkg/sku/azure_sku_handler.go) state them. Keys are lower case; sizes with a fraction of
# a GPU (NV6ads_A10_v5, ...) are left out: they are not whole devices.
INSTANCE_GPUS = {
    "standard_nv36ads_a10_v5": (1, "A10"), "standard_nv72ads_a10_v5": (2, "A10"),
    "standard_nc24ads_a100_v4": (1, "A100-80GB"), "standard_nc48ads_a100_v4": (2, "A100-80GB"),
    "standard_nc96ads_a100_v4": (4, "A100-80GB"),
    "standard_nd96asr_v4": (8, "A100-40GB"), "standard_nd96asr_a100_v4": (8, "A100-40GB"),  # KAITO's spelling
    "standard_nd96amsr_a100_v4": (8, "A100-80GB"),
    "standard_nc40ads_h100_v5": (1, "H100-NVL"), "standard_nc80adis_h100_v5": (2, "H100-NVL"),
    "standard_ncc40ads_h100_v5": (1, "H100-NVL"),
    "standard_nd96isr_h100_v5": (8, "H100"), "standard_nd96isr_h200_v5": (8, "H200"),
    "standard_nd96isr_mi300x_v5": (8, "MI300X"),
}


def instance_gpus(node: Optional[Node], file: str) -> Tuple[Optional[Val[str]], Optional[Val[int]]]:
    """(device type, devices per VM) of a known instance type, both at the instance type scalar."""
    text = _scalar(node)
    found = INSTANCE_GPUS.get(text.strip().lower()) if isinstance(text, str) else None
    if found is None:
        return None, None
    device = canonical_type(found[1])
    source = node.source(file)
    return Val(device[0], source, raw=text), Val(found[0], source, raw=text)


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


def canonical_type(name: Any) -> Optional[Tuple[str, str]]:
    """(catalog or written name, text as written) for a device name, instance type or label value."""
    if not isinstance(name, str) or not name.strip():
        return None
    text = name.strip()
    low = text.lower()
    if low in INSTANCE_GPUS:
        name = INSTANCE_GPUS[low][1]
        acc = lookup_accelerator(name)
        return (acc.name if acc is not None else name), text
    for pattern, device in _INSTANCE_FAMILIES:
        if re.match(pattern, low):
            return device, text
    acc = lookup_accelerator(text)
    if acc is None and "-" in low and low.startswith(("nvidia-", "amd-")):
        acc = lookup_accelerator(low.split("-", 1)[1])
    return (acc.name if acc is not None else text), text


# Other clouds' and clusters' device labels (Volcano Engine's machine.cluster.vke.volcengine.com/gpu-name,
# Alibaba's aliyun.accelerator/nvidia_name, node-feature-discovery style .../gpu-model): only a value that
# names a device of the catalog counts, so an odd label can never invent one.
_VENDOR_TYPE_KEY = lazy_compile(r"(?:^|[/.])(?:gpu[-_.]?(?:name|product|model|type)|nvidia_name|accelerator(?:-type)?)$")


def _device_label(key: Any) -> str:
    """"known" for the standard device labels, "family" for AWS's instance family labels, "vendor" for other
    labels named like a device label, else ""."""
    if key in TYPE_LABELS:
        return "known"
    if key in FAMILY_LABELS:
        return "family"
    return "vendor" if isinstance(key, str) and _VENDOR_TYPE_KEY.search(key.lower()) else ""


# Families sold in two memory sizes: a vendor label that does not say which (`Tesla-V100`) names no
# device ctxlint may assume (the standard labels and SkyPilot/GKE names have fixed meanings).
_TWO_SIZES = lazy_compile(r"^(?:nvidia[-_ ]?)?(?:tesla[-_ ]?)?(?:v100|a100)(?:[-_ ]?(?:sxm\d?|pcie))?$")


def _typed(value: Any, kind: str) -> Optional[Tuple[str, str]]:
    if kind == "family":
        device = AWS_FAMILIES.get(value.strip().lower()) if isinstance(value, str) else None
        return (device, value.strip()) if device is not None else None
    found = canonical_type(value)
    if found is None or (kind == "vendor" and lookup_accelerator(found[0]) is None):
        return None
    if kind == "vendor" and _TWO_SIZES.match(found[1].strip().lower()):
        return None
    return found


def site_type(value: Any) -> Optional[Tuple[str, str]]:
    """A device named by a site's own word (a vendor label's value, a Slurm gres type): only a catalog device
    that name settles, never a family sold in two memory sizes (`v100`, `a100`)."""
    return _typed(value, "vendor")


def type_from_labels(labels: Optional[Node], file: str) -> Optional[Val[str]]:
    """Device type from a nodeSelector-style mapping of label -> value."""
    if labels is None or labels.kind != MAP:
        return None
    keys = list(TYPE_LABELS + FAMILY_LABELS) + [k for k in labels.value if _device_label(k) == "vendor"]
    for key in keys:
        node = labels.get(key)
        if node is not None and node.kind == SCALAR:
            found = _typed(node.value, _device_label(key))
            if found is not None:
                return Val(found[0], node.source(file), raw=found[1])
    return None


def type_from_affinity(affinity: Optional[Node], file: str) -> Optional[Val[str]]:
    """Device type from required node affinity `key In [values]` (see one_device)."""
    terms = affinity.dig("nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms") \
        if affinity is not None else None
    if terms is None or terms.kind != SEQ:
        return None
    for term in terms.value:
        exprs = term.get("matchExpressions") if term.kind == MAP else None
        for expr in exprs.value if exprs is not None and exprs.kind == SEQ else ():
            kind = _device_label(_scalar(expr.get("key"))) if expr.kind == MAP else ""
            if not kind or _scalar(expr.get("operator")) != "In":
                continue
            found = one_device(_scalar(expr.get("key")), expr.get("values"), file)
            if found is not None:
                return found
    return None


def one_device(key: Any, values: Optional[Node], file: str) -> Optional[Val[str]]:
    """The device a device label's list of values names (`key In [...]`, llm-d's `labelValues`), at the first
    value: the node is any one of them, so several values name a device only when all name the same one
    (`[p5e, p5en]`: H200); values of different devices are an any-of ctxlint cannot narrow (none)."""
    kind = _device_label(key)
    items = values.value if kind and values is not None and values.kind == SEQ else ()
    found = [_typed(_scalar(item), kind) for item in items]
    if not found or any(f is None for f in found) or len({f[0] for f in found}) != 1:
        return None
    return Val(found[0][0], items[0].source(file), raw=found[0][1])


def type_from_pod_spec(pod_spec: Optional[Node], file: str) -> Optional[Val[str]]:
    if pod_spec is None or pod_spec.kind != MAP:
        return None
    return type_from_labels(pod_spec.get("nodeSelector"), file) or type_from_affinity(pod_spec.get("affinity"), file)


def _scalar(node: Optional[Node]) -> Any:
    return node.value if node is not None and node.kind == SCALAR else None
