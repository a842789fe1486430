"""An overlay chain's patches and `images:` retags applied to a base's workload, as `kustomize build` applies them.

Each kustomization runs its builtin transformers in this order (kubernetes-sigs/kustomize@
12f9e6391464b3ad9dd3fe8182049dc1b1772990: api/internal/target/kusttarget_configplugin.go): patchesStrategicMerge,
patches, namespace, namePrefix, nameSuffix, labels, annotations, patchesJson6902, replicas, images,
replacements; the innermost kustomization (the base's own) first. Which patch reaches the workload:
- a `patches` or `patchesJson6902` entry with a `target`: the selector's group, version, kind, name and namespace
  are regular expressions anchored at both ends, the name and namespace matched against the workload's original or
  current ones (resmap/reswrangler.go Select, types/selector.go anchorRegex); label and annotation selectors
  against its labels (taken as the base's: a chain with commonLabels, labels or commonAnnotations is not read);
- a strategic-merge patch without one: its own apiVersion, kind, name and namespace equal one of the workload's ids
  (original, or each name it had since; GetById, resid.go Equals: an absent namespace is `default`);
- the merge keeps the workload's name, namespace and kind (resource.ApplySmPatch), but for a `patches` entry
  with `options: {allowNameChange: true}`, whose patch's name becomes the workload's.
`images:` retags every container and init container image the entry's `name` matches (api/internal/image/image.go
IsImageMatched and Split; api/filters/imagetag/updater.go): newName replaces the name, newTag the tag (and drops a
digest), digest the tag; the new image carries the position of the entry's newTag (else digest, else newName).
What is not applied exactly raises kustomize_merge.NotApplied with the reason.
"""
from __future__ import annotations

import os
import re
from typing import Any, Iterator, List, Tuple

from ctxlint.adapters.crd_common import clone, scalar, seq
from ctxlint.adapters.kustomize_merge import NotApplied, copy_tree, json6902, merge
from ctxlint.adapters.kustomize_patch_inputs import (Patch, file_patch, image_matched, inline_patch, labels_match,
                                                     relabel, retag)
from ctxlint.adapters.scalar_spans import ScalarSpans
from ctxlint.nodes import MAP, SEQ, Node, child_path

# The workload types kustomize has a schema for, so merges lists by their keys: the x-kubernetes-group-version-kind
# of kubernetes-sigs/kustomize@12f9e6391464b3ad9dd3fe8182049dc1b1772990 kyaml/openapi/kubernetesapi/data/
# kubernetes-openapi-union-v1.21.2.bundle-v1.json.gz. Another apiVersion (extensions/v1beta1, apps/v1beta2) has none:
# kyaml replaces every list whole (`kubectl kustomize` 5.5.0 drops an extensions/v1beta1 Deployment's other containers)
BUILTIN = {"apps/v1": ("Deployment", "StatefulSet", "DaemonSet", "ReplicaSet"), "batch/v1": ("Job", "CronJob"),
           "batch/v1beta1": ("CronJob",), "v1": ("Pod",)}
_LABELLERS = ("commonLabels", "labels", "commonAnnotations")



def _ids(obj: Node) -> Tuple[str, str, str, str]:
    api = str(scalar(obj.get("apiVersion")) or "")
    group, _, version = api.rpartition("/")
    return group, version, str(scalar(obj.get("kind")) or ""), api


def _ns(value: Any) -> str:
    return value if isinstance(value, str) and value else "default"


