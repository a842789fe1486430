"""The deployments a kustomize base's workload makes: one per overlay that generates a ConfigMap it reads
(kustomize_overlays) or whose patches change it (kustomize_overlay_changes), and the base as read alone beside those
that only patch it (`kubectl apply -k base` deploys it). Apart from kubernetes.py, which imports it only for a file
that may have overlays."""
from __future__ import annotations

from typing import Any, Dict, List, Optional

from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.crd_common import namespace_of
from ctxlint.adapters.scalar_spans import ScalarSpans
from ctxlint.adapters.workload import Workload
from ctxlint.loader import LoadedFile
from ctxlint.model import Val
from ctxlint.nodes import Node


def overlaid(loaded: LoadedFile, obj: Node, spans: ScalarSpans, result: AdaptResult,
             read: Dict[str, Any], workload: Optional[Workload], make: Any) -> List[Optional[Workload]]:
    """One workload per kustomize overlay of the file's directory that generates the ConfigMaps it reads and
    its directory defines not (adapters/kustomize_overlays.py), or whose patches change it; `workload` as read alone
    when no overlay generates one, or when one that does is not read (a patch of it that may change the containers
    is not applied exactly). An overlay's patches and `images:` retags are applied to the object
    (adapters/kustomize_patches.py): the values they set keep the patch's file and position. `make`:
    kubernetes._workload."""
    if loaded.path == "-":
        return [workload]
    from ctxlint.adapters.kustomize_patch_files import kustomization_beside

    # an engine's overlays that patch it are deployments of their own (kustomize_overlay_changes)
    patched = workload is not None and kustomization_beside(loaded.path) is not None
    if "configMap" not in loaded.text and not patched:
        return [workload]
    from ctxlint.adapters.kustomize_names import told_apart
    from ctxlint.adapters.kustomize_overlays import names_read, overlays_of

    missing = [name for name in names_read(obj) if name not in read]
    overlays, skipped = overlays_of(loaded.path, missing, loaded.text, namespace_of(obj), obj, patched) \
        if missing or patched else ([], 0)
    out: List[Workload] = []
    paths: List[str] = []
    generating = False  # an overlay gives it a ConfigMap it reads: the base alone lacks it, and is not read
    for overlay in overlays:
        scratch = AdaptResult()
        made = make(overlay.obj if overlay.obj is not None else obj, spans, scratch, {**read, **overlay.maps})
        if made is None:
            continue
        result.diagnostics.extend(d for d in scratch.diagnostics if d not in result.diagnostics)
        if made.name is not None:
            made.name = Val(f"{overlay.prefix}{made.name.value}{overlay.suffix}", made.name.source)
        out.append(made)
        paths.append(overlay.path)
        generating = generating or bool(overlay.maps)
    alone = skipped or not generating  # the base as read alone, kept beside the overlays that only patch it
    if alone and patched:  # as its own kustomization builds it, where that patches or retags it
        from ctxlint.adapters.kustomize_overlays import own_built

        built = own_built(loaded.path, obj)
        scratch = AdaptResult()
        made = make(built, spans, scratch, read) if built is not None else None
        if made is not None:
            result.diagnostics.extend(d for d in scratch.diagnostics if d not in result.diagnostics)
            made.name = workload.name
            workload = made
    told_apart(out, paths, loaded.path, workload if alone else None)
    return out + [workload] if alone else out
