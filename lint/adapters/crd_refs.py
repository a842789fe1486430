"""The objects an InferenceService names, looked up in every file of its directory group.

A KServe InferenceService names its ServingRuntime (`predictor.model.runtime`), an OME one its
runtime (`runtime.name`) and base model (`model.name`), and the usual layout keeps each in a file
of its own (redhat-ai-americas/kserve-workshop: configs/samples/model-deploy/inferenceservice.yaml
beside vllm-servingruntime.yaml; sgl-project/ome: config/samples, config/runtimes, config/models).
engine._lint_group builds one `Refs` for the files it checks together (an adapter called on one
file alone builds its own), and the adapters look the names up here:

- the object in the service's own file is the one (what the in-file merge always did); else exactly
  one other file of the group must hold it. When several do (overlays, variants for other clusters),
  which one the cluster holds depends on which is applied: nothing is guessed, the service is read
  without it and CTX008 names the files (`Lookup.files`);
- an object of another file is adopted (nodes.adopt): merged into the service, each of its values
  keeps its own file and position;
- an object a service found is `used`: not a deployment of its own, as in one file (KServe runs a
  runtime as part of the predictor of each service that names it, never by itself);
- a cluster-scoped object (ClusterServingRuntime, ClusterBaseModel) that no file of the group holds is
  looked for in every file of the run (cluster_refs.py; run_classes.RunClasses.cluster_objects): the controller finds it
  in the cluster wherever it was applied from, and repositories keep them in directories of their own
  (sgl-project/ome@17b77ed: config/samples/isvc/<org>/, config/runtimes/srt/<org>/, config/models/<org>/).
  The same rule holds: exactly one file of the run must hold it, else CTX008 names the files. Such a
  runtime is not `used` in its own directory's run, where it is still read as a deployment of its own.

A NIMService (k8s-nim-operator) names its NIMCache the same way (`storage.nimCache.name`); crds_nim reads
the model of a cache found so, and says nothing of one not found (nim_cache).
"""
from __future__ import annotations

import os
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from ..records import record
from ctxlint.adapters.crd_common import is_kind, namespace_of, objects, scalar, seq, visible
from ctxlint.adapters.scalar_spans import ScalarSpans, adopted
from ctxlint.findings import Diagnostic
from ctxlint.loader import LoadedFile
from ctxlint.nodes import MAP, Node

# A file that holds none of these strings holds no object looked up here, nor one that looks up:
# a run over files of other kinds does no more than these substring searches.
MARKERS = ("InferenceService", "ServingRuntime", "BaseModel", "nimCache", "NIMCache")
# The runtime container KServe merges the model over (kserve/kserve@aaac4e294dae2c7b1aa1886447793f3aa1c30912:
# pkg/constants/constants.go InferenceServiceContainerName)
RUNTIME_CONTAINER = "kserve-container"
UNRESOLVED = "unresolved-value"  # CTX008's: workload.UNRESOLVED, not imported (the engine imports this module)


@record(frozen=True)
class Ref:
    """What a user object names: the path to the name in it, and where the named object is looked
    for, tier by tier (kinds, namespaced: only objects its namespace can see)."""

    group: str  # the API group of the user and of the objects it names
    user: str  # the user's kind
    path: Tuple[str, ...]
    tiers: Tuple[Tuple[Tuple[str, ...], bool], ...]
    accept: Optional[Callable[[Node], bool]] = None  # a found object the user runs (else: not merged)


def runtime_container(runtime: Node) -> Optional[Node]:
    """A KServe runtime's kserve-container, which a service's model is merged over."""
    spec = runtime.get("spec")
    return next((c for c in seq(spec.get("containers") if spec is not None and spec.kind == MAP else None)
                 if c.kind == MAP and scalar(c.get("name")) == RUNTIME_CONTAINER), None)


# kserve/kserve@aaac4e294dae2c7b1aa1886447793f3aa1c30912:pkg/controller/v1beta1/inferenceservice/utils/
# utils.go GetServingRuntime: a ServingRuntime of the service's namespace, else a ClusterServingRuntime;
# MergeRuntimeContainers merges the model over the runtime's kserve-container. A runtime picked by
# `modelFormat` (no `runtime:`) is not looked up, in one file or several.
KSERVE_RUNTIME = Ref("serving.kserve.io", "InferenceService", ("spec", "predictor", "model", "runtime"),
                     ((("ServingRuntime",), True), (("ClusterServingRuntime",), False)),
                     lambda runtime: runtime_container(runtime) is not None)
# OME (crds_ome): runtimes and base models by name, whatever their kind and namespace, as in one file.
OME_RUNTIME = Ref("ome.io", "InferenceService", ("spec", "runtime", "name"),
                  ((("ServingRuntime", "ClusterServingRuntime"), False),))
