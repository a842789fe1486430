"""Small readers shared by the CRD and Helm-values adapters.

Scalars as Vals, the objects of a file (documents and `kind: List` items),
GPU counts written as plain numbers (`gpu: "8"`, `requestGPU: 1`), and the
engine config files a container reads from a ConfigMap of the same file
(`--extra-engine-args /opt/dynamo/configs/decode.yaml` with a volume mounted
from that ConfigMap): the block scalar is parsed and every key keeps its
position in the manifest, so a finding points at the `max_seq_len: 7808` line.
"""
from __future__ import annotations

import posixpath
from typing import Any, Dict, Iterator, List, Optional, Tuple

from ctxlint.adapters.scalar_spans import ScalarSpans
from ctxlint.loader import LoadedFile
from ctxlint.model import Source, Val
from ctxlint.nodes import MAP, SCALAR, SEQ, Node, Position, dotted_sources


def scalar(node: Optional[Node]) -> Any:
    return node.value if node is not None and node.kind == SCALAR else None


def str_val(node: Optional[Node], file: str) -> Optional[Val[str]]:
    value = scalar(node)
    return Val(value, node.source(file)) if isinstance(value, str) and value.strip() else None


def int_val(node: Optional[Node], file: str) -> Optional[Val[int]]:
    """A non-negative integer scalar, also written as a string ("8")."""
    value = scalar(node)
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and value.strip().isdigit():
        return Val(int(value.strip()), node.source(file), raw=value)
    return Val(value, node.source(file)) if isinstance(value, int) and value >= 0 else None


def seq(node: Optional[Node]) -> List[Node]:
    return list(node.value) if node is not None and node.kind == SEQ else []


def objects(loaded: LoadedFile) -> Iterator[Node]:
    """Every Kubernetes-style object of a file: documents, `kind: *List` items and the `objects` of an
    OpenShift `Template` (its `${PARAMETER}` placeholders stay unresolved values)."""
    # The adapters and their selection ask ~17 times a file, one file after the other: the last file's answer
    # is kept (the file itself held, so `is` cannot meet a new file at a freed one's address; its document count
    # beside it, though the loader adds no document once it returned the file).
    last = _LAST
    if last[0] is not loaded or last[1] != len(loaded.documents):
        found = tuple(obj for doc in loaded.documents for obj in _objects_in(doc.root))
        last[:] = (loaded, len(loaded.documents), found)
    return iter(last[2])


_LAST: list = [None, 0, ()]  # objects(): the last file asked, its document count and its objects


def _objects_in(root: Node) -> Iterator[Node]:
    # Module-level, not nested in objects(): a nested function that calls itself holds itself in its
    # closure, a cycle only the garbage collector frees (~8 per file, the trigger of a collection).
    if root.kind != MAP:
        return
    kind = scalar(root.get("kind"))
    if isinstance(kind, str) and kind.endswith("List"):
        for item in seq(root.get("items")):
            yield from _objects_in(item)
    elif kind == "Template" and str(scalar(root.get("apiVersion"))).startswith(("template.openshift.io/", "v1")):
        for item in seq(root.get("objects")):
            yield from _objects_in(item)
    else:
        yield root



def in_template(path: str) -> bool:
    """Whether a node lies in an OpenShift Template's object: _objects_in reaches objects through
    `items[i]` (a `kind: *List`) and `objects[i]` (a Template) steps, in any nesting, so such a node's
    path starts with those steps, one of them `objects[` (`items[0].objects[2].spec...`)."""
    rest = path
    while rest.startswith(("items[", "objects[")):
        if rest.startswith("objects["):
            return True
        rest = rest[rest.index("]") + 1:].lstrip(".")
    return False

def specs(loaded: LoadedFile, kinds: Optional[Tuple[str, ...]] = None, group: str = "") -> Iterator[Tuple[Node, Node]]:
    """(object, its `spec`) of every object of the file whose `spec` is a mapping; with `kinds`, only objects of
    those kinds in the API group (is_kind)."""
    for obj in objects(loaded):
        spec = obj.get("spec")
        if spec is not None and spec.kind == MAP and (kinds is None or is_kind(obj, kinds, group)):
            yield obj, spec