class Applied:
    """The workload as the chain's kustomizations transform it, with the names and namespaces it had."""

    def __init__(self, obj: Node) -> None:
        self.obj = copy_tree(obj)
        meta = obj.get("metadata")
        self.names = [str(scalar(meta.get("name")) if meta is not None and meta.kind == MAP else "")]
        space = scalar(meta.get("namespace")) if meta is not None and meta.kind == MAP else None
        self.spaces = [_ns(space)]
        # every (name, namespace) it had, the namespace as written ("" unset): MakeResIds gives a replacement its
        # current id and each previous one (the namespace, prefix and suffix transformers store one each)
        self.history = [(self.names[0], space if isinstance(space, str) else "")]
        self.group, self.version, self.kind, self.api = _ids(obj)
        self.labelled = False  # a labels transformer ran: label and annotation selectors are not evaluated
        self.made: dict = {}  # the ConfigMaps the chain generated so far: name -> kustomize_maps.GeneratedMap
        self.renamed = ""  # the name a patch with allowNameChange gave it, if any

    def selected(self, target: Node) -> bool:
        if target.kind != MAP:
            raise NotApplied("a patch target is not a mapping")
        fields = {k: scalar(target.get(k)) for k in ("group", "version", "kind", "name", "namespace")}
        # Select matches the original name and namespace or the current ones, not those between (reswrangler.go)
        for key, have in (("group", [self.group]), ("version", [self.version]), ("kind", [self.kind]),
                          ("name", [self.names[0], self.names[-1]]), ("namespace", [self.spaces[0], self.spaces[-1]])):
            want = fields[key]
            if want in (None, ""):
                continue
            try:
                pattern = re.compile(f"(?:{want})")
            except (re.error, TypeError):
                raise NotApplied(f"the target {key} `{want}` is not a regular expression read here")
            if not any(pattern.fullmatch(h) for h in have):
                return False
        return labels_match(target, self)

    def by_id(self, doc: Node) -> bool:
        group, version, kind, _ = _ids(doc)
        name = scalar(doc.dig("metadata", "name"))
        # GetById: the patch's id equals the current id or a previous one (a name between a prefix and a suffix
        # of one kustomization too), name and effective namespace of the same id (resid.go Equals)
        if (group, version, kind) != (self.group, self.version, self.kind) or \
                name not in {n for n, _ in self.history}:
            return False
        space = _ns(scalar(doc.dig("metadata", "namespace")))
        if (name, space) not in {(n, _ns(ns)) for n, ns in self.history}:
            raise NotApplied(f"a patch names {kind} {name} in namespace {space}, "
                             f"the workload is in {self.spaces[-1]}: kustomize finds no resource for it")
        return True

    def smp(self, patch: Patch, doc: Node, rename: bool = False) -> None:
        if doc.kind != MAP:
            raise NotApplied(f"a strategic-merge patch in {patch.label} is not a mapping")
        body = {k: v for k, v in doc.value.items() if k not in ("apiVersion", "kind")}
        meta = doc.get("metadata")
        if meta is not None and meta.kind == MAP:  # the workload's name, namespace and kind stay
            rest = {k: v for k, v in meta.value.items() if k not in ("name", "namespace")}
            body["metadata"] = clone(meta, value=rest, keys={k: v for k, v in meta.keys.items() if k in rest})
        merged = merge(self.obj, clone(doc, value=body, keys={k: v for k, v in doc.keys.items() if k in body}),
                       "", "", patch.place)
        if merged is None or merged.kind != MAP:
            raise NotApplied(f"{patch.label} deletes the workload")
        self.obj = merged
        name = meta.get("name") if rename and meta is not None and meta.kind == MAP else None
        if name is not None and scalar(name) != self.names[-1]:
            self._rename(patch, name)

    def _rename(self, patch: Patch, name: Node) -> None:
        """allowNameChange: the workload takes the patch's name (resource.ApplySmPatch keeps it, storing the old id).
        The deployment's name is the chain's prefixes and suffixes around the workload's name, so a rename after
        one of them was applied is not read."""
        if len(self.names) > 1 and self.names[-1] != self.renamed:
            raise NotApplied(f"{patch.label} renames the workload after a namePrefix or nameSuffix: not read here")
        text = scalar(name)
        if not isinstance(text, str) or not text:
            raise NotApplied(f"{patch.label} renames the workload to no name")
        meta = self.obj.get("metadata")
        self.obj.value["metadata"] = clone(meta, value={**meta.value, "name": name},
                                           keys={**meta.keys, "name": meta.keys.get("name") or name})
        self.names.append(text)
        self.renamed = text
        self.history.append((text, self.history[-1][1]))

    def level(self, path: str, root: Node, reader: Any) -> None:
        """Apply one kustomization's transformers that may change the workload, in kustomize's order."""
        folder = os.path.dirname(path)
        kust = ScalarSpans(path, _text(reader, path))
        label = os.path.basename(path)
        if root.get("openapi") is not None:  # its own schema decides which lists merge by which key (kyaml/openapi)
            raise NotApplied(f"{label} gives kustomize its own OpenAPI schema: which lists merge is not known here")
        for key in ("patches", "patchesStrategicMerge", "patchesJson6902", "images", "imageTags", "replacements"):
            if root.get(key) is not None and root.get(key).kind != SEQ:
                raise NotApplied(f"`{key}` of {label} is not a list: kustomize refuses it")
        for n, item in enumerate(seq(root.get("patchesStrategicMerge"))):
            text = scalar(item)
            patch = inline_patch(item, kust, f"{label}:patchesStrategicMerge[{n}]") \
                if isinstance(text, str) and "\n" in text else file_patch(folder, text, reader)
            self._untargeted(patch)
        for n, item in enumerate(seq(root.get("patches"))):
            self._entry(item, n, "patches", folder, kust, label, reader)
        space = scalar(root.get("namespace"))
        if isinstance(space, str) and space:
            self.spaces.append(space)
            self.history.append((self.history[-1][0], space))
        prefix, suffix = scalar(root.get("namePrefix")) or "", scalar(root.get("nameSuffix")) or ""
        if prefix or suffix:
            self.names.append(f"{prefix}{self.names[-1]}{suffix}")
        for name in ([f"{prefix}{self.history[-1][0]}"] if prefix else []) + ([self.names[-1]] if suffix else []):
            self.history.append((name, self.history[-1][1]))
        self.labelled = self.labelled or any(root.get(k) is not None for k in _LABELLERS)
        for n, item in enumerate(seq(root.get("patchesJson6902"))):
            self._entry(item, n, "patchesJson6902", folder, kust, label, reader)
        # `imageTags` is the old name of `images`: FixKustomization appends its entries to them (api/types/
        # kustomization.go)
        for key in ("images", "imageTags"):
            for n, item in enumerate(seq(root.get(key))):
                self._image(item, n, kust, label, key)
        self.made.update(_generated(path, reader))
        if root.get("replacements") is not None:
            from ctxlint.adapters.kustomize_replacements import replace_image

            for n, item in enumerate(seq(root.get("replacements"))):
                replace_image(self, item, n, kust, label)

    def _untargeted(self, patch: Patch) -> None:
        for doc in patch.docs:
            if doc.kind == SEQ:
                raise NotApplied(f"a JSON patch in {patch.label} has no target")
            _resource(patch, doc)
            if self.by_id(doc):
                self.smp(patch, doc)

    def _entry(self, item: Node, n: int, key: str, folder: str, kust: ScalarSpans, label: str, reader: Any) -> None:
        if item.kind != MAP:
            raise NotApplied(f"{key}[{n}] is not a mapping")
        rename = _renames(item.get("options"), f"{key}[{n}]")
        inline, file = item.get("patch"), scalar(item.get("path"))
        if (inline is None) == (file is None) or inline is not None and not isinstance(scalar(inline), str):
            raise NotApplied(f"{key}[{n}] has not exactly one of `patch` (a string) and `path`")
        patch = inline_patch(inline, kust, f"{label}:{key}[{n}].patch") if inline is not None \
            else file_patch(folder, file, reader)
        target = item.get("target")
        if target is None:
            if key == "patchesJson6902":
                raise NotApplied(f"{key}[{n}] has no target")
            return self._untargeted(patch)  # found by its own name: a rename would keep it
        if not self.selected(target):
            return
        if len(patch.docs) == 1 and patch.docs[0].kind == SEQ:
            self.obj = json6902(self.obj, patch.docs[0], "", patch.place)
        elif len(patch.docs) == 1 and key == "patches":
            self.smp(patch, _resource(patch, patch.docs[0]), rename)
        else:
            raise NotApplied(f"{key}[{n}] is neither one strategic-merge patch nor a JSON patch")

    def _image(self, item: Node, n: int, kust: ScalarSpans, label: str, key: str = "images") -> None:
        fields = {k: item.get(k) if item.kind == MAP else None for k in ("name", "newName", "newTag", "digest",
                                                                         "tagSuffix")}
        values = {k: scalar(v) for k, v in fields.items()}
        if not isinstance(values["name"], str) or not values["name"] or \
                any(v is not None and not isinstance(scalar(v), str) for v in fields.values()):
            raise NotApplied(f"{key}[{n}] is not a name with string newName, newTag, digest or tagSuffix")
        at = fields["newTag"] or fields["digest"] or fields["newName"] or fields["tagSuffix"]
        for container, path in self._containers():
            image = container.get("image")
            text = scalar(image)
            if not isinstance(text, str) or not image_matched(text, values["name"]):
                continue
            new = retag(text, values)
            if at is None:
                continue
            placed = relabel(clone(at, value=new), kust, f"{label}:{child_path(path, 'image')}")
            container.value["image"] = placed

    def _pod_path(self) -> str:
        from ctxlint.adapters.kubernetes import POD_SPEC_PATHS

        return ".".join(("spec",) + tuple(POD_SPEC_PATHS.get(self.kind) or ()))

    def _containers(self) -> Iterator[Tuple[Node, str]]:
        from ctxlint.adapters.kubernetes import POD_SPEC_PATHS

        parts = POD_SPEC_PATHS.get(self.kind)
        pod = self.obj.dig("spec", *parts) if parts is not None else None
        base = self._pod_path()
        for key in ("initContainers", "containers"):
            for n, container in enumerate(seq(pod.get(key) if pod is not None and pod.kind == MAP else None)):
                if container.kind == MAP:
                    yield container, f"{base}.{key}[{n}]"


