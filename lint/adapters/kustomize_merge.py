"""kustomize's two patch forms, applied to a workload's Node tree: a strategic-merge patch and a JSON6902 patch.

Strategic merge, as kustomize's merge2 does it (kubernetes-sigs/kustomize@12f9e6391464b3ad9dd3fe8182049dc1b1772990:
kyaml/yaml/merge2/merge2.go, smpdirective.go; the patch is the "origin", the workload the "dest"):
- mappings merge key by key; a key the patch sets to null is cleared from the workload;
- `$patch: delete` on a mapping (or a list element) removes it, `$patch: replace` puts the patch's in its place;
- a list merges element by element only where the Kubernetes schema gives it a patch merge key (below); any other
  list (`args`, `command`, `tolerations`, `envFrom`...) is replaced whole; the workload's elements keep their order,
  a patch element with a key the workload lacks is appended;
- a scalar is replaced.
The merge keys: every `x-kubernetes-patch-merge-key` of the arrays reachable from Deployment, StatefulSet,
DaemonSet, ReplicaSet, Job, CronJob and Pod in the OpenAPI bundle kustomize builds in (kyaml/openapi/kubernetesapi/
data/kubernetes-openapi-union-v1.21.2.bundle-v1.json.gz of the same commit; they are k8s.io/api's `patchMergeKey`
tags). `ports` and `topologySpreadConstraints` are list-maps of two keys (containerPort and protocol; topologyKey
and whenUnsatisfiable) that kyaml matches by the keys present, and an EphemeralContainer's `ports` has none: a patch
of them is not applied here (NotApplied), nor a directive other than `$patch` (`$retainKeys`, `$setElementOrder`...).

JSON6902, as RFC 6902 and evanphx/json-patch (which kustomize's api/filters/patchjson6902 runs) define it: `add`,
`remove`, `replace`, `move`, `copy` and `test`, paths as JSON pointers (`~1` is `/`, `~0` is `~`, `-` appends).
A path that does not exist where the op needs it, or a failed `test`, makes kustomize refuse the build: NotApplied.

Every node a patch puts in the workload is `place`d: it keeps its own file and position (nodes.ForeignNode) and
takes a logical path that names the patch file and where the value lands (`patch.yaml:spec.template.spec...`).
"""
from __future__ import annotations

from typing import Any, Callable, List, Optional

from ctxlint.adapters.crd_common import clone, scalar
from ctxlint.nodes import MAP, SCALAR, SEQ, Node, child_path

MERGE_KEYS = {"containers": "name", "initContainers": "name", "ephemeralContainers": "name", "env": "name",
              "volumes": "name", "imagePullSecrets": "name", "volumeMounts": "mountPath",
              "volumeDevices": "devicePath", "hostAliases": "ip", "podIPs": "ip", "ownerReferences": "uid",
              "conditions": "type"}
TWO_KEYS = ("ports", "topologySpreadConstraints")
Place = Callable[[Node, str], Node]


class NotApplied(Exception):
    """A patch not applied exactly here: the overlay is left unread, with this reason."""


def copy_tree(node: Node) -> Node:
    """A copy of the mappings and lists of `node` (scalars shared), to change in place."""
    if node.kind == MAP:
        return clone(node, value={k: copy_tree(v) for k, v in node.value.items()}, keys=dict(node.keys))
    if node.kind == SEQ:
        return clone(node, value=[copy_tree(v) for v in node.value])
    return node


def _is_null(node: Node) -> bool:
    return node.kind == SCALAR and node.value is None


def _directive(node: Node) -> Optional[str]:
    found = node.get("$patch") if node.kind == MAP else None
    if found is None:
        return None
    value = scalar(found)
    if value not in ("merge", "delete", "replace"):
        raise NotApplied(f"the patch directive `$patch: {value}` is not one kustomize knows")
    return value


def _whole(node: Node, path: str, place: Place) -> Node:
    """A patch subtree taken whole (nothing in the workload to merge it with): directives in it are not applied."""
    for inner in node.walk():
        if inner.kind == MAP and any(isinstance(k, str) and k.startswith("$") for k in inner.value):
            raise NotApplied(f"a `$` directive inside a new value at {path} is not applied here")
    return place(node, path)


def merge(dest: Optional[Node], origin: Node, path: str, key: str, place: Place) -> Optional[Node]:
    """The strategic merge of `origin` (the patch) over `dest` at the logical `path`; None: cleared."""
    if _is_null(origin):
        return None
    if origin.kind == MAP:
        directive = _directive(origin)
        if directive == "delete":
            return None
        rest = {k: v for k, v in origin.value.items() if k != "$patch"}
        if directive == "replace" or dest is None or dest.kind != MAP:
            bare = clone(origin, value=rest, keys={k: v for k, v in origin.keys.items() if k != "$patch"})
            return _whole(bare, path, place)
        value, keys = dict(dest.value), dict(dest.keys)
        for k, v in rest.items():
            if isinstance(k, str) and k.startswith("$"):
                raise NotApplied(f"the patch directive `{k}` at {path} is not applied here")
            merged = merge(dest.value.get(k), v, child_path(path, k), str(k), place)
            if merged is None:
                value.pop(k, None)
                keys.pop(k, None)
            else:
                value[k] = merged
                if k not in keys:
                    keys[k] = place(origin.keys[k], child_path(path, k))
        return clone(dest, value=value, keys=keys)
    if origin.kind == SEQ:
        if key in TWO_KEYS and dest is not None:
            raise NotApplied(f"a patch of `{key}` (a list merged by two keys) is not applied here")
        if key in MERGE_KEYS and dest is not None and dest.kind == SEQ:
            return _merge_list(dest, origin, path, MERGE_KEYS[key], place)
        return _whole(origin, path, place)
    return place(origin, path)


