"""kustomize's two patch forms, applied to a workload's Node tree: a strategic-merge patch and a JSON6902 patch.

Strategic merge, as kustomize's merge2 does it (kubernetes-sigs/kustomize@12f9e6391464b3ad9dd3fe8182049dc1b1772990:
kyaml/yaml/merge2/merge2.go, smpdirective.go; the patch is the "origin", the workload the "dest"):
- mappings merge key by key; a key the patch sets to null is cleared from the workload;
- `$patch: delete` on a mapping (or a list element) removes it, `$patch: replace` puts the patch's in its place;
- a list merges element by element only where the Kubernetes schema gives it a patch merge key (below); any other
  list (`args`, `command`, `tolerations`, `envFrom`...) is replaced whole; a merged list has the patch's elements
  first, in the patch's order, then the workload's others (kustomize passes MergeOptionsListPrepend); an element
  without its key, two with one key, or `$patch: replace` on an element (kyaml mishandles them) are not applied;
- a scalar is replaced.
The merge keys: every `x-kubernetes-patch-merge-key` of the arrays reachable from Deployment, StatefulSet,
DaemonSet, ReplicaSet, Job, CronJob and Pod in the OpenAPI bundle kustomize builds in (kyaml/openapi/kubernetesapi/
data/kubernetes-openapi-union-v1.21.2.bundle-v1.json.gz of the same commit; they are k8s.io/api's `patchMergeKey`
tags). `ports` and `topologySpreadConstraints` are list-maps of two keys (`x-kubernetes-list-map-keys`:
containerPort and protocol; topologyKey and whenUnsatisfiable), which kyaml merges by the keys some element of either
list sets (_merge_list); an EphemeralContainer's `ports` has no merge key: a patch of it is not applied here
(NotApplied), nor a directive other than `$patch` (`$retainKeys`, `$setElementOrder`...).

JSON6902, as RFC 6902 and evanphx/json-patch (which kustomize's api/filters/patchjson6902 runs) define it: `add`,
`remove`, `replace`, `move`, `copy` and `test`, paths as JSON pointers (`~1` is `/`, `~0` is `~`, `-` appends).
A path that does not exist where the op needs it, or a failed `test`, makes kustomize refuse the build: NotApplied.

Every node a patch puts in the workload is `place`d: it keeps its own file and position (nodes.ForeignNode) and
takes a logical path that names the patch file and where the value lands (`patch.yaml:spec.template.spec...`).
"""
from __future__ import annotations

from typing import Any, Callable, List, Optional, Tuple

from ctxlint.adapters.crd_common import clone, scalar
from ctxlint.nodes import MAP, SCALAR, SEQ, Node, child_path

MERGE_KEYS = {"containers": "name", "initContainers": "name", "ephemeralContainers": "name", "env": "name",
              "volumes": "name", "imagePullSecrets": "name", "volumeMounts": "mountPath",
              "volumeDevices": "devicePath", "hostAliases": "ip", "podIPs": "ip", "ownerReferences": "uid",
              "conditions": "type"}
# the list-maps of two keys (the bundle's x-kubernetes-list-map-keys; kyaml/openapi/openapi.go PatchStrategyAndKeyList
# prefers them to the patch merge key)
TWO_KEYS = {"ports": ("containerPort", "protocol"), "topologySpreadConstraints": ("topologyKey", "whenUnsatisfiable")}
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
    if dest is not None and not _is_null(dest) and dest.kind != origin.kind:
        # kyaml's walker refuses a patch value of another kind than the workload's (ErrorIfAnyInvalidAndNonNull:
        # `kubectl kustomize` fails on `containers: {name: a}` or `image: [x]`)
        raise NotApplied(f"the patch sets {path} to a {origin.kind}, the workload's is a {dest.kind}: "
                         "kustomize refuses it")
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
        if key in TWO_KEYS and dest is not None and dest.kind == SEQ:
            if ".ephemeralContainers[" in path:  # EphemeralContainer.ports: no merge key in the schema
                raise NotApplied(f"a patch of {path} (an ephemeral container's ports) is not applied here")
            return _merge_list(dest, origin, path, TWO_KEYS[key], place)
        if key in MERGE_KEYS and dest is not None and dest.kind == SEQ:
            return _merge_list(dest, origin, path, (MERGE_KEYS[key],), place)
        return _whole(origin, path, place)
    return place(origin, path)


def _list_directive(origin: Node) -> Optional[str]:
    """The directive of a whole list, as kyaml's determineSequenceNodePatchStrategy finds it: the first element with a
    `$patch` key, when that is its only key (one with more keys is an element's own directive)."""
    found = next((i for i in origin.value if i.kind == MAP and "$patch" in i.value), None)
    return _directive(found) if found is not None and len(found.value) == 1 else None


