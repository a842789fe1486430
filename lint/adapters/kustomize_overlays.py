"""The kustomize overlays of a workload's base: each its own deployment, with the ConfigMaps it generates.

    online-inference-gpu/vllm/base/kustomization.yaml      resources: [deployment.yaml]
    online-inference-gpu/vllm/base/deployment.yaml         env: [{name: MODEL_ID, valueFrom: {configMapKeyRef:
                                                                 {name: runtime, key: MODEL_ID}}}]
    online-inference-gpu/vllm/h100-qwen3-32b/kustomization.yaml
                                                           resources: [../base]
                                                           configMapGenerator: [{name: runtime, envs: [runtime.env]}]
                                                           nameSuffix: -h100-qwen3-32b

(GoogleCloudPlatform/accelerated-platforms@9320f3b, platforms/gke/base/use-cases/inference-ref-arch/
kubernetes-manifests/online-inference-gpu). `kustomize build h100-qwen3-32b` makes one Deployment
`vllm-h100-qwen3-32b` that reads the ConfigMap `runtime-h100-qwen3-32b-<hash>`: kustomize's nameReference
transformer rewrites a reference that named the ConfigMap by the name it was generated under (its namePrefix,
nameSuffix and hash are the overlay's, applied to the ConfigMap and to the references to it alike;
kubernetes-sigs/kustomize api/filters/nameref). So the base's `name: runtime` is the overlay's generator `runtime`.

An overlay is read here only when that is certain:
- it is a kustomization within three directories below the base's parent (`../base`, `../../base`,
  `../../../base`) whose `resources:` (or `bases:`) reach the workload's own kustomization through at most
  MAX_CHAIN kustomizations of directories, and that kustomization lists the workload's file;
- it generates a name the workload reads, in the workload's namespace (or the overlay's `namespace:` sets both),
  no other kustomization of the chain generates that name (kustomize
  would merge, replace or refuse), and the workload's own directory defines no ConfigMap of it;
- its `patches`, `patchesStrategicMerge`, `patchesJson6902` and `images:` (and the base's own kustomization's, and
  those between) are applied to the workload by kustomize_patches.py, exactly or not at all: what is not applied
  exactly (kustomize_merge.NotApplied: its reason in Overlay.reason) leaves the overlay unread;
- none of its `replacements` may change a container's `args`, `command`, `env`, `envFrom` or `image` (but for a
  replacement of an `image` from a generated ConfigMap, IMAGE_PATH, which kustomize_patches applies), nor the pod's
  `nodeSelector` or `affinity` where the workload places it by them (the device it lands on:
  hardware.type_from_pod_spec), nor its `resources` where the workload asks for GPUs; nor `transformers:` or
  `generators:` of the chain or of its `components:` (kubernetes-sigs/kustomize api/types/kustomization.go: a
  Component's patches, images and generators apply to the including kustomization's resources: applied here in
  kustomize's order, each before the transformers of the kustomization that includes it).
  Those are not applied here, so such an overlay is left as it was (unknown) rather than judged on the base's
  values.
The deployment takes the name kustomize gives it (the prefixes and suffixes of the chain, outermost first).
"""
from __future__ import annotations

import os
import re
from typing import Any, Dict, List, Optional, Tuple

from ctxlint.adapters.crd_common import scalar, seq
from ctxlint.adapters.kustomize_files import _MAX_FILES, _Reader
from ctxlint.adapters.kustomize_maps import FILE_NAMES, GENERATOR, generated
from ctxlint.adapters.kustomize_names import named

