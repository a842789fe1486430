"""Karpenter NodePools: the device a pod gets from the NodePool its node selector names.

A pod on a Karpenter (or EKS Auto Mode) cluster may choose its nodes by NodePool, `nodeSelector:
{karpenter.sh/nodepool: gpu}`: Karpenter labels each node it launches with its NodePool's name (`NodePoolLabelKey`,
a well-known label pods may select on: kubernetes-sigs/karpenter@046bcdae737388a7edf5f984cdecfe62047b9143:
pkg/apis/v1/labels.go), gives it the NodePool's `spec.template.metadata.labels`, and launches it on an instance
type that meets every `spec.template.spec.requirements[]` term (karpenter.sh/docs/concepts/nodepools,
"spec.template.spec.requirements"). So a NodePool (`apiVersion: karpenter.sh/*`, `kind: NodePool`) defined in a
checked file names the device its template labels name, or that an `In` requirement on a device label names
with every value (`eks.amazonaws.com/instance-family In [g4dn]`: T4). The terms hold together, so one that names
a single device settles it beside another that allows several (instance family [g5, g6] and instance-gpu-name
[a10g]: A10G), and two that name different devices leave it unknown (no instance type meets both), as do values
of several devices alone (`[g5, g6]`: A10G or L4) and a NodePool defined twice differently. A name is never read as
a device by itself (`gpu-a10g`). The NodePool is looked for in the run's files as a GKE ComputeClass is
(run_classes.py): only when a pod names one.
"""
from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple

from ctxlint.adapters.device_labels import selected_without_device
from ctxlint.adapters.run_classes import current
from ctxlint.model import Val
from ctxlint.nodes import MAP, SCALAR, SEQ, Node

LABEL = "karpenter.sh/nodepool"
_RESOLVING: set = set()  # the NodePools being read: one whose labels name a NodePool (Karpenter refuses it) ends


def pool_device(name: Any) -> Tuple[Optional[Val[str]], str]:
    """(the device the NodePool `name` names, at the value that names it in the NodePool's file; why not, when
    None: no checked file defines it, it names no device or several, or it is defined twice differently)."""
    run = current()
    if not isinstance(name, str) or not name.strip() or run is None or name.strip() in _RESOLVING:
        return None, ""
    name = name.strip()
    _RESOLVING.add(name)
    try:
        found = run.node_pools(name)
        devices = [_template_device(path, obj, name) for path, obj in found]
    finally:
        _RESOLVING.discard(name)
    if not devices:
        return None, f"no checked file defines the NodePool '{name}'"
    if len({(_canonical(d.value) if d is not None else None, why) for d, why in devices}) > 1:  # two alike are one
        where = ", ".join(f"{path}:{obj.source(path).line}" for path, obj in found)
        return None, f"the NodePool '{name}' is defined {len(found)} times, differently ({where})"
    path, obj = found[0]
    return devices[0][0], devices[0][1].replace("{where}", f"{path}:{obj.source(path).line}")


def selected_device(values: Sequence[Node]) -> Optional[Val[str]]:
    """The device of the NodePools a pod may get (a selector's one, an affinity's any-of): all must name one."""
    devices = [pool_device(v.value if v.kind == SCALAR else None)[0] for v in values]
    if not devices or any(d is None for d in devices) or len({_canonical(d.value) for d in devices}) != 1:
        return None
    return devices[0]


def why_unknown(pod_spec: Optional[Node], file: str) -> Optional[Val[str]]:
    """The NodePool a pod selects that names no device, at the selector's value, with why (raw): for CTX208's
    advice (Role.device_pool). None when the pod selects no NodePool, or its NodePool names a device."""
    return selected_without_device(pod_spec, file, LABEL, pool_device)


def _template_device(path: str, pool: Node, name: str) -> Tuple[Optional[Val[str]], str]:
    """(the device the NodePool's template names; why not, with `{where}` for the place it is defined)"""
    from ctxlint.adapters.device_labels import one_device, term_devices, type_from_labels

    template = pool.dig("spec", "template")
    template = template if template is not None and template.kind == MAP else None
    named: List[Val[str]] = []
    allowed: List[str] = []  # the devices of a term that allows several
    labels = template.dig("metadata", "labels") if template is not None else None
    if labels is not None and labels.kind == MAP and labels.get(LABEL) is not None:
        # Karpenter's CRD refuses it: `label "karpenter.sh/nodepool" is restricted` on spec.template.metadata.labels
        # (kubernetes-sigs/karpenter@2266468104f36373ed002241afaee2d3bbc26078:hack/validation/labels.sh)
        return None, (f"the NodePool '{name}' ({{where}}) sets the label {LABEL} in its template, which Karpenter "
                      "refuses")
    labelled = type_from_labels(labels, path)
    if labelled is not None:
        named.append(labelled)
    terms = template.dig("spec", "requirements") if template is not None else None
    for term in terms.value if terms is not None and terms.kind == SEQ else ():
        if term.kind != MAP or _scalar(term.get("operator")) != "In":
            continue
        found = one_device(_scalar(term.get("key")), term.get("values"), path)
        if found is not None:
            named.append(found)
        elif not allowed:
            allowed = term_devices(_scalar(term.get("key")), term.get("values"))
    named = _narrowed(named)
    kinds = list(dict.fromkeys(_canonical(d.value) for d in named))  # p5's `H100` is instance-gpu-name h100's
    if len(kinds) == 1:
        return named[0], ""
    if kinds:
        return None, (f"the requirements of the NodePool '{name}' ({{where}}) name different GPUs "
                      f"({', '.join(kinds)}), which no instance type has together")
    if len(allowed) > 1:
        return None, (f"the NodePool '{name}' ({{where}}) allows instance types of different GPUs "
                      f"({', '.join(allowed)}): Karpenter may launch any of them")
    return None, (f"the NodePool '{name}' ({{where}}) names no GPU ctxlint knows (an `In` requirement on an instance "
                  "type, family or GPU name whose values carry one GPU)")


def _narrowed(named: List[Val[str]]) -> List[Val[str]]:
    """The devices the terms name, less a family's any-of device (instance-gpu-name `a100`: 40 or 80 GB) where
    another term names one of its sizes (instance-family `p4de`: A100 80 GB): the terms hold together."""
    from ctxlint.physics.accelerators import lookup_accelerator

    def members(device: str) -> Tuple[str, ...]:
        acc = lookup_accelerator(device)
        return acc.members if acc is not None else ()

    sized = [_canonical(d.value) for d in named if not members(d.value)]
    return [d for d in named if not members(d.value) or not any(s in members(d.value) for s in sized)]


def _canonical(device: str) -> str:
    """The catalog's name of a device (an instance family's `H100` and instance-gpu-name's `h100` are one GPU), else
    the device as named."""
    from ctxlint.physics.accelerators import lookup_accelerator

    acc = lookup_accelerator(device)
    return acc.name if acc is not None else device


def _scalar(node: Optional[Node]) -> Any:
    return node.value if node is not None and node.kind == SCALAR else None
