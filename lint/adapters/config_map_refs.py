"""The ConfigMaps a workload reads that sit in another file of its directory (`kubectl apply -f dir/`).

A Deployment that takes its engine settings from `env[].valueFrom.configMapKeyRef` or
`envFrom[].configMapRef` often has the ConfigMap in a file of its own beside it
(kcns008/llm-on-k8s openshift-kimi-k2-0905-vllm/manifests: 03-configmap.yaml beside
05-deployment.yaml). engine._lint_group builds one `Maps` for the files it checks together, the way
crd_refs.Refs joins a KServe service to its runtime, and the Kubernetes adapters look names up here:

- a ConfigMap of the workload's own file is the one it reads (crd_common.config_maps, as before);
  else one of another file of the group whose namespace the workload sees: the same one written on
  both, or one left unset on either side (`kubectl apply -n X` puts it in X);
- a name that several files define with different data (overlays, one file per environment) is not
  guessed: its keys are read as unknown and CTX008 names the files (`Unsettled`); files that define
  it alike agree, and the first of them (in name order) is read;
- what is read keeps its own file and position (nodes.adopt), so a finding on a value points into the
  ConfigMap's file.
"""
from __future__ import annotations

import os
from typing import Any, Dict, List, Optional, Set, Tuple

from ..records import record
from ctxlint.adapters.crd_common import config_maps, namespace_of, objects, scalar
from ctxlint.adapters.scalar_spans import ScalarSpans, adopted
from ctxlint.loader import LoadedFile
from ctxlint.nodes import MAP, Node

# A file that holds none of these reads no ConfigMap (joins.MAP_MARKERS is the same): its variables
# (`configMapKeyRef`, `configMapRef`) or a volume of it (`configMap`, where an engine config file may be mounted).
MARKERS = ("configMapKeyRef", "configMapRef", "configMap")
HOLDER = "ConfigMap"  # in the text of every file that defines one
GENERATOR = "configMapGenerator"  # in a kustomization that generates one (kustomize_maps.py)


class Unsettled:
    """A ConfigMap name that several files of the group define with different data: which one the
    cluster holds depends on which was applied. It reads as a ConfigMap whose every key is unknown
    (`kind` is no MAP, so readers that want data find none)."""

    kind = "unsettled"
    value: Dict[str, Node] = {}

    def __init__(self, name: str, files: Tuple[str, ...], keys: Tuple[str, ...]) -> None:
        self.name, self.files, self.keys = name, files, keys

    def get(self, key: Any) -> None:
        return None

    def why(self) -> str:
        """Why a variable it gives is unknown, for CTX008."""
        names = ", ".join(os.path.basename(path) for path in self.files)
        return (f"comes from the ConfigMap '{self.name}', which {len(self.files)} files of its directory define "
                f"with different data ({names}): which one the pod reads depends on which is applied")


@record
class _Entry:
    index: int  # the file's, in the group
    name: str
    namespace: Any
    data: Node
    generated: bool = False  # by a kustomization's configMapGenerator: its values are in their own files already