MAX_CHAIN = 4  # kustomizations from an overlay down to the workload's
MAX_DIRS = 400  # directories looked at for overlays of one base
MAX_DEPTH = 3  # below the base's parent
_TOUCHES = re.compile(r"(?:^|[\s/.\[\"'{,])(args|command|env|envFrom|image)(?:$|[\s:/.\]\"'},=-])", re.M)
_GPU = re.compile(r"[a-z0-9.-]+/gpu\b")  # a resource name: nvidia.com/gpu, amd.com/gpu
_RESOURCES = re.compile(r"(?:^|[\s/.\"'{,])resources(?:$|[\s:/.\"'},])", re.M)
# a replacement's path to a container's image, as kustomize_patches applies it (kept here: that module is imported
# only for an overlay that patches)
IMAGE_PATH = re.compile(r"^spec\.template\.spec\.(containers|initContainers)\.\[name=([^\]=]+)\]\.image$")
_PLACES = re.compile(r"(?:^|[\s/.\[\"'{,])(nodeSelector|affinity)(?:$|[\s:/.\]\"'},=-])", re.M)


class Overlay:
    """One overlay: its kustomization file, the name kustomize gives the workload, and the ConfigMaps it
    generates that the workload reads (name -> config_map_refs-style data)."""

    def __init__(self, path: str, prefix: str, suffix: str, maps: Dict[str, Any]) -> None:
        self.path, self.prefix, self.suffix, self.maps = path, prefix, suffix, maps
        self.generates = bool(maps)  # it generates a ConfigMap the workload reads (read or not)
        self.patched = False  # a patch or replacement may change its containers and is not applied: not read
        self.reason: Optional[str] = None  # why not
        self.obj: Any = None  # the workload with the chain's patches and images applied (None: none applies)
        self.inner: Optional[str] = None  # the kustomization it includes on the way to the base's, if any


def _kustomization(folder: str) -> Optional[str]:
    for name in FILE_NAMES:
        path = os.path.join(folder, name)
        if os.path.isfile(path):
            return path
    return None


def _resources(root: Any) -> List[str]:
    return [text for key in ("resources", "bases") for text in (scalar(i) for i in seq(root.get(key)))
            if isinstance(text, str) and text]


def overlays_of(workload: str, names: List[str], own_text: str, namespace: Any = None,
                obj: Any = None, patched: bool = False) -> Tuple[List[Overlay], int]:
    """The overlays of the kustomization beside `workload` (a file path) that give it the ConfigMaps `names`, and
    how many more generate one of them but are not read (a patch that may change its containers is not applied
    exactly). `obj`: the workload's Node, to patch; `patched`: also the overlays whose patches and images change it
    (kustomize_overlay_changes), applied exactly."""
    absolute = os.path.dirname(os.path.abspath(workload))
    base = named(absolute, workload)  # the overlays' files are named as the workload's is
    reader = _Reader()
    own = _kustomization(base)
    root = reader.root(own) if own else None
    if root is None or os.path.abspath(workload) not in {os.path.abspath(os.path.join(base, r))
                                                           for r in _resources(root)}:
        return [], 0
    if any(n for n, _, _ in generated(reader.read(own), reader.read) if n in names):
        if not patched:
            return [], 0
        names = []  # the base's own: no overlay gives it
    namespace = scalar(root.get("namespace")) or namespace
    out: List[Overlay] = []
    skipped, patching = 0, []  # patching: those that generate nothing it reads (kustomize_overlay_changes)
    for path in _candidates(os.path.dirname(absolute), absolute):
        found = _overlay(named(path, workload), base, names, reader, own_text, namespace, obj, (own, root),
                         need_maps=not patched)
        if found is not None and found.maps:
            out.append(found)
        elif found is not None and found.patched and found.generates:
            skipped += 1
        elif found is not None and patched:
            patching.append(found)
    if patching:
        from ctxlint.adapters.kustomize_overlay_changes import deployed

        out += deployed(patching, obj, (own, root), reader)
    return out, skipped


def own_built(workload: str, obj: Any) -> Any:
    """The workload as the kustomization beside it builds it, where its patches, `images:` or Components change a
    value the checks may read (`kubectl apply -k base` deploys that, not the file as written); None where they
    change none, the file is not among its resources, or they are not applied exactly."""
    from ctxlint.adapters.kustomize_overlay_changes import changes, own_build

    absolute = os.path.dirname(os.path.abspath(workload))
    base = named(absolute, workload)
    reader = _Reader()
    own = _kustomization(base)
    root = reader.root(own) if own else None
    if root is None or os.path.abspath(workload) not in {os.path.abspath(os.path.join(base, r))
                                                           for r in _resources(root)}:
        return None
    built = own_build(obj, (own, root), reader)
    return built if changes(built, obj) else None