def is_kind(obj: Node, kinds: Tuple[str, ...], group: str) -> bool:
    """`kind` is one of kinds and `apiVersion` is in the API group (e.g. "kubeai.org")."""
    api = scalar(obj.get("apiVersion"))
    return scalar(obj.get("kind")) in kinds and isinstance(api, str) and api.split("/")[0].endswith(group)


def name_of(obj: Node, file: str) -> Optional[Val[str]]:
    return str_val(obj.dig("metadata", "name"), file)


def labels_of(obj: Node) -> Tuple[Tuple[str, str], ...]:
    labels = obj.dig("metadata", "labels")
    if labels is None or labels.kind != MAP:
        return ()
    return tuple((str(k), str(v.value)) for k, v in labels.value.items() if v.kind == SCALAR)


# -- engine config files from ConfigMaps ---------------------------------------------------------------
def config_maps(loaded: LoadedFile, user: Optional[Node] = None) -> Dict[str, Node]:
    """ConfigMap name -> its `data` mapping, for the ConfigMaps of this file a pod of `user` (an object
    of the file) can read: those of its namespace (`metadata.namespace`), and those whose namespace is
    not written on one side (`kubectl apply -n X` puts an unset object in X, and refuses one of another
    namespace) when the name is not taken in the user's own. Without `user`, every ConfigMap, by name."""
    global _LAST_MAPS
    if _LAST_MAPS is None or _LAST_MAPS[0] is not loaded:
        by_namespace: Dict[Any, Dict[str, Node]] = {}
        for obj in objects(loaded):
            if scalar(obj.get("kind")) == "ConfigMap" and scalar(obj.get("apiVersion")) == "v1":
                name, data = scalar(obj.dig("metadata", "name")), obj.get("data")
                if isinstance(name, str) and data is not None and data.kind == MAP:
                    by_namespace.setdefault(namespace_of(obj), {})[name] = data
        _LAST_MAPS = (loaded, by_namespace)
    return visible(_LAST_MAPS[1], user)


def visible(by_namespace: Dict[Any, Dict[str, Node]], user: Optional[Node]) -> Dict[str, Node]:
    """Name -> object among namespaced objects of a file ({namespace as written, None if unset: {name:
    object}}) that `user` (an object of the file) can refer to by name: those of its namespace and
    those whose namespace is unset (`kubectl apply -n X` puts an unset object in X); for a user whose
    namespace is unset, any namespace's whose name no other written namespace also holds. Without
    `user`, every one, by name."""
    if user is None:
        return {name: data for maps in by_namespace.values() for name, data in maps.items()}
    own = namespace_of(user)
    if own is not None:  # its namespace's, then unset ones
        return {**by_namespace.get(None, {}), **by_namespace.get(own, {})}
    found: Dict[str, Node] = {}  # unset: any namespace's, a name held in two explicit ones being unknown
    seen: Dict[str, int] = {}
    for namespace, maps in by_namespace.items():
        if namespace is not None:
            for name, data in maps.items():
                seen[name] = seen.get(name, 0) + 1
                found[name] = data
    found = {name: data for name, data in found.items() if seen[name] == 1}
    return {**found, **by_namespace.get(None, {})}


_LAST_MAPS: Optional[Tuple[LoadedFile, Dict[Any, Dict[str, Node]]]] = None  # the file read last, held


def namespace_of(obj: Node) -> Any:
    """An object's `metadata.namespace` as written (None: unset)."""
    return scalar(obj.dig("metadata", "namespace"))


def parse_embedded(node: Node, spans: ScalarSpans) -> Optional[Tuple[Any, Dict[str, Source]]]:
    """A YAML document held in a string scalar -> (plain data, {dotted key: Source in the file})."""
    from ctxlint.adapters.gw_common import embedded

    inner = embedded(node, spans)
    return None if inner is None else (inner[0].plain(), dotted_sources(inner[0], inner[1]))


