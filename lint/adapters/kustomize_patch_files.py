"""A workload file that a kustomization lists as a patch, and not as a resource: read through its overlay only.

    guides/pd-disaggregation/modelserver/gpu/vllm/base/kustomization.yaml   resources: [<a base>]
                                                                              patches: [{path: patch-decode.yaml}]
    guides/pd-disaggregation/modelserver/gpu/vllm/base/patch-decode.yaml    kind: Deployment, name: decode,
                                                                              command: [vllm, serve], args: [...]

(zetxqx/llm-d@7edda66, a fork of llm-d/llm-d). kustomize never deploys patch-decode.yaml alone: `kustomize build`
merges it into the base's Deployment `decode` (whose other fields, GPUs and image, are the base's). Read alone it
was a deployment of its own, judged on half a pod. Now the file is read as the overlay builds the workload it
patches (kustomize_overlays._overlay with the chain's patches applied, kustomize_patches.py), so a run given only the
patch file (pre-commit passes the changed file) still checks the overlay's result; where that is not applied
exactly, or the patched workload is not found, an info (CTX011) says so and nothing is judged. What is read is the
build of the kustomization that lists the file (`kustomize build <its directory>`); an outer overlay that includes it
builds another workload, read from that overlay's own patch files where it has some.

Where kustomize finds a patch file: kustomize's default load restrictor (LoadRestrictionsRootOnly,
kubernetes-sigs/kustomize@12f9e6391464b3ad9dd3fe8182049dc1b1772990: api/internal/loader/loadrestrictions.go) refuses a
file outside the kustomization's directory, so a kustomization that reads this file is in its directory or above:
MAX_UP directories are looked at (a `stat` each, and only for a file whose workload runs an engine), none above a
repository's root (a folder holding `.git`) nor, for a file under the current directory, above that directory. One
that lists the file under `resources` (or `bases`, `components`) makes it a resource: read as its own deployment as
before.
"""
from __future__ import annotations

import os
from typing import Any, List, Optional, Tuple

from ctxlint.adapters.crd_common import scalar, seq
from ctxlint.adapters.upward import folders_up
from ctxlint.nodes import MAP

MAX_UP = 4  # the file's directory and three above
FILE_NAMES = ("kustomization.yaml", "kustomization.yml", "Kustomization")  # kustomize_maps.FILE_NAMES, not imported
_PATCH_KEYS = ("patches", "patchesStrategicMerge", "patchesJson6902")
_RESOURCE_KEYS = ("resources", "bases", "components")


def _listed(root: Any, folder: str, key: str) -> List[str]:
    out = []
    for item in seq(root.get(key)):
        text = scalar(item.get("path")) if item.kind == MAP else scalar(item)
        if isinstance(text, str) and text and "\n" not in text and "://" not in text:
            out.append(os.path.normpath(os.path.join(folder, text)))
    return out


def _folder(folder: str) -> Tuple[Optional[str], bool]:
    """The kustomization file of `folder`, and whether the folder holds `.git` (a repository's root), looked up once
    a run (the files of one directory share their folders above: a `stat` costs ~15 us here, four names a folder,
    four folders a file)."""
    from ctxlint.adapters.run_classes import _RUNS

    cache = _RUNS[-1].__dict__.setdefault("kustomizations", {}) if _RUNS else {}
    if folder not in cache:
        cache[folder] = (next((k for k in (os.path.join(folder, n) for n in FILE_NAMES) if os.path.isfile(k)), None),
                         os.path.exists(os.path.join(folder, ".git")))
    return cache[folder]


def _folders(wanted: str) -> List[Tuple[str, Optional[str]]]:
    """(folder, its kustomization or None) from the directory of `wanted` (absolute) up, MAX_UP at most, bounded as
    upward.folders_up bounds it."""
    return [(f, _folder(f)[0]) for f in folders_up(os.path.dirname(wanted), MAX_UP, lambda f: _folder(f)[1])]