def _merge_list(dest: Node, origin: Node, path: str, merge_key: str, place: Place) -> Optional[Node]:
    patch_items = list(origin.value)
    marker = [i for i in patch_items if i.kind == MAP and i.get(merge_key) is None and _directive(i) is not None]
    if any(_directive(i) == "replace" for i in marker):  # `- $patch: replace`: the list is the patch's
        kept = [i for i in patch_items if not any(i is m for m in marker)]
        return _whole(clone(origin, value=kept), path, place)
    pairs = []  # (patch element, the index of the workload's element with its key, or None)
    for item in patch_items:
        name = scalar(item.get(merge_key)) if item.kind == MAP else None
        pairs.append((item, next((n for n, i in enumerate(dest.value) if i.kind == MAP and name is not None
                                  and scalar(i.get(merge_key)) == name), None)))
    gone = {at for item, at in pairs if at is not None and item.kind == MAP and _directive(item) == "delete"}
    kept = [n for n in range(len(dest.value)) if n not in gone]
    final = {n: k for k, n in enumerate(kept)}  # where each element ends, for the paths of what merges into it
    items: List[Any] = [dest.value[n] for n in kept]
    for item, at in pairs:
        if at is None and not (item.kind == MAP and _directive(item) == "delete"):  # (nothing to delete)
            items.append(_whole(item, child_path(path, len(items)), place))
        elif at is not None and at not in gone:
            items[final[at]] = merge(items[final[at]], item, child_path(path, final[at]), "", place)
    return clone(dest, value=[i for i in items if i is not None])


# JSON6902 ----------------------------------------------------------------------------------------------------------

def pointer(text: Any) -> List[str]:
    """The reference tokens of a JSON pointer (RFC 6901): `/a~1b/~0c` is ["a/b", "~c"]."""
    if not isinstance(text, str) or (text and not text.startswith("/")):
        raise NotApplied(f"`{text}` is not a JSON pointer")
    return [t.replace("~1", "/").replace("~0", "~") for t in text.split("/")[1:]]


def _parent(root: Node, tokens: List[str], text: str) -> Node:
    node = root
    for token in tokens[:-1]:
        node = _child(node, token, text)
    return node


def _child(node: Node, token: str, text: str) -> Node:
    if node.kind == MAP and token in node.value:
        return node.value[token]
    if node.kind == SEQ and token.isdigit() and int(token) < len(node.value) and (token == "0" or token[0] != "0"):
        return node.value[int(token)]
    raise NotApplied(f"the JSON patch path {text} does not exist in the workload")


def _path_of(node: Node, tokens: List[str], root_path: str) -> str:
    path = root_path
    walk = node
    for token in tokens:
        if walk is not None and walk.kind == SEQ:
            index = len(walk.value) if token == "-" else int(token) if token.isdigit() else token
            path = child_path(path, index)
            walk = walk.value[index] if isinstance(index, int) and index < len(walk.value) else None
        else:
            path = child_path(path, token)
            walk = walk.value.get(token) if walk is not None and walk.kind == MAP else None
    return path


def _add(root: Node, tokens: List[str], value: Node, text: str) -> None:
    if not tokens:
        raise NotApplied("a JSON patch that replaces the whole object is not applied here")
    parent, last = _parent(root, tokens, text), tokens[-1]
    if parent.kind == MAP:
        if last not in parent.keys:
            parent.keys[last] = value
        parent.value[last] = value
    elif parent.kind == SEQ and (last == "-" or last.isdigit() and int(last) <= len(parent.value)):
        parent.value.insert(len(parent.value) if last == "-" else int(last), value)
    else:
        raise NotApplied(f"the JSON patch path {text} does not exist in the workload")


def _remove(root: Node, tokens: List[str], text: str) -> Node:
    if not tokens:
        raise NotApplied("a JSON patch that removes the whole object is not applied here")
    parent, last = _parent(root, tokens, text), tokens[-1]
    found = _child(parent, last, text)
    if parent.kind == MAP:
        del parent.value[last]
        parent.keys.pop(last, None)
    else:
        del parent.value[int(last)]
    return found


def json6902(root: Node, ops: Node, root_path: str, place: Place) -> Node:
    """`root` (a copy_tree, changed in place) after the operations of the list `ops`."""
    for op in ops.value:
        name = scalar(op.get("op")) if op.kind == MAP else None
        text = scalar(op.get("path")) if op.kind == MAP else None
        tokens = pointer(text)
        if name in ("add", "replace", "test") and op.get("value") is None:
            raise NotApplied(f"the JSON patch op {name} at {text} has no value")
        if name == "test":
            if _child(_parent(root, tokens, text), tokens[-1], text).plain() != op.value["value"].plain() \
                    if tokens else root.plain() != op.value["value"].plain():
                raise NotApplied(f"the JSON patch test at {text} fails: kustomize refuses the build")
        elif name == "remove":
            _remove(root, tokens, text)
        elif name in ("add", "replace"):
            if name == "replace":
                _remove(root, tokens, text)
            path = _path_of(root, tokens, root_path)
            _add(root, tokens, _whole(op.value["value"], path, place), text)
        elif name in ("move", "copy"):
            source = pointer(scalar(op.get("from")))
            moved = _remove(root, source, text) if name == "move" else _child(
                _parent(root, source, text), source[-1], text) if source else root
            _add(root, tokens, copy_tree(moved), text)
        else:
            raise NotApplied(f"the JSON patch op `{name}` is not one of add, remove, replace, move, copy, test")
    return root