class ConfigFiles:
    """Paths inside one container that are backed by ConfigMaps of the same file."""

    def __init__(self, spans: ScalarSpans, maps: Dict[str, Node], pod: Optional[Node], container: Optional[Node],
                 extra_mounts: Optional[Node] = None) -> None:
        self.spans, self.maps = spans, maps
        self.workdir = scalar(container.get("workingDir")) if container is not None and container.kind == MAP else None
        self.volumes: Dict[str, Node] = {}
        for vol in seq(pod.get("volumes") if pod is not None and pod.kind == MAP else None):
            name, cm = scalar(vol.get("name")), vol.get("configMap")
            if isinstance(name, str) and cm is not None and cm.kind == MAP:
                self.volumes[name] = cm
        self.mounts = seq(container.get("volumeMounts") if container is not None and container.kind == MAP
                          else None) + seq(extra_mounts)

    def read(self, path: str) -> Optional[Tuple[Any, Dict[str, Source]]]:
        wanted = posixpath.normpath(posixpath.join(self.workdir if isinstance(self.workdir, str) else "/", path))
        for mount in self.mounts:
            at, volume = scalar(mount.get("mountPath")), self.volumes.get(scalar(mount.get("name")))
            if not isinstance(at, str) or volume is None:
                continue
            at = posixpath.normpath(at)
            sub = scalar(mount.get("subPath"))
            if isinstance(sub, str) and sub:
                key = sub if wanted == at else None
            else:
                rest = posixpath.relpath(wanted, at) if wanted.startswith(at.rstrip("/") + "/") else None
                key = self._key(volume, rest) if rest and "/" not in rest else None
            data = self.maps.get(scalar(volume.get("name")))
            value = data.get(key) if data is not None and key is not None else None
            if value is not None:
                own = getattr(value, "settings", None)  # a kustomize generator's file: read in that file
                return own() if own is not None else parse_embedded(value, self.spans)
        return None

    @staticmethod
    def _key(volume: Node, file_name: str) -> Optional[str]:
        items = seq(volume.get("items"))
        if not items:
            return file_name
        return next((scalar(i.get("key")) for i in items if scalar(i.get("path")) == file_name), None)


# -- pod templates patched by an operator ----------------------------------------------------------------
_MERGE_BY_NAME = ("containers", "initContainers", "env", "volumes", "volumeMounts")


def clone(node: Node, **changes: Any) -> Node:
    """A shallow copy of a Node with some slots changed (positions stay the original's, and so does the
    file of a node of another file: nodes.ForeignNode)."""
    cls = type(node)
    copy = cls.__new__(cls)
    for slot in Node.__slots__ if cls is Node else Node.__slots__ + cls.__slots__:
        setattr(copy, slot, getattr(node, slot))
    for key, value in changes.items():
        setattr(copy, key, value)
    return copy


def tail_node(item: Node, start: int, text: str, spans: ScalarSpans) -> Node:
    """The part of a scalar's decoded `text` from `start` on (the value of a `NAME=value` item) as a node of its
    own at its place in the file (the whole scalar's place when the characters cannot be aligned)."""
    value = text[start:]
    offsets = spans.offsets(item, text) if value else None
    if offsets is None or len(offsets) < len(text):
        return clone(item, value=value)
    (line, col), (end_line, end_col) = spans.position(offsets[start]), spans.position(offsets[len(text) - 1])
    return clone(item, value=value, start=Position(offsets[start], line - 1, col - 1),
                 end=Position(offsets[len(text) - 1] + 1, end_line - 1, end_col))


def merge_patch(base: Optional[Node], patch: Optional[Node], key: str = "") -> Optional[Node]:
    """A Kubernetes strategic merge of `patch` over `base` (mappings merged key by key, lists of
    containers/env/volumes merged by `name`, anything else replaced). Every value keeps the
    position where it was written, in the base or in the patch."""
    if patch is None or (patch.kind == SCALAR and patch.value is None):
        return base
    if base is None:
        return patch
    if base.kind == MAP and patch.kind == MAP:
        value, keys = dict(base.value), dict(base.keys)
        for k, v in patch.value.items():
            value[k] = merge_patch(base.value.get(k), v, str(k))
            keys[k] = patch.keys.get(k, keys.get(k))
        return clone(base, value=value, keys=keys)
    if base.kind == SEQ and patch.kind == SEQ and key in _MERGE_BY_NAME:
        items = list(base.value)
        names = [scalar(i.get("name")) for i in items]
        for item in patch.value:
            name = scalar(item.get("name"))
            if name is not None and name in names:
                at = names.index(name)
                items[at] = merge_patch(items[at], item)
            else:
                items.append(item)
        return clone(base, value=items)
    return patch
