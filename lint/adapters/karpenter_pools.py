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

from typing import Any, List, Optional, Sequence

from ctxlint.adapters.run_classes import current
from ctxlint.model import Val
from ctxlint.nodes import MAP, SCALAR, SEQ, Node

LABEL = "karpenter.sh/nodepool"
_RESOLVING: set = set()  # the NodePools being read: one whose labels name a NodePool (Karpenter refuses it) ends


def pool_device(name: Any) -> Optional[Val[str]]:
    """The device the NodePool `name` names, at the value that names it in the NodePool's file; None when no
    checked file defines it, or it names none or several."""
    run = current()
    if not isinstance(name, str) or not name.strip() or run is None:
        return None
    if name.strip() in _RESOLVING:
        return None
    _RESOLVING.add(name.strip())
    try:
        devices = [_template_device(path, obj) for path, obj in run.node_pools(name.strip())]
    finally:
        _RESOLVING.discard(name.strip())
    if not devices or any(d is None for d in devices) or len({d.value for d in devices}) != 1:
        return None
    return devices[0]


def selected_device(values: Sequence[Node]) -> Optional[Val[str]]:
    """The device of the NodePools a pod may get (a selector's one, an affinity's any-of): all must name one."""
    devices = [pool_device(v.value if v.kind == SCALAR else None) for v in values]
    if not devices or any(d is None for d in devices) or len({d.value for d in devices}) != 1:
        return None
    return devices[0]


def _template_device(path: str, pool: Node) -> Optional[Val[str]]:
    from ctxlint.adapters.device_labels import one_device, type_from_labels

    template = pool.dig("spec", "template")
    if template is None or template.kind != MAP:
        return None
    named: List[Val[str]] = []
    labelled = type_from_labels(template.dig("metadata", "labels"), path)
    if labelled is not None:
        named.append(labelled)
    terms = template.dig("spec", "requirements")
    for term in terms.value if terms is not None and terms.kind == SEQ else ():
        if term.kind != MAP or _scalar(term.get("operator")) != "In":
            continue
        found = one_device(_scalar(term.get("key")), term.get("values"), path)
        if found is not None:
            named.append(found)
    if not named or len({d.value for d in named}) != 1:
        return None  # none named, or terms no instance type meets together
    return named[0]


def affinity_values(affinity: Optional[Node]) -> List[Node]:
    """The values of a required node affinity term `karpenter.sh/nodepool In [...]`."""
    terms = affinity.dig("nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms") \
        if affinity is not None and affinity.kind == MAP else None
    out: List[Node] = []
    for term in terms.value if terms is not None and terms.kind == SEQ else ():
        exprs = term.get("matchExpressions") if term.kind == MAP else None
        for expr in exprs.value if exprs is not None and exprs.kind == SEQ else ():
            values = expr.get("values") if expr.kind == MAP else None
            if _scalar(expr.get("key")) == LABEL and _scalar(expr.get("operator")) == "In" and values is not None \
                    and values.kind == SEQ:
                out.extend(v for v in values.value if v.kind == SCALAR)
    return out


def _scalar(node: Optional[Node]) -> Any:
    return node.value if node is not None and node.kind == SCALAR else None
