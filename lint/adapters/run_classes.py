"""The files of the run being checked, where a GKE compute class a pod names is looked for (compute_classes.py),
and the cluster-scoped objects an InferenceService names when no file of its own directory holds them (crd_refs.py:
an OME ClusterServingRuntime or ClusterBaseModel, a KServe ClusterServingRuntime).

engine.lint_paths sets them for the whole run (`run_files`), and a --jobs worker is given them once as it starts
(parallel.py). Apart from compute_classes so that every run can set them without importing the class reader, which
only a pod that names a class needs (issue 15: import only what a run needs). Nothing is read until a pod names a
class (`RunClasses.named`)."""
from __future__ import annotations

import os
import stat
from contextlib import contextmanager
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple, Union

from ctxlint.nodes import SCALAR, Node

_API_GROUP = "cloud.google.com/"
_SUFFIXES = (".yaml", ".yml", ".json")
# Cluster-scoped kinds an InferenceService names, which its controller finds wherever they were applied from
# (crd_refs.py): OME's ClusterServingRuntime and ClusterBaseModel, KServe's ClusterServingRuntime.
CLUSTER_KINDS = ("ClusterServingRuntime", "ClusterBaseModel")
_CLUSTER_MARKERS = tuple(kind.encode() for kind in CLUSTER_KINDS)

_RUNS: List["RunClasses"] = []  # the run being checked (engine.lint_paths), innermost last


Stdin = Optional[Tuple[bytes, str]]  # (the bytes read from stdin, the name they are shown by)


@contextmanager
def run_files(paths: Union[Sequence[str], "RunClasses"], max_bytes: int, stdin: Stdin = None) -> Iterator[None]:
    """The files a run checks (or their classes already gathered: a --jobs worker's), where a pod's compute class
    is looked for while it lasts."""
    _RUNS.append(paths if isinstance(paths, RunClasses) else RunClasses(paths, max_bytes, stdin))
    try:
        yield
    finally:
        _RUNS.pop()


class RunClasses:
    """The ComputeClass objects of a run's files (and of stdin, when the run reads "-"), by name, read on the
    first lookup."""

    def __init__(self, paths: Sequence[str], max_bytes: int, stdin: Stdin = None) -> None:
        self.paths = [p for p in paths if p != "-" and p.lower().endswith(_SUFFIXES)]
        self.stdin = stdin if stdin is not None and "-" in paths else None
        self.max_bytes = max_bytes
        self._by_name: Optional[Dict[str, List[Tuple[str, Node]]]] = None
        # (kind, name) -> [(the file, the object)] of the cluster-scoped kinds crd_refs looks up run-wide
        self._cluster: Dict[Tuple[str, str], List[Tuple[Any, Node]]] = {}

    def named(self, name: str) -> List[Tuple[str, Node]]:
        if self._by_name is None:
            self._read()
        return self._by_name.get(name, []) if self._by_name is not None else []

    def cluster_objects(self, kind: str, name: str) -> List[Tuple[Any, Node]]:
        """(LoadedFile, object) of each `kind` object named `name` in the run's files (CLUSTER_KINDS only)."""
        if self._by_name is None:
            self._read()
        return self._cluster.get((kind, name), [])

    def _read(self) -> None:
        """One pass over the run's files for both lookups: a file holding neither marker is not parsed."""
        from ctxlint.adapters.crd_common import objects
        from ctxlint.loader import parse_bytes

        out: Dict[str, List[Tuple[str, Node]]] = {}
        for data, path in self._texts():
            classes = b"ComputeClass" in data
            cluster = any(marker in data for marker in _CLUSTER_MARKERS)
            if not classes and not cluster:  # most files: no parse
                continue
            loaded = parse_bytes(data, path, self.max_bytes)
            for obj in objects(loaded):
                name, kind = _scalar(obj.dig("metadata", "name")), _scalar(obj.get("kind"))
                if not isinstance(name, str) or not name:
                    continue
                if classes and kind == "ComputeClass" and str(_scalar(obj.get("apiVersion"))).startswith(_API_GROUP):
                    out.setdefault(name, []).append((path, obj))
                elif cluster and kind in CLUSTER_KINDS:
                    self._cluster.setdefault((kind, name), []).append((loaded, obj))
        self._by_name = out

    def _texts(self) -> Iterator[Tuple[bytes, str]]:
        """(bytes, name) of stdin's text and of each regular file of the run within the size limit, one at a time."""
        if self.stdin is not None:
            yield self.stdin
        for path in self.paths:
            try:
                info = os.stat(path)
                if not stat.S_ISREG(info.st_mode) or info.st_size > self.max_bytes:
                    continue  # a FIFO named *.yaml would block the read
                with open(path, "rb") as handle:
                    data = handle.read()
            except OSError:
                continue
            yield data, path


def current() -> Optional["RunClasses"]:
    """The run being checked (None outside engine.lint_paths)."""
    return _RUNS[-1] if _RUNS else None


def _scalar(node: Optional[Node]) -> object:
    return node.value if node is not None and node.kind == SCALAR else None
