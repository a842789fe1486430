"""Which device a pod lands on, as its node labels, node affinity and instance types say: names mapped onto the
accelerator catalog's (the Val keeps the text as written in `raw`), a family word that names no size (`a100`,
`v100`) as the family's any-of device, and a name the catalog does not know kept as written, so the capacity stage
can say which device it could not size. hardware.py (resource counts, MIG slices) re-exports these."""
from __future__ import annotations

import re
from typing import Any, Callable, List, Optional, Tuple

from ctxlint.adapters.instance_types import AWS_FAMILIES, INSTANCE_FAMILIES, INSTANCE_GPUS
from ctxlint.lazyre import lazy_compile
from ctxlint.model import Val
from ctxlint.nodes import MAP, SCALAR, SEQ, Node
from ctxlint.physics.accelerators import family_word, lookup_accelerator

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
# label: docs.aws.amazon.com/eks/latest/userguide/create-node-pool.html). A family (`g6e`) is every size of it, so
# it names a device only where every size carries the same GPU (instance_types.AWS_FAMILIES); others name none.
FAMILY_LABELS = ("karpenter.k8s.aws/instance-family", "eks.amazonaws.com/instance-family")

def instance_gpus(node: Optional[Node], file: str) -> Tuple[Optional[Val[str]], Optional[Val[int]]]:
    """(device type, devices per VM) of a known instance type, both at the instance type scalar."""
    text = _scalar(node)
    found = INSTANCE_GPUS.get(text.strip().lower()) if isinstance(text, str) else None
    if found is None:
        return None, None
    device = canonical_type(found[1])
    source = node.source(file)
    return Val(device[0], source, raw=text), Val(found[0], source, raw=text)


_FAMILIES: list = []  # the compiled alternation of INSTANCE_FAMILIES, made on first use


def _families() -> "re.Pattern[str]":
    """INSTANCE_FAMILIES's patterns as one alternation, each in a group `f<index>`: at the start of a text the
    alternatives are tried in order, so the one that matches is the first family a loop of re.match finds. One
    match instead of ~35 (each through re's pattern cache) for every name that is no instance family."""
    if not _FAMILIES:
        alternatives = (f"(?P<f{i}>{pattern})" for i, (pattern, _) in enumerate(INSTANCE_FAMILIES))
        _FAMILIES.append(re.compile("|".join(alternatives)))
    return _FAMILIES[0]


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
    family = _families().match(low)
    if family is not None:
        return INSTANCE_FAMILIES[int(family.lastgroup[1:])][1], text
    acc = lookup_accelerator(text)
    if acc is None and "-" in low and low.startswith(("nvidia-", "amd-")):
        acc = lookup_accelerator(low.split("-", 1)[1])
    if acc is None and low.startswith("nvidia-") and low.endswith("-vws"):
        # GCP's NVIDIA RTX Virtual Workstation types (nvidia-l4-vws, nvidia-tesla-t4-vws, ...): the same GPU with a
        # vWS licence (docs.cloud.google.com/compute/docs/gpus; Notebooks API AcceleratorType NVIDIA_TESLA_T4_VWS
        # "NVIDIA Tesla T4 Virtual Workstations"). A device the catalog lacks stays as written.
        acc = lookup_accelerator(low[len("nvidia-"):-len("-vws")]) if len(low) > len("nvidia--vws") else None
    return (acc.name if acc is not None else text), text


# Other clouds' and clusters' device labels (Volcano Engine's machine.cluster.vke.volcengine.com/gpu-name,
# Alibaba's aliyun.accelerator/nvidia_name, node-feature-discovery style .../gpu-model): only a value that
# names a device of the catalog counts, so an odd label can never invent one.
_VENDOR_TYPE_KEY = lazy_compile(r"(?:^|[/.])(?:gpu[-_.]?(?:name|product|model|type)|nvidia_name|accelerator(?:-type)?)$")


def _device_label(key: Any) -> str:
    """"known" for the standard device labels ("product" for GFD's, "class" for CoreWeave's), "gpu-name" for
    AWS's instance-gpu-name labels, "family" for AWS's instance family labels, "vendor" for other labels named
    like a device label, else ""."""
    if key in GPU_NAME_LABELS:
        return "gpu-name"
    if key in (PRODUCT_LABEL, CLASS_LABEL):
        return "product" if key == PRODUCT_LABEL else "class"
    if key in TYPE_LABELS:
        return "known"
    if key in FAMILY_LABELS:
        return "family"
    return "vendor" if isinstance(key, str) and _VENDOR_TYPE_KEY.search(key.lower()) else ""