# The walk of a base's parent, kept for the bases beside it: top -> ((folder, mtime), ...), kustomizations. A folder
# whose entries changed since (its mtime) is walked anew.
_WALKS: Dict[str, Tuple[Tuple[Tuple[str, int], ...], List[str]]] = {}


def _mtime(folder: str) -> int:
    try:
        return os.stat(folder).st_mtime_ns
    except OSError:
        return -1


def _candidates(top: str, base: str) -> List[str]:
    kept = _WALKS.get(top)
    if kept is None or any(_mtime(folder) != mtime for folder, mtime in kept[0]):
        if len(_WALKS) >= _MAX_FILES:
            _WALKS.clear()
        kept = _WALKS[top] = _walk(top)
    return [path for path in kept[1] if os.path.dirname(path) != base]


def _walk(top: str) -> Tuple[Tuple[Tuple[str, int], ...], List[str]]:
    out, walked = [], []
    for folder, dirs, _ in os.walk(top):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        depth = os.path.relpath(folder, top).count(os.sep) + (folder != top)
        if depth >= MAX_DEPTH:
            dirs[:] = []
        if len(walked) >= MAX_DIRS:
            break
        walked.append((folder, _mtime(folder)))
        path = _kustomization(folder)
        if path:
            out.append(path)
    return tuple(walked), sorted(out)


def _chain(path: str, base: str, reader: _Reader, depth: int = 0) -> Optional[List[Tuple[str, Any]]]:
    """(path, root) of the kustomizations from `path` down to (not including) the base's, or None when it reaches
    not the base."""
    root = reader.root(path)
    if root is None or depth >= MAX_CHAIN:
        return None
    folder = os.path.dirname(path)
    for item in _resources(root):
        target = os.path.normpath(os.path.join(folder, item))
        if target == base or os.path.abspath(target) == os.path.abspath(base):  # `../base` of `.`, run in base
            return [(path, root)]
        inner = _kustomization(target) if os.path.isdir(target) else None
        rest = _chain(inner, base, reader, depth + 1) if inner else None
        if rest is not None:
            return [(path, root), *rest]
    return None