def kustomization_beside(path: str) -> Optional[str]:
    """The kustomization of the file's own directory, looked up once a run (as patch_of looks it up)."""
    return _folder(os.path.dirname(os.path.abspath(path)))[0]


def patch_of(path: str) -> Optional[Tuple[str, Any, Any]]:
    """(kustomization path, its root, the patch entry's target or None) of the nearest kustomization that lists the
    file `path` as a patch, when none of them lists it as a resource; else None."""
    wanted = os.path.abspath(path)
    kusts = _folders(wanted)
    if not any(k for _, k in kusts):  # most files: no kustomization above, nothing imported or read
        return None
    from ctxlint.adapters.kustomize_names import named
    from ctxlint.adapters.kustomize_overlays import _Reader

    reader, found = _Reader(), None
    for folder, kust in kusts:
        root = reader.root(kust) if kust else None
        if root is not None:
            if any(wanted in _listed(root, folder, k) for k in _RESOURCE_KEYS):
                return None
            for key in _PATCH_KEYS:
                for item in seq(root.get(key)):
                    text = scalar(item.get("path")) if item.kind == MAP else scalar(item)
                    if found is None and isinstance(text, str) and text and "\n" not in text and \
                            os.path.normpath(os.path.join(folder, text)) == wanted:
                        if scalar(root.get("kind")) == "Component":
                            # a Component builds nothing: its patches apply to the resources of the kustomizations
                            # that include it, found elsewhere (api/types/kustomization.go ComponentKind): read alone
                            return None
                        found = (kust, root, item.get("target") if item.kind == MAP else None)
    # the overlay's files (the base's, the patches', the generators') are named as the run names `path`
    return (named(found[0], path), *found[1:]) if found is not None else None


def _bases(kust: str, root: Any, reader: Any, trail: List[Tuple[str, Any]], depth: int = 0) -> List[Tuple[str, Any]]:
    """(workload file, the kustomizations from the overlay down to the one that lists it) under `kust`'s resources."""
    from ctxlint.adapters.kustomize_overlays import MAX_CHAIN, _kustomization

    trail = trail + [(kust, root)]
    out: List[Tuple[str, Any]] = []
    for target in _listed(root, os.path.dirname(kust), "resources") + _listed(root, os.path.dirname(kust), "bases"):
        if os.path.isfile(target):
            out.append((target, trail))
        elif os.path.isdir(target) and depth < MAX_CHAIN:
            inner = _kustomization(target)
            found = reader.root(inner) if inner else None
            if found is not None:
                out.extend(_bases(inner, found, reader, trail, depth + 1))
    return out


class Patched:
    """One workload a patch file's overlay builds: the base's file and object, and the overlay (its obj patched, or
    its reason for not being read)."""

    def __init__(self, base: Any, obj: Any, overlay: Any, read: Any) -> None:
        self.base, self.obj, self.overlay, self.read = base, obj, overlay, read


def through_overlay(patch_obj: Any, found: Tuple[str, Any, Any]) -> List[Patched]:
    """The workloads the overlay `found` (patch_of's) builds from the base workloads `patch_obj` patches: those of
    the patch's kind whose name is the patch's, or those the entry's target selects."""
    from ctxlint.adapters.crd_common import config_maps, namespace_of, objects
    from ctxlint.adapters.kustomize_overlays import _overlay, _Reader, names_read
    from ctxlint.adapters.kustomize_patches import Applied, NotApplied

    kust, root, target = found
    kind, name = scalar(patch_obj.get("kind")), scalar(patch_obj.dig("metadata", "name"))
    reader, out = _Reader(), []
    for path, trail in _bases(kust, root, reader, []):
        loaded = reader.read(path)
        if loaded is None or loaded.diagnostics:
            continue
        for obj in objects(loaded):
            if target is not None:
                # a target selects by its own fields (kind, name as a regular expression, selectors), the patch's
                # own name aside (kubernetes-sigs/kustomize@12f9e6391464b3ad9dd3fe8182049dc1b1772990:
                # api/internal/builtins/PatchTransformer.go transformStrategicMerge)
                try:
                    named = Applied(obj).selected(target)
                except NotApplied:
                    named = True  # the overlay says why it is not read
            else:
                named = scalar(obj.get("kind")) == kind and scalar(obj.dig("metadata", "name")) == name
            if not named:
                continue
            read = config_maps(loaded, obj)
            missing = [n for n in names_read(obj) if n not in read]
            # the overlay's chain from it down, the base's own kustomization apart (its patches apply first)
            own, chain = (trail[-1], trail[:-1]) if len(trail) > 1 else (None, trail)
            overlay = _overlay(kust, os.path.dirname(own[0]) if own else os.path.dirname(kust), missing, reader,
                               loaded.text, namespace_of(obj), obj, own, chain, need_maps=False)
            if overlay is not None:
                out.append(Patched(loaded, obj, overlay, read))
    return out