# Families sold in two memory sizes: a vendor label that does not say which (`Tesla-V100`) names any of
# them, the catalog's family device (accelerators.family_word: a memory band over the sizes), never one
# size ctxlint would assume (GKE's and the instance types' names have fixed meanings, kept as they are).
# GFD's nvidia.com/gpu.product is NVML's device name, which says the size of these families' cards
# (Tesla-V100-SXM2-16GB, NVIDIA-A100-SXM4-40GB), so a bare `a100` there was written by hand: any size.
# AWS's instance-gpu-name is EC2's GPU name, one word for both sizes of a family: `a100` on p4d (A100 40 GB,
# instance-gpu-memory 40960) and p4de (A100 80 GB, 81920), `v100` on p3 (16 GB) and p3dn (32 GB)
# (aws/karpenter-provider-aws@1d927085dd81a9df9301e613f371dac5b4d16bfe:website/content/en/docs/reference/
# instance-types.md): the family's any-of device, as a site's word is, not the catalog's bare `A100` (40 GB).
GPU_NAME_LABELS = ("karpenter.k8s.aws/instance-gpu-name", "eks.amazonaws.com/instance-gpu-name")
PRODUCT_LABEL, CLASS_LABEL = "nvidia.com/gpu.product", "gpu.nvidia.com/class"
_ANY_SIZE_KINDS = ("vendor", "gpu-name", "product", "class")
# CoreWeave's classes that name a family and no size in the word, with the size CoreWeave's node-types table
# gives each (coreweave/kubernetes-cloud@2aac3a3b2de6dd04323999da123e7e632ac1e7e4:coreweave-kubernetes/node-types.md,
# "Component Availability": A100_NVLINK 40 GB beside A100_NVLINK_80GB, A100_PCIE_40GB and A100_PCIE_80GB;
# Tesla_V100_NVLINK 16 GB). Its other classes say their size (A100_NVLINK_80GB) or are of one size (A40).
CLASS_SIZES = {"a100_nvlink": "A100-40GB", "tesla_v100_nvlink": "V100-16GB"}


def _typed(value: Any, kind: str) -> Optional[Tuple[str, str]]:
    if kind == "family":
        device = AWS_FAMILIES.get(value.strip().lower()) if isinstance(value, str) else None
        return (device, value.strip()) if device is not None else None
    if kind == "class" and isinstance(value, str) and value.strip().lower() in CLASS_SIZES:
        return CLASS_SIZES[value.strip().lower()], value.strip()
    found = canonical_type(value)
    family = family_word(found[1]) if found is not None and kind in _ANY_SIZE_KINDS else None
    if family is not None:  # before the catalog's word: its bare `A100` is SkyPilot's, the 40 GB card
        return family.name, found[1]
    if found is None or (kind == "vendor" and lookup_accelerator(found[0]) is None):
        return None
    return found


def site_type(value: Any) -> Optional[Tuple[str, str]]:
    """A device named by a site's own word (a vendor label's value, a Slurm gres type): only a catalog device
    that name settles; a family sold in two memory sizes (`v100`, `a100`, `p100`) is its any-of device."""
    return _typed(value, "vendor")


def _sized(device: str, labels: Node, key: str) -> str:
    """A family's size, where AWS's instance-gpu-memory (MiB per GPU) beside its instance-gpu-name states it:
    `a100` with 81920 is p4de's A100 80 GB; else the family's any-of device, or the device as named."""
    acc = lookup_accelerator(device) if key in GPU_NAME_LABELS else None
    memory = _scalar(labels.get(key.replace("instance-gpu-name", "instance-gpu-memory"))) if acc else None
    mib = int(memory) if isinstance(memory, int) or (isinstance(memory, str) and memory.strip().isdigit()) else 0
    sized = [m for m in acc.members if f"{mib // 1024}GB" in m] if acc is not None and mib % 1024 == 0 else []
    return sized[0] if len(sized) == 1 else device


def _any_size(device: str) -> bool:
    acc = lookup_accelerator(device)
    return acc is not None and bool(acc.members)


def type_from_labels(labels: Optional[Node], file: str) -> Optional[Val[str]]:
    """Device type from a nodeSelector-style mapping of label -> value; a GKE compute class last, as the
    ComputeClass the run's files define names it (compute_classes.py): a device label beside it (Autopilot's
    `Accelerator` class with cloud.google.com/gke-accelerator) says more."""
    if labels is None or labels.kind != MAP:
        return None
    keys = list(TYPE_LABELS + FAMILY_LABELS) + [k for k in labels.value if _device_label(k) == "vendor"]
    family = None  # a family's any-of device yields to a label beside it that names the size (p4de's instance type)
    for key in keys:
        node = labels.get(key)
        if node is not None and node.kind == SCALAR:
            found = _typed(node.value, _device_label(key))
            if found is not None:
                named = Val(_sized(found[0], labels, key), node.source(file), raw=found[1])
                if not _any_size(named.value):
                    return named
                family = family or named
    if family is not None:
        return family
    node = labels.get(COMPUTE_CLASS)
    if node is not None and node.kind == SCALAR:
        from ctxlint.adapters.compute_classes import selected_device  # only a pod that names a class pays for it

        return selected_device([node])
    node = labels.get(NODE_POOL)
    if node is not None and node.kind == SCALAR:
        from ctxlint.adapters.karpenter_pools import selected_device as pool_device  # as a class, on first use

        return pool_device([node])
    return None


COMPUTE_CLASS = "cloud.google.com/compute-class"  # compute_classes.LABEL
NODE_POOL = "karpenter.sh/nodepool"  # karpenter_pools.LABEL