def _overlay(path: str, base: str, names: List[str], reader: _Reader, own_text: str,
             namespace: Any, obj: Any = None, own: Any = None, chain: Any = None,
             need_maps: bool = True) -> Optional[Overlay]:
    """The overlay `path` of the base directory `base`; `chain` (path, root) from it down, when known already;
    `need_maps` False: read it though it generates nothing the workload reads (one reached from its patch file,
    kustomize_patch_files.py)."""
    chain = chain or _chain(path, base, reader)
    if not chain:
        return None
    loaded = reader.read(path)
    maps: Dict[str, Any] = {}
    outer = [scalar(r.get("namespace")) for _, r in chain]
    if not outer[0]:  # the overlay's `namespace:` puts both in one; else the workload's is the outermost set
        namespace = next((n for n in outer[1:] if n), namespace)
    for name, made_in, data in generated(loaded, reader.read):
        if not outer[0] and made_in and namespace and made_in != namespace:
            continue  # another namespace's ConfigMap: kustomize's reference to it stays unresolved
        if name in names:
            maps[name] = data if name not in maps else None  # twice in one kustomization: kustomize refuses it
    components = [c for p, r in chain + ([own] if own is not None else []) for c in _components(p, r, reader)]
    inner = {n for _, r in chain[1:] + [c for c in components if c[1] is not None]
             for n in (scalar(e.get("name")) for e in seq(r.get(GENERATOR)) if e.kind == "map")}
    maps = {n: d for n, d in maps.items() if d is not None and n not in inner}
    prefix = "".join(str(scalar(r.get("namePrefix")) or "") for _, r in chain)
    suffix = "".join(str(scalar(r.get("nameSuffix")) or "") for _, r in reversed(chain))
    overlay = Overlay(path, prefix, suffix, maps)
    overlay.inner = chain[1][0] if len(chain) > 1 else None
    if not maps and need_maps:
        return overlay
    overlay.reason = next((why for why in (_unapplied(p, r, reader, own_text) for p, r in chain + components)
                           if why), None)
    # each kustomization's Components run after its resources and generators, before its own transformers
    # (kubernetes-sigs/kustomize@12f9e6391464b3ad9dd3fe8182049dc1b1772990: api/internal/target/kusttarget.go
    # accumulateTarget, accumulateComponents), a Component's own Components before it
    levels = [level for p, r in ([own] if own is not None else []) + list(reversed(chain))
              for level in _components(p, r, reader) + [(p, r)] if level[1] is not None]
    if overlay.reason is None and any(r.get(k) is not None for _, r in levels for k in _APPLIED) or any(
            IMAGE_PATH.match(str(scalar(f))) for _, r in levels for i in seq(r.get("replacements"))
            for t in seq(i.get("targets") if i.kind == "map" else None)
            for f in seq(t.get("fieldPaths") if t.kind == "map" else None)):
        if obj is None:
            overlay.reason = "its patches are not applied without the workload"
        else:
            from ctxlint.adapters.kustomize_patches import NotApplied, apply_chain  # only for an overlay that patches

            try:
                overlay.obj = apply_chain(obj, levels, reader)
            except NotApplied as why:
                overlay.reason = str(why)
    if overlay.reason is not None:
        overlay.maps, overlay.patched = {}, True
    return overlay


_APPLIED = ("patches", "patchesStrategicMerge", "patchesJson6902", "images", "imageTags")  # kustomize_patches applies


def _components(path: str, root: Any, reader: _Reader, depth: int = 0) -> List[Tuple[str, Any]]:
    """(path, root) of the Components a kustomization includes, theirs too; root None where one is not read."""
    out: List[Tuple[str, Any]] = []
    for item in seq(root.get("components")):
        text = scalar(item)
        target = os.path.normpath(os.path.join(os.path.dirname(path), text)) if isinstance(text, str) and text else ""
        inner = _kustomization(target) if target and os.path.isdir(target) else None
        found = reader.root(inner) if inner else None
        if found is not None and depth < MAX_CHAIN:
            out.extend(_components(inner, found, reader, depth + 1))
        out.append((inner or path, found))
    return out


def _unapplied(path: str, root: Any, reader: _Reader, own_text: str) -> Optional[str]:
    """Why a kustomization of the chain (or a Component) is not read: a plugin, a Component, or a replacement that
    may change what the containers run or where (see the module text); None when nothing of that."""
    if root is None:
        return f"{path} is not read"
    if root.get("transformers") is not None or root.get("generators") is not None:
        return f"{path} runs transformers or generators: what they change is not read"
    gpus = _GPU.search(own_text) is not None
    placed = _PLACES.search(own_text) is not None  # the device comes from the base's node selector or affinity
    for item in seq(root.get("replacements")):
        if item.kind == "map" and item.get("path") is not None:
            return f"{path} reads replacements from a file"
        for text in (str(scalar(p)) for t in seq(item.get("targets") if item.kind == "map" else None)
                     for p in seq(t.get("fieldPaths") if t.kind == "map" else None)):
            if IMAGE_PATH.match(text):
                continue  # a container's image from a generated ConfigMap: kustomize_patches applies it
            if _TOUCHES.search(text) or (gpus and _RESOURCES.search(text)) or (placed and _PLACES.search(text)):
                return f"a replacement of {path} sets {text}, which is not applied here"
    return None


def names_read(obj: Any) -> List[str]:
    from ctxlint.adapters.config_map_refs import _names_read

    return sorted(_names_read(obj))