class Maps:
    """The ConfigMaps of a directory group, and the names its workloads read from them."""

    def __init__(self, files: List[LoadedFile]) -> None:
        self.files = files
        self._index = {id(loaded): i for i, loaded in enumerate(files)}
        self._entries: List[_Entry] = []
        self._users: List[Tuple[int, Set[str]]] = []  # (file index, names its objects read)
        self._user_objects: List[Tuple[int, Node]] = []  # (file index, an object that reads one)
        self._read: Dict[int, Set[str]] = {}  # id(object) -> names it reads
        self._spans: Dict[int, ScalarSpans] = {}
        self._adopted: Dict[int, Node] = {}
        for i, loaded in enumerate(files):
            holds, reads = HOLDER in loaded.text, any(m in loaded.text for m in MARKERS)
            if loaded.shell or not (holds or reads):
                continue
            if GENERATOR in loaded.text:
                from ctxlint.adapters.kustomize_maps import generated, is_kustomization

                if is_kustomization(loaded):
                    self._entries.extend(_Entry(i, name, namespace, data, True)
                                         for name, namespace, data in generated(loaded, self._input))
                    continue
            for obj in objects(loaded):
                if holds and scalar(obj.get("kind")) == HOLDER and scalar(obj.get("apiVersion")) == "v1":
                    name, data = scalar(obj.dig("metadata", "name")), obj.get("data")
                    if isinstance(name, str) and data is not None and data.kind == MAP:
                        self._entries.append(_Entry(i, name, namespace_of(obj), data))
                elif reads:
                    names = _names_read(obj)
                    if names:
                        self._read[id(obj)] = names
                        self._users.append((i, names))
                        self._user_objects.append((i, obj))

    def _input(self, path: str) -> Optional[LoadedFile]:
        """A configMapGenerator's input file: the group's, else read from disk (a `.jinja` or a file of another
        directory is no file of the group), or None when there is none."""
        wanted = os.path.abspath(path)
        found = next((f for f in self.files if os.path.abspath(f.path) == wanted), None)
        if found is None and os.path.isfile(wanted):
            from ctxlint.file_reader import read_path

            found = read_path(path)
        return found

    def holds(self, loaded: LoadedFile) -> bool:
        return id(loaded) in self._index

    def involves(self, loaded: LoadedFile) -> bool:
        """Whether the file defines a ConfigMap or reads one."""
        i = self._index.get(id(loaded))
        return i is not None and (any(e.index == i for e in self._entries) or any(u == i for u, _ in self._users))

    def loose(self, loaded: LoadedFile) -> bool:
        """Whether the file reads a ConfigMap no file of the group defines, or defines one no workload of the
        group reads: its directory's other files may hold the other side (siblings.context_files)."""
        return any(self.loose_sides(loaded))

    def loose_sides(self, loaded: LoadedFile) -> Tuple[bool, bool]:
        """(reads a ConfigMap no file of the group defines, defines one no workload of the group reads)."""
        i = self._index.get(id(loaded))
        if i is None:
            return False, False
        defined = {e.name for e in self._entries}
        read = {name for _, names in self._users for name in names}
        return (any(u == i and names - defined for u, names in self._users),
                any(e.index == i and e.name not in read for e in self._entries))

    def mounters(self, loaded: LoadedFile, name: str) -> List[Tuple[str, Node]]:
        """(file, object) of the other files of the group whose objects read the ConfigMap `name` (a variable or
        a volume of it), for a ConfigMap of `loaded` joined to the pod that mounts it (llama_swap_pods.py). A file
        that defines a ConfigMap of that name itself is left out: its pods read that one (crd_common.config_maps)."""
        i = self._index.get(id(loaded))
        own = {e.index for e in self._entries if e.name == name and not e.generated}
        return [(self.files[u].path, obj) for u, obj in self._user_objects
                if u != i and u not in own and name in self._read.get(id(obj), ())]

    def maps_for(self, loaded: LoadedFile, user: Node) -> Dict[str, Any]:
        """ConfigMap name -> its `data` (or Unsettled) for the pods of `user`, an object of `loaded`: those
        of its own file (crd_common.config_maps), then those it reads from the group's other files."""
        own = config_maps(loaded, user)
        i = self._index.get(id(loaded))
        wanted = [name for name in sorted(self._read.get(id(user), ())) if name not in own]
        if i is None or not wanted:
            return own
        out: Dict[str, Any] = dict(own)
        for name in wanted:
            found = self._lookup(i, user, name)
            if found is not None:
                out[name] = found
        return out

    def _lookup(self, i: int, user: Node, name: str) -> Any:
        last: Dict[int, _Entry] = {}  # by file: a later object of a name replaces an earlier one (kubectl apply)
        for entry in _visible([e for e in self._entries if e.name == name and e.index != i], user):
            last[entry.index] = entry
        if not last:
            return None
        found = [last[index] for index in sorted(last)]
        data = [entry.data.plain() for entry in found]
        if any(d != data[0] for d in data[1:]):
            keys = tuple(dict.fromkeys(str(k) for entry in found for k in entry.data.value))
            return Unsettled(name, tuple(self.files[e.index].path for e in found), keys)
        return self._adopt(found[0])

    def _adopt(self, entry: _Entry) -> Node:
        if entry.generated:
            return entry.data
        return adopted(self.files, entry.index, entry.data, self._adopted, self._spans)


def _visible(entries: List[_Entry], user: Node) -> List[_Entry]:
    """The ConfigMaps of other files a pod of `user` can read: those of its namespace as written, else
    those whose namespace is unset on one side (crd_refs._visible, for a namespaced kind)."""
    own = namespace_of(user)
    exact = [e for e in entries if own is not None and e.namespace == own]
    return exact or [e for e in entries if own is None or e.namespace is None]


def _names_read(obj: Node) -> Set[str]:
    """The ConfigMap names an object's `configMapKeyRef`, `configMapRef` and `configMap` (volume) references
    give."""
    out: Set[str] = set()
    for node in obj.walk():
        if node.kind != MAP:
            continue
        for key in MARKERS:
            ref = node.value.get(key)
            name = scalar(ref.get("name")) if ref is not None and ref.kind == MAP else None
            if isinstance(name, str) and name:
                out.add(name)
    return out


def maps_for(loaded: LoadedFile, user: Node, maps: Optional[Maps]) -> Dict[str, Any]:
    """The ConfigMaps `user` reads: from the group when it holds the file, else from the file alone."""
    return maps.maps_for(loaded, user) if maps is not None and maps.holds(loaded) else config_maps(loaded, user)
