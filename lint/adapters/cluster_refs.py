"""A cluster-scoped object (ClusterServingRuntime, ClusterBaseModel) that a service names and no file of its
directory group holds, looked up in every file of the run (run_classes.RunClasses.cluster_objects), and
whether a service of another directory runs such an object of this group (crd_refs.py describes the rule).
Imported by crd_refs.Refs only when it looks past its group.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

from ctxlint.adapters.crd_common import is_kind, scalar
from ctxlint.adapters.crd_refs import REFS, Lookup, Ref
from ctxlint.adapters.scalar_spans import ScalarSpans
from ctxlint.loader import LoadedFile
from ctxlint.nodes import Node, adopt


def run_uses(obj: Node, path: str) -> bool:
    """Whether a service of another directory of the run finds this cluster-scoped object as in_run does:
    its own directory holds no object of that name (of any kind it looks up, whatever the namespace: then
    the object stays a deployment of its own, counted twice at worst, never hidden) and this file is the one
    file of the run outside it that holds one (`path`: the file that holds `obj`)."""
    from ctxlint.adapters.run_classes import CLUSTER_KINDS, current
    from ctxlint.discover import directory_of

    kind, name = scalar(obj.get("kind")), scalar(obj.dig("metadata", "name"))
    run = current()
    if kind not in CLUSTER_KINDS or not isinstance(name, str) or run is None:
        return False
    line = obj.source("").line
    here = directory_of(path)
    for there, ref in _services_naming(run, name):
        if there == here or not is_kind(obj, (kind,), ref.group) or (ref.accept is not None and not ref.accept(obj)) \
                or kind not in [k for kinds, namespaced in ref.tiers if not namespaced for k in kinds]:
            continue
        looked = [k for kinds, _ in ref.tiers for k in kinds]
        if any(directory_of(other.path) == there for k in looked for other, _ in run.cluster_objects(k, name)):
            continue  # its own directory's object (or none, when that one is not for it)
        holders: Dict[str, Node] = {}
        for k in looked:
            if k in CLUSTER_KINDS:
                for other, found in run.cluster_objects(k, name):
                    if is_kind(found, (k,), ref.group):
                        holders[other.path] = found  # in one file, the later object of a name wins
        if list(holders) == [path] and holders[path].source("").line == line:
            return True
    return False


def in_run(node: Node, name: str, ref: Ref, files: Sequence[LoadedFile],
           adopted: Dict[int, Node]) -> Optional[Tuple[Lookup, Optional[Node]]]:
    """The cluster-scoped object `name` in the run's other files, when no file of the group (`files`) holds it;
    `adopted`: the group's trees of objects adopted from other files, by id of the object."""
    from ctxlint.adapters.run_classes import CLUSTER_KINDS, current

    run = current()
    kinds = [k for kinds, namespaced in ref.tiers if not namespaced for k in kinds if k in CLUSTER_KINDS]
    if run is None or not kinds:
        return None
    from ctxlint.discover import directory_of

    # not the group's directory: its files were looked in, or (past discover.PAIRING_BLOCK files) are not
    mine = {directory_of(loaded.path) for loaded in files}
    by_file: Dict[str, Tuple[Any, Node]] = {}
    for kind in kinds:
        for loaded, obj in run.cluster_objects(kind, name):
            if directory_of(loaded.path) not in mine and is_kind(obj, (kind,), ref.group):
                by_file[loaded.path] = (loaded, obj)  # in one file, the later object of a name wins
    if len(by_file) == 1:
        loaded, obj = next(iter(by_file.values()))
        found = adopted.get(id(obj))
        if found is None:
            found = adopted[id(obj)] = adopt(obj, ScalarSpans(loaded.path, loaded.text))
        return Lookup(node, found), obj
    return (Lookup(node, None, tuple(sorted(by_file))), None) if by_file else None


def _services_naming(run: Any, name: str) -> List[Tuple[str, Ref]]:
    """(directory, ref) of each InferenceService of the run that names an object `name`, once a run."""
    key = ("crd_refs.services", name)
    found = run.memo.get(key)
    if found is None:
        found = run.memo[key] = [(there, ref) for _, user, there in run.services(name) for ref in REFS
                                 if is_kind(user, (ref.user,), ref.group) and scalar(user.dig(*ref.path)) == name]
    return found
