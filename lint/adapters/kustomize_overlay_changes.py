"""Whether a kustomize overlay builds a base's workload otherwise than the base's own kustomization does.

    kz/base/deployment.yaml              vLLM on nodeSelector NVIDIA-L4, --max-model-len 131072
    kz/overlays/prod/kustomization.yaml  resources: [../../base], namePrefix: prod-, patches: [{path: gpu.yaml}]
    kz/overlays/prod/gpu.yaml            nodeSelector NVIDIA-A100-SXM4-40GB
    kz/overlays/dev/kustomization.yaml   resources: [../../base], namePrefix: dev-

`kubectl apply -k overlays/prod` runs the model on an A100 40GB: a deployment of its own, judged on the values the
overlay's patches and `images:` give it (kustomize_patches applies them, exactly or not at all). `overlays/dev`
builds the base's workload under another name: judging it again would repeat the base's findings under a second
deployment, so it is not; nor an overlay that only renames another overlay's build (`top`, `resources: [../prod]`). What counts as a change: any value of the workload but its name, namespace and labels
(which kustomize's namePrefix, namespace and labels transformers set on every overlay, and which no check reads);
annotations stay, as a pod's annotations may carry its resource limits.
"""
from __future__ import annotations

import os
from typing import Any, List, Optional, Tuple

from ctxlint.nodes import MAP, SEQ, Node

_IDENTITY = ("name", "namespace", "labels")  # the metadata every overlay may set without changing what runs


def _plain(node: Optional[Node]) -> Any:
    """The node's values without their positions (a patched value carries the patch file's place)."""
    if node is None:
        return None
    if node.kind == MAP:
        return {k: _plain(v) for k, v in node.value.items()}
    if node.kind == SEQ:
        return [_plain(v) for v in node.value]
    return node.value


def _values(obj: Node) -> Any:
    """The workload's values, its own and its pod template's name, namespace and labels aside."""
    out = {k: _plain(v) for k, v in obj.value.items() if k != "metadata"} if obj.kind == MAP else _plain(obj)
    meta = obj.get("metadata") if obj.kind == MAP else None
    if meta is not None and meta.kind == MAP:
        out["metadata"] = {k: _plain(v) for k, v in meta.value.items() if k not in _IDENTITY}
    return _without_template_labels(out)


def _without_template_labels(value: Any) -> Any:
    """A pod template's labels (`spec.template.metadata.labels`, a CronJob's one level down) dropped: a labels
    transformer sets them on every overlay."""
    if isinstance(value, dict):
        return {k: (_without_template_labels(v) if k != "metadata" or not isinstance(v, dict)
                    else {m: w for m, w in v.items() if m != "labels"}) for k, v in value.items()}
    return value


def own_build(obj: Node, own: Optional[Tuple[str, Any]], reader: Any) -> Optional[Node]:
    """The workload as its own kustomization builds it (its patches and images, and its Components'); None when
    those are not applied exactly (then no overlay of it is, either)."""
    from ctxlint.adapters.kustomize_overlays import _APPLIED, _components

    if own is None or own[1] is None:
        return obj
    levels: List[Tuple[str, Any]] = [level for level in _components(own[0], own[1], reader) + [own]
                                     if level[1] is not None]
    if not any(r.get(k) is not None for _, r in levels for k in _APPLIED):
        return obj
    from ctxlint.adapters.kustomize_patches import NotApplied, apply_chain

    try:
        return apply_chain(obj, levels, reader)
    except NotApplied:
        return None


def changes(built: Optional[Node], base: Optional[Node]) -> bool:
    """Whether the overlay's workload `built` differs from the base's build `base` in a value the checks may read."""
    return built is not None and base is not None and _values(built) != _values(base)


def deployed(overlays: List[Any], obj: Node, own: Optional[Tuple[str, Any]], reader: Any) -> List[Any]:
    """The overlays (kustomize_overlays.Overlay, none generating what the workload reads) that build it otherwise
    than the base's own kustomization does and than the overlay each includes, where that one is among them (an
    overlay `top` that only renames `mid`'s build is `mid`'s deployment again); those not applied exactly, none."""
    base = own_build(obj, own, reader)
    builds = {os.path.abspath(o.path): o.obj for o in overlays if o.reason is None}
    out = []
    for overlay in overlays:
        if overlay.reason is not None or overlay.obj is None:
            continue
        inner = builds.get(os.path.abspath(overlay.inner)) if overlay.inner else None
        if changes(overlay.obj, base) and (inner is None or changes(overlay.obj, inner)):
            out.append(overlay)
    return out