def _run_paths() -> Optional[set]:
    from ctxlint.adapters.run_classes import _RUNS

    return {os.path.abspath(p) for p in _RUNS[-1].paths} if _RUNS else None


def _reported_elsewhere(item: Patched, found: Tuple[str, Any, Any], patch_path: str, run: Optional[set],
                        base_engine: Any, make: Any) -> bool:
    """Whether the run reports this overlay's workload from another file: its base's (which offers the overlays that
    generate a ConfigMap it reads, kustomize_overlays.overlays_of), or a patch file of the same kustomization listed
    before this one that patches the same workload and is read through the overlay itself (kubernetes.adapt does so
    only for a patch whose own workload runs an engine: one that only sets GPUs or replicas reports nothing)."""
    if not run:
        return False
    from ctxlint.adapters.crd_common import namespace_of
    from ctxlint.adapters.kustomize_overlays import _Reader, overlays_of

    kust, root, _ = found
    from ctxlint.adapters.kubernetes import offers_overlays

    in_run = os.path.abspath(item.base.path) in run
    engine = in_run and base_engine() is not None  # its overlays that patch it are offered with it
    if in_run and (item.overlay.maps or engine) and offers_overlays(item.base.text, engine):
        missing = [n for n in item.overlay.maps]
        offered, _ = overlays_of(item.base.path, missing, item.base.text, namespace_of(item.obj), item.obj, engine)
        if any(os.path.abspath(o.path) == os.path.abspath(kust) for o in offered):
            return True
    if in_run and engine and offers_overlays(item.base.text, engine) and \
            os.path.dirname(os.path.abspath(kust)) == os.path.dirname(os.path.abspath(item.base.path)):
        return True  # the base's own kustomization: the base is read as it builds it (kustomize_deployments)
    from ctxlint.adapters.base import AdaptResult
    from ctxlint.adapters.crd_common import config_maps, objects
    from ctxlint.adapters.scalar_spans import ScalarSpans

    reader, name, kind = _Reader(), scalar(item.obj.dig("metadata", "name")), scalar(item.obj.get("kind"))
    for key in _PATCH_KEYS:
        for other in map(os.path.abspath, _listed(root, os.path.dirname(kust), key)):
            if other == os.path.abspath(patch_path):
                return False
            loaded = reader.read(other) if other in run else None
            if loaded is None or loaded.diagnostics:
                continue
            # that file is read through the overlay too where it runs an engine, or the workload it patches does,
            # as written or as the overlay builds it (read_through_overlay's `engine`, _runs_engine)
            for doc in objects(loaded):
                if scalar(doc.dig("metadata", "name")) == name and scalar(doc.get("kind")) == kind and (
                        base_engine() is not None or _runs_engine(item, make) or
                        make(doc, ScalarSpans(loaded.path, loaded.text), AdaptResult(), config_maps(loaded, doc))) \
                        and _reads_through(other, kust, item.obj):
                    return True
    return False