def _key_of(item: Node, merge_key: str, path: str) -> str:
    """An element's merge key as kyaml compares it (the scalar's text). kyaml matches an element without one against
    the first element that has the field at all (FieldMatcher with an empty value), and a patch container without a
    name empties the workload's list (kustomize 5.5.0): such a list is not applied here."""
    found = item.get(merge_key) if item.kind == MAP else None
    text = scalar(found) if found is not None else None
    if text is None or text == "" or isinstance(text, (dict, list)):
        raise NotApplied(f"an element of {path} has no `{merge_key}`: kustomize's merge of it is not applied here")
    return str(text).lower() if isinstance(text, bool) else str(text)


def _keys_used(items: List[Node], keys: Tuple[str, ...], path: str) -> Tuple[str, ...]:
    """The keys kyaml merges a list-map by: the first, and each other that some element of either list sets
    (kubernetes-sigs/kustomize@12f9e6391464b3ad9dd3fe8182049dc1b1772990: kyaml/yaml/walk/associative_sequence.go
    validateKeys). Where some elements set a second key and others not, kyaml's mergeValues pairs them and
    `kubectl kustomize` 5.5.0 drops the patch's element (`containerPort: 8000` over `{containerPort: 8000,
    protocol: TCP}` leaves the workload's): not applied here."""
    used = keys[:1] + tuple(k for k in keys[1:] if any(i.kind == MAP and i.get(k) is not None for i in items))
    for k in used[1:]:
        if not all(i.kind == MAP and i.get(k) is not None for i in items):
            raise NotApplied(f"some elements of {path} set `{k}` and others not: kustomize's merge of them loses "
                             "the patch's values, not applied here")
    return used


def _merge_list(dest: Node, origin: Node, path: str, keys: Tuple[str, ...], place: Place) -> Optional[Node]:
    """kyaml's walkAssociativeSequence with the MergeOptionsListPrepend that patchstrategicmerge.Filter passes
    (kubernetes-sigs/kustomize@12f9e6391464b3ad9dd3fe8182049dc1b1772990: kyaml/yaml/walk/associative_sequence.go
    elementValues, setAssociativeSequenceElements, appendListNode). By one key: the patch's elements first, in the
    patch's order (each merged into the workload's of its key, or new), then the workload's that the patch does not
    name, in their order; `kubectl kustomize` (v5.5.0) builds [side, new, vllm] from containers [vllm, side] and a
    patch [side, new]. By two keys (appendListNode removes a matched element and appends it again): the patch's new
    elements, in its order, then all the workload's, in their order, merged; v5.5.0 builds [5, 4, 1+, 2, 3+] from
    ports [1, 2, 3] (all with protocol TCP) and a patch [3+, 5, 1+, 4/UDP]."""
    directive = _list_directive(origin)
    if directive == "delete":  # `- $patch: delete`: the list is cleared
        return None
    patch_items = [i for i in origin.value if not (i.kind == MAP and "$patch" in i.value and len(i.value) == 1)]
    if directive == "replace":  # `- $patch: replace`: the list is the patch's
        return _whole(clone(origin, value=patch_items), path, place)
    used = _keys_used(list(dest.value) + patch_items, keys, path) if len(keys) > 1 else keys
    ours: dict = {}
    for item in dest.value:
        ours.setdefault(tuple(_key_of(item, k, path) for k in used), []).append(item)
    theirs: dict = {}
    for item in patch_items:
        theirs.setdefault(tuple(_key_of(item, k, path) for k in used), []).append(item)
    if any(len(v) > 1 for v in list(ours.values()) + list(theirs.values())):
        raise NotApplied(f"two elements of {path} have one `{'`+`'.join(used)}`: kustomize merges the first only")
    if len(used) == 1:
        order = list(theirs) + [k for k in ours if k not in theirs]
    else:
        order = [k for k in theirs if k not in ours] + list(ours)
    items: List[Node] = []
    for name in order:
        item, have = theirs.get(name, [None])[0], ours.get(name, [None])[0]
        if item is None:
            items.append(have)
            continue
        if _directive(item) == "delete":
            continue
        if _directive(item) == "replace":
            # kyaml puts the workload's element back over the replacement (appendListNode): kustomize 5.5.0 keeps
            # the element unchanged; not applied here rather than relying on that
            raise NotApplied(f"`$patch: replace` on an element of {path} is not applied here")
        merged = merge(have, item, child_path(path, len(items)), "", place)
        if merged is not None:
            items.append(merged)
    return clone(dest, value=items)


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
            parent = _parent(root, tokens, text) if tokens else None
            # json-patch v4 (gopkg.in/evanphx/json-patch.v4 v4.13.0, kustomize's api/go.mod) replaces a key its
            # object lacks by setting it (partialDoc.get never fails): `kubectl kustomize` 5.5.0 adds it; a missing
            # list index or parent is refused
            if name == "replace" and not (parent is not None and parent.kind == MAP and tokens[-1] not in parent.value):
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