def type_from_affinity(affinity: Optional[Node], file: str) -> Optional[Val[str]]:
    """Device type from required node affinity `key In [values]` (see one_device). The terms are ORed (the pod may
    go to a node that meets any one of them: kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node), so
    every term must name the device, and all the same one; a term's expressions hold together (its first device)."""
    terms = affinity.dig("nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms") \
        if affinity is not None else None
    if terms is None or terms.kind != SEQ:
        return None
    found: List[Val[str]] = []
    for term in terms.value:
        device = _term_device(term, file)
        if device is None:
            return None
        found.append(device)
    names = {(lookup_accelerator(d.value).name if lookup_accelerator(d.value) is not None else d.value) for d in found}
    return found[0] if len(names) == 1 else None


def _term_device(term: Node, file: str) -> Optional[Val[str]]:
    """The device one nodeSelectorTerm names: a device label's `In`, else the GKE compute class or Karpenter NodePool
    its `In` names (their readers imported only for a term that names one)."""
    exprs = term.get("matchExpressions") if term.kind == MAP else None
    classes: List[Node] = []
    pools: List[Node] = []
    for expr in exprs.value if exprs is not None and exprs.kind == SEQ else ():
        key = _scalar(expr.get("key")) if expr.kind == MAP else None
        if expr.kind != MAP or _scalar(expr.get("operator")) != "In":
            continue
        values = expr.get("values")
        if key in (COMPUTE_CLASS, NODE_POOL) and values is not None and values.kind == SEQ:
            (classes if key == COMPUTE_CLASS else pools).extend(v for v in values.value if v.kind == SCALAR)
        if not _device_label(key):
            continue
        found = one_device(key, values, file)
        if found is not None:
            return found
    if classes:
        from ctxlint.adapters.compute_classes import selected_device

        found = selected_device(classes)
        if found is not None:
            return found
    if pools:
        from ctxlint.adapters import karpenter_pools

        return karpenter_pools.selected_device(pools)
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


def term_devices(key: Any, values: Optional[Node]) -> List[str]:
    """The devices the values of a device label's `key In [...]` name, in order, each once ([] when one names none
    ctxlint knows): a term that allows several (Karpenter's `instance-family In [g5, g6]`: A10G, L4)."""
    kind = _device_label(key)
    found = [_typed(_scalar(item), kind) for item in (values.value if kind and values is not None and
                                                       values.kind == SEQ else ())]
    return [] if not found or any(f is None for f in found) else list(dict.fromkeys(f[0] for f in found))


def type_from_pod_spec(pod_spec: Optional[Node], file: str) -> Optional[Val[str]]:
    if pod_spec is None or pod_spec.kind != MAP:
        return None
    return type_from_labels(pod_spec.get("nodeSelector"), file) or type_from_affinity(pod_spec.get("affinity"), file)


def _scalar(node: Optional[Node]) -> Any:
    return node.value if node is not None and node.kind == SCALAR else None


def affinity_in_values(affinity: Optional[Node], label: str) -> List[Node]:
    """The values of the required node affinity terms `<label> In [...]` (a GKE compute class, a Karpenter NodePool):
    none when a term names none so, for the terms are ORed (kubernetes.io/docs/concepts/scheduling-eviction/
    assign-pod-node: the pod may go to a node that meets any one of them) and that term lets it run anywhere."""
    terms = affinity.dig("nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms") \
        if affinity is not None and affinity.kind == MAP else None
    out: List[Node] = []
    for term in terms.value if terms is not None and terms.kind == SEQ else ():
        exprs = term.get("matchExpressions") if term.kind == MAP else None
        named = False
        for expr in exprs.value if exprs is not None and exprs.kind == SEQ else ():
            values = expr.get("values") if expr.kind == MAP else None
            key, op = expr.get("key"), expr.get("operator")
            if key is not None and key.kind == SCALAR and key.value == label and op is not None and \
                    op.kind == SCALAR and op.value == "In" and values is not None and values.kind == SEQ:
                out.extend(v for v in values.value if v.kind == SCALAR)
                named = True
        if not named:
            return []
    return out


def selected_without_device(pod_spec: Optional[Node], file: str, label: str,
                            device_of: Callable[[Any], Tuple[Optional[Val[str]], str]]) -> Optional[Val[str]]:
    """The value of `label` a pod selects (its nodeSelector, else its required affinity terms) whose object names no
    device, at that value, with why (raw) from `device_of(name) -> (device, why)`: a GKE compute class's or a Karpenter
    NodePool's, for CTX208's advice. None when the pod selects none, or what it selects names a device."""
    if pod_spec is None or pod_spec.kind != MAP:
        return None
    selector = pod_spec.get("nodeSelector")
    node = selector.get(label) if selector is not None and selector.kind == MAP else None
    values = [node] if node is not None and node.kind == SCALAR else affinity_in_values(pod_spec.get("affinity"), label)
    for value in values:
        device, why = device_of(value.value if value.kind == SCALAR else None)
        if device is None and why:
            return Val(str(value.value if value.kind == SCALAR else None), value.source(file), raw=why)
    return None