def _reads_through(other: str, kust: str, obj: Any) -> bool:
    """Whether the patch file `other` is read through the overlay `kust` as it builds `obj`: that kustomization is the
    one its read goes through (patch_of's), and its entry's target, if any, selects `obj` (a targeted patch bearing
    the workload's name may select another workload, and then reports nothing of this one)."""
    from ctxlint.adapters.kustomize_patches import Applied, NotApplied

    found = patch_of(other)
    if found is None or os.path.abspath(found[0]) != os.path.abspath(kust):
        return False
    if found[2] is None:
        return True
    try:
        return Applied(obj).selected(found[2])
    except NotApplied:
        return True  # the overlay is not read, and the earlier patch says why


def _runs_engine(item: Any, make: Any) -> bool:
    """Whether the workload `item`'s overlay builds runs an engine: the chain's patches applied where they are (an
    engine set by an inner overlay's patch, as kubernetes-sigs/wg-serving's serving catalog layers a model patch over
    a vLLM patch over an engine-less base), the base as written where the overlay is not read."""
    from ctxlint.adapters.base import AdaptResult
    from ctxlint.adapters.scalar_spans import ScalarSpans

    overlay, spans = item.overlay, ScalarSpans(item.base.path, item.base.text)
    if overlay.reason is None and overlay.obj is not None:
        return make(overlay.obj, spans, AdaptResult(), {**item.read, **overlay.maps}) is not None
    return make(item.obj, spans, AdaptResult(), item.read) is not None


def read_through_overlay(loaded: Any, obj: Any, found: Tuple[str, Any, Any], result: Any, make: Any,
                         engine: bool = True) -> List[Any]:
    """The workloads `obj` (a patch in `loaded`) takes part in, as its overlay builds them (`make(obj, spans,
    scratch, maps)`: kubernetes._workload); an info for each it is not read through, and why. `engine` False: the
    patch runs no engine itself (a node selector, GPUs, an image tag): said only of a workload that runs one."""
    from ctxlint.adapters.base import AdaptResult
    from ctxlint.adapters.scalar_spans import ScalarSpans
    from ctxlint.findings import Diagnostic
    from ctxlint.model import Val
    from ctxlint.unsupported import UNSUPPORTED_FILE

    kust = found[0]
    where = os.path.relpath(kust, os.path.dirname(os.path.abspath(loaded.path)))
    kind, name = scalar(obj.get("kind")), scalar(obj.dig("metadata", "name"))
    at = (obj.keys["kind"] if "kind" in obj.keys else obj).source(loaded.path)
    head = (f"this {kind} `{name}` is a kustomize patch: {where} lists the file under `patches`, not `resources`, so "
            "kustomize never deploys it alone and ctxlint reads it only as that overlay builds the workload it patches")
    items = through_overlay(obj, found)
    if not engine:  # a patch of another app's workload says nothing; the engine may come from a patch of the chain
        items = [i for i in items if _runs_engine(i, make)]
    if not items and engine:
        result.diagnostics.append(Diagnostic(UNSUPPORTED_FILE, f"{head}; no {kind} `{name}` was found in that "
                                             "kustomization's resources, so nothing of it was checked", at, name))
    out, run = [], _run_paths()
    for item in items:
        overlay = item.overlay
        if overlay.reason is not None:
            result.diagnostics.append(Diagnostic(UNSUPPORTED_FILE, (
                f"{head}; that overlay is not read, so nothing of it was checked: {overlay.reason}"), at, name))
            continue
        spans = ScalarSpans(item.base.path, item.base.text)
        if _reported_elsewhere(item, found, loaded.path, run,
                               lambda: make(item.obj, spans, AdaptResult(), item.read), make):  # noqa: B023
            continue
        scratch = AdaptResult()
        made = make(overlay.obj if overlay.obj is not None else item.obj, spans, scratch,
                    {**item.read, **overlay.maps})
        if made is None:
            result.diagnostics.append(Diagnostic(UNSUPPORTED_FILE, (
                f"{head}; the workload it builds runs no engine ctxlint recognises, so nothing of it was checked"),
                at, name))
            continue
        result.diagnostics.extend(d for d in scratch.diagnostics if d not in result.diagnostics)
        if made.name is not None:
            made.name = Val(f"{overlay.prefix}{made.name.value}{overlay.suffix}", made.name.source)
        out.append(made)
    return out