def _renames(options: Any, label: str) -> bool:
    """Whether a `patches` entry's options let its strategic-merge patch rename the workload. kustomize applies
    `allowNameChange` and `allowKindChange` to strategic-merge patches only (api/internal/builtins/
    PatchTransformer.go Config); a kind change is not read here."""
    if options is None:
        return False
    values = {k: scalar(v) for k, v in options.value.items()} if options.kind == MAP else None
    if values is None or any(v not in (None, True, False) for v in values.values()):
        raise NotApplied(f"the options of {label} are not booleans")
    if values.get("allowKindChange"):
        raise NotApplied(f"{label} allows a kind change")
    return values.get("allowNameChange") is True


def _resource(patch: Patch, doc: Node) -> Node:
    """A strategic-merge patch is read as a resource, with or without a target: kustomize refuses one without a kind
    or a metadata.name (api/resource/factory.go dropBadNodes, kyaml/yaml/rnode.go GetValidatedMetadata: "missing
    kind", "missing metadata.name"), and inlines a FooList's items (not read here)."""
    kind = scalar(doc.get("kind")) if doc.kind == MAP else None
    name = scalar(doc.dig("metadata", "name")) if doc.kind == MAP else None
    if not isinstance(kind, str) or not kind or kind.endswith("List") or name is None or name == "":
        raise NotApplied(f"a strategic-merge patch in {patch.label} has no kind or no metadata.name: "
                         "kustomize refuses it")
    return doc


def _generated(path: str, reader: Any) -> dict:
    from ctxlint.adapters.kustomize_maps import generated

    loaded = reader.read(path)
    made = generated(loaded, reader.read) if loaded is not None else []
    return {name: data for name, _, data in made}


def _text(reader: Any, path: str) -> str:
    found = reader.read(path)
    return found.text if found is not None else ""


def apply_chain(obj: Node, levels: List[Tuple[str, Node]], reader: Any) -> Node:
    """The workload `obj` after the kustomizations `levels` (innermost first); NotApplied when not exactly."""
    kind, api = scalar(obj.get("kind")), scalar(obj.get("apiVersion"))
    if not isinstance(api, str) or kind not in BUILTIN.get(api, ()):
        raise NotApplied(f"a {kind} of apiVersion {api} has no schema in kustomize: its lists' merge is not known")
    applied = Applied(obj)
    for path, root in levels:
        applied.level(path, root, reader)
    return applied.obj