OME_MODEL = Ref("ome.io", "InferenceService", ("spec", "model", "name"), ((("BaseModel", "ClusterBaseModel"), False),))
# k8s-nim-operator (crds_nim, nim_cache): a NIMService's cache, a NIMCache of its namespace
# (NVIDIA/k8s-nim-operator@f63f74d7ad22eaea7943cc640e545f4ccdbb8077: api/apps/v1alpha1/nimservice_types.go
# NIMCacheVolSpec). Not `used` in any sense that matters: a NIMCache is never a deployment.
NIM_CACHE = Ref("apps.nvidia.com", "NIMService", ("spec", "storage", "nimCache", "name"), ((("NIMCache",), True),))
REFS = (KSERVE_RUNTIME, OME_RUNTIME, OME_MODEL, NIM_CACHE)


@record(frozen=True)
class Lookup:
    """What a user's name refers to: `found` (a ForeignNode tree when it is in another file), or
    `files`, the files that each hold an object of that name (ambiguous), or neither (in no file)."""

    name: Optional[Node] = None  # the name as the user writes it (None: it names nothing)
    found: Optional[Node] = None
    files: Tuple[str, ...] = ()

    @property
    def missing(self) -> bool:
        return self.name is not None and self.found is None and not self.files


NO_LOOKUP = Lookup()


@record
class _Entry:
    index: int  # the file's, in the group
    obj: Node
    kind: str
    name: str
    namespace: Any


class Refs:
    """The objects of a directory group that users name, and what each user's names refer to."""

    def __init__(self, files: Sequence[LoadedFile]) -> None:
        self.files = list(files)
        self._index = {id(loaded): i for i, loaded in enumerate(self.files)}
        self._spans: Dict[int, ScalarSpans] = {}
        self._adopted: Dict[int, Node] = {}  # id(object in its file) -> its ForeignNode tree
        self._entries: List[_Entry] = []
        users: List[Tuple[int, Node, Ref]] = []
        for i, loaded in enumerate(self.files):
            if loaded.shell or not any(m in loaded.text for m in MARKERS):
                continue
            for obj in objects(loaded):
                kind, name = scalar(obj.get("kind")), scalar(obj.dig("metadata", "name"))
                users.extend((i, obj, ref) for ref in REFS if is_kind(obj, (ref.user,), ref.group))
                if isinstance(kind, str) and isinstance(name, str) and \
                        any(is_kind(obj, kinds, ref.group) for ref in REFS for kinds, _ in ref.tiers):
                    self._entries.append(_Entry(i, obj, kind, name, namespace_of(obj)))
        self._involved = {id(self.files[i]) for i in {e.index for e in self._entries} | {i for i, _, _ in users}}
        self._lookups: Dict[Tuple[int, str, Tuple[str, ...]], Lookup] = {}
        self._used: set = set()
        self._missing: set = set()  # indices of files with a user whose name no file holds
        for i, user, ref in users:
            found, original = self._resolve(i, user, ref)
            self._lookups[(id(user), ref.group, ref.path)] = found
            if original is not None and (ref.accept is None or ref.accept(original)):
                self._used.add(id(original))
            if found.missing:
                self._missing.add(i)

    @classmethod
    def of(cls, files: Sequence[LoadedFile]) -> Optional["Refs"]:
        """The group's Refs, or None when no file can hold an object looked up here."""
        return cls(files) if any(not f.shell and any(m in f.text for m in MARKERS) for f in files) else None

    def holds(self, loaded: LoadedFile) -> bool:
        return id(loaded) in self._index

    def involves(self, loaded: LoadedFile) -> bool:
        """Whether the file holds an object looked up here, or one that looks up."""
        return id(loaded) in self._involved

    def lookup(self, user: Node, ref: Ref) -> Lookup:
        """What `user` names under `ref` (NO_LOOKUP when it names nothing)."""
        return self._lookups.get((id(user), ref.group, ref.path), NO_LOOKUP)

    def used(self, obj: Node) -> bool:
        """Whether a user of the group, or of another directory of the run (_run_uses), runs `obj` (then it is no
        deployment of its own)."""
        return id(obj) in self._used or self._run_uses(obj)

    def _run_uses(self, obj: Node) -> bool:
        """Whether a service of another directory of the run runs this cluster-scoped object (cluster_refs)."""
        from ctxlint.adapters.cluster_refs import run_uses

        entry = next((e for e in self._entries if e.obj is obj), None)
        return entry is not None and run_uses(obj, self.files[entry.index].path)

    def used_elsewhere(self) -> List[str]:
        """The group's files holding a cluster-scoped object a service of another directory of the run runs
        (_run_uses): its findings and their suppressions are that service's group's, not this one's."""
        return sorted({self.files[e.index].path for e in self._entries if self._run_uses(e.obj)})

    def loose(self, loaded: LoadedFile) -> bool:
        """Whether the file names an object no file of the group holds, or holds one no user of the group
        names: its directory's other files may hold the other side (siblings.context_files)."""
        i = self._index.get(id(loaded))
        return i is not None and (i in self._missing or any(e.index == i and not self.used(e.obj)
                                                            for e in self._entries))

    def _resolve(self, i: int, user: Node, ref: Ref) -> Tuple[Lookup, Optional[Node]]:
        """(the lookup, the found object as its file holds it)."""
        node = user.dig(*ref.path)
        name = scalar(node)
        if not isinstance(name, str) or not name:
            return NO_LOOKUP, None
        for kinds, namespaced in ref.tiers:
            named = [e for e in self._entries if e.name == name and is_kind(e.obj, kinds, ref.group)]
            own = _own(user, [e for e in named if e.index == i], namespaced)
            if own is not None:
                return Lookup(node, own), own
            last = {e.index: e for e in _visible([e for e in named if e.index != i], user, namespaced)}
            if len(last) == 1:  # (in one file, a later object of a name replaces the earlier: kubectl apply)
                entry = next(iter(last.values()))
                return Lookup(node, self._adopt(entry)), entry.obj
            if last:
                return Lookup(node, None, tuple(self.files[index].path for index in sorted(last))), None
        from ctxlint.adapters.cluster_refs import in_run  # looked for in the run's other files

        return in_run(node, name, ref, self.files, self._adopted) or (Lookup(node), None)

    def _adopt(self, entry: _Entry) -> Node:
        return adopted(self.files, entry.index, entry.obj, self._adopted, self._spans)


def _own(user: Node, named: List[_Entry], namespaced: bool) -> Optional[Node]:
    """The object of the user's own file, as the in-file merge always picked it: for a namespaced kind
    the one its namespace sees (crd_common.visible), else the last of that name."""
    if not namespaced:
        return named[-1].obj if named else None
    by_namespace: Dict[Any, Dict[str, Node]] = {}
    for e in named:
        by_namespace.setdefault(e.namespace, {})[e.name] = e.obj
    return next(iter(visible(by_namespace, user).values()), None)


def _visible(entries: List[_Entry], user: Node, namespaced: bool) -> List[_Entry]:
    """The objects of other files `user` can name: any, or for a namespaced kind those of its namespace
    as written, else those whose namespace is unset on one side (`kubectl apply -n X` puts both in X)."""
    if not namespaced:
        return entries
    own = namespace_of(user)
    exact = [e for e in entries if own is not None and e.namespace == own]
    return exact or [e for e in entries if own is None or e.namespace is None]


def refs_for(loaded: LoadedFile, refs: Optional[Refs]) -> Refs:
    """The group's Refs when it holds the file, else the file's own (an adapter called on one file)."""
    return refs if refs is not None and refs.holds(loaded) else Refs([loaded])


def unfound(lookup: Lookup, what: str, user: Node, file: str) -> Optional[Diagnostic]:
    """CTX008 at the name a user writes when it refers to nothing ctxlint holds, or to one of several
    objects in different files; None when it names nothing or what it names was found."""
    if lookup.name is None or lookup.found is not None:
        return None
    name = scalar(lookup.name)
    owner = scalar(user.dig("metadata", "name"))
    who = f"{scalar(user.get('kind'))} {owner}" if isinstance(owner, str) else str(scalar(user.get("kind")))
    if lookup.files:
        here = os.path.dirname(file)
        beside = all(os.path.dirname(path) == here for path in lookup.files)
        # a cluster-scoped object found in several directories of the run (cluster_refs.in_run): paths from the
        # service's directory
        files = ", ".join(os.path.basename(path) if beside else os.path.relpath(path, here or ".")
                          for path in lookup.files)
        where = "files of its directory" if beside else "files checked with it"
        text = (f"the {what} '{name}' that {who} names is defined in {len(lookup.files)} {where} "
                f"({files}): which one it runs depends on which is applied, so ctxlint picks none and reads the "
                "service without it; keep one definition beside the service")
    else:
        text = (f"the {what} '{name}' that {who} names is in no file checked with it (its own or another file of "
                f"its directory, or any file checked for a cluster-scoped {what}), so what it runs is not known and "
                f"it is not checked; keep the {what}'s manifest beside the service")
    return Diagnostic(UNRESOLVED, text, lookup.name.source(file), owner if isinstance(owner, str) else None)
