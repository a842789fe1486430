"""The files of the run being checked, where a GKE compute class or Karpenter NodePool a pod names is looked for
(compute_classes.py, karpenter_pools.py), and the cluster-scoped objects an InferenceService names when no file of
its own directory holds them (crd_refs.py: an OME ClusterServingRuntime or ClusterBaseModel, a KServe
ClusterServingRuntime).

engine.lint_paths sets them for the whole run (`run_files`), and a --jobs worker is given them once as it starts
(parallel.py). Apart from compute_classes so that every run can set them without importing the class reader, which
only a pod that names a class needs (issue 15: import only what a run needs). Nothing is read until a pod names a
class (`RunClasses.named`)."""
from __future__ import annotations

import os
import re
import stat
from contextlib import contextmanager
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple, Union

from ctxlint.nodes import SCALAR, Node

_API_GROUP = "cloud.google.com/"
_KARPENTER_GROUP = "karpenter.sh/"  # NodePool's group, Karpenter's and EKS Auto Mode's (karpenter_pools.py)
_SUFFIXES = (".yaml", ".yml", ".json")
# Cluster-scoped kinds an InferenceService names, which its controller finds wherever they were applied from
# (crd_refs.py): OME's ClusterServingRuntime and ClusterBaseModel, KServe's ClusterServingRuntime.
CLUSTER_KINDS = ("ClusterServingRuntime", "ClusterBaseModel")
# The files that may hold one, their namespaced kinds (which shadow the run's in a service's own directory) or a
# service (Refs.used)
_REF_MARKERS = (b"ServingRuntime", b"BaseModel", b"InferenceService")
# a value after a `name:` or `runtime:` key on its line (YAML block or flow, JSON), quoted or not
_NAMES = re.compile(rb"""(?:name|runtime)["']?[ \t]*:[ \t]*["']?([A-Za-z0-9][A-Za-z0-9._-]*)""")

_RUNS: List["RunClasses"] = []  # the run being checked (engine.lint_paths), innermost last


Stdin = Optional[Tuple[bytes, str]]  # (the bytes read from stdin, the name they are shown by)


@contextmanager
def run_files(paths: Union[Sequence[str], "RunClasses"], max_bytes: int, stdin: Stdin = None,
              limits: Optional[Dict[str, int]] = None) -> Iterator[None]:
    """The files a run checks (or their classes already gathered: a --jobs worker's), where a pod's compute class
    is looked for while it lasts."""
    _RUNS.append(paths if isinstance(paths, RunClasses) else RunClasses(paths, max_bytes, stdin, limits))
    try:
        yield
    finally:
        _RUNS.pop()


class RunClasses:
    """The ComputeClass and Karpenter NodePool objects of a run's files (and of stdin, when the run reads "-"), by
    name, and the files crd_refs looks in run-wide, indexed by the names they write.

    The engine shows it every file it reads (`note`), which indexes the file's bytes there; the first lookup reads
    the run's files not shown yet (`_read`), and keeps their bytes (up to AHEAD_BYTES in all) for the engine to
    take instead of reading them again (`take`): a run that looks run-wide reads each file once, where a second
    pass over every file was ~7% of a 10,000-file run. Files are answered in the run's order, however they came."""

    AHEAD_BYTES = 64 << 20

    def __init__(self, paths: Sequence[str], max_bytes: int, stdin: Stdin = None,
                 limits: Optional[Dict[str, int]] = None) -> None:
        self.paths = [p for p in paths if p != "-" and p.lower().endswith(_SUFFIXES)]
        self.stdin = stdin if stdin is not None and "-" in paths else None
        self.max_bytes = max_bytes
        # a file's own --max-file-size (its closest config's) where it is not max_bytes: a file too large for its
        # own settings is never read for a lookup, whichever path's config the run started from
        self.limits: Dict[str, int] = {p: n for p, n in (limits or {}).items() if n != max_bytes}
        self._order: Dict[str, int] = {path: i for i, path in reversed(list(enumerate(self.paths)))}
        if self.stdin is not None:
            self._order[self.stdin[1]] = -1
        self._by_name: Optional[Dict[str, List[Tuple[str, Node]]]] = None
        self._pools: Dict[str, List[Tuple[str, Node]]] = {}  # Karpenter NodePools by name (karpenter_pools.py)
        self._indexed: set = set()  # the paths whose bytes were indexed
        # the files that may hold what crd_refs looks up run-wide, kept unparsed (path -> bytes), and the names
        # written after a `name:` or `runtime:` key in each: a lookup parses only the files that write its name so
        # (a Kubernetes name is a DNS name, written as it is; a file that spells it otherwise is not found, and
        # the lookup then says the object is in no file, or leaves a runtime a deployment of its own)
        self._candidates: Dict[str, bytes] = {}
        self._writing: Dict[bytes, List[str]] = {}  # name -> the paths of the candidates that write it
        self._classes: Dict[str, bytes] = {}  # path -> bytes of a file that may hold a ComputeClass or a NodePool
        self._parsed: Dict[str, list] = {}  # path -> its objects, parsed once
        self._ahead: Dict[str, bytes] = {}  # read by a lookup before the engine reached them
        self._ahead_left = self.AHEAD_BYTES
        self.memo: Dict[str, Any] = {}  # what a reader builds once per run from these (crd_refs: services by name)

    def __getstate__(self) -> dict:  # a --jobs worker gets the run's files, never what this process read
        return {"paths": self.paths, "stdin": self.stdin, "max_bytes": self.max_bytes, "limits": self.limits}

    def __setstate__(self, state: dict) -> None:
        self.__init__(state["paths"], state["max_bytes"], state["stdin"], state["limits"])  # type: ignore[misc]

    def limit(self, path: str) -> int:
        """The size limit of `path`'s own settings."""
        return self.limits.get(path, self.max_bytes)

    def note(self, path: str, data: bytes) -> None:
        """The engine read `path` (a regular file within its size limit): its bytes are indexed."""
        if path not in self._indexed and path in self._order and len(data) <= self.limit(path):
            self._index(path, data)

    def take(self, path: str) -> Optional[bytes]:
        """The bytes a lookup read of `path` before the engine reached it, once (None: read it)."""
        return self._ahead.pop(path, None)

    def named(self, name: str) -> List[Tuple[str, Node]]:
        if self._by_name is None:
            self._read()
        return self._by_name.get(name, []) if self._by_name is not None else []

    def node_pools(self, name: str) -> List[Tuple[str, Node]]:
        """(path, object) of each Karpenter NodePool named `name` in the run's files, in the run's order."""
        if self._by_name is None:
            self._read()
        return self._pools.get(name, [])

    def cluster_objects(self, kind: str, name: str) -> List[Tuple[Any, Node]]:
        """(LoadedFile, object) of each `kind` object named `name` in the run's files (CLUSTER_KINDS and their
        namespaced kinds)."""
        return [(loaded, obj) for loaded, obj in self._holding(name, kind.encode())
                if _scalar(obj.get("kind")) == kind and _scalar(obj.dig("metadata", "name")) == name]

    def services(self, name: str) -> List[Tuple[Any, Node, str]]:
        """(LoadedFile, object, its discover.directory_of) of each InferenceService (any API group: crd_refs checks
        it) in the run's files whose bytes hold `name`."""
        from ctxlint.discover import directory_of

        return [(loaded, obj, directory_of(loaded.path)) for loaded, obj in self._holding(name, b"InferenceService")
                if _scalar(obj.get("kind")) == "InferenceService"]

    def _holding(self, name: str, marker: bytes) -> List[Tuple[Any, Node]]:
        from ctxlint.adapters.crd_common import objects
        from ctxlint.file_reader import parse_bytes

        if self._by_name is None:
            self._read()
        out: List[Tuple[Any, Node]] = []
        for path in sorted(self._writing.get(name.encode("utf-8"), ()), key=self._order.__getitem__):
            data = self._candidates[path]
            if marker in data:
                found = self._parsed.get(path)
                if found is None:
                    loaded = parse_bytes(data, path, self.limit(path))
                    found = self._parsed[path] = [(loaded, obj) for obj in objects(loaded)]
                out += found
        return out

    def _index(self, path: str, data: bytes) -> None:
        self._indexed.add(path)
        # every file the engine reads comes here: three tests, not a generator's frame (_REF_MARKERS, spelled out)
        if b"ServingRuntime" in data or b"BaseModel" in data or b"InferenceService" in data:
            for found in set(_NAMES.findall(data)):
                self._writing.setdefault(found, []).append(path)
            self._candidates[path] = data
        if b"ComputeClass" in data or b"NodePool" in data:  # most files: no parse
            self._classes[path] = data

    def parsed(self, path: str) -> Optional[Any]:
        """The LoadedFile of a candidate file a lookup parsed (None when none did)."""
        found = self._parsed.get(path)
        return found[0][0] if found else None

    def _read(self) -> None:
        """The run's files the engine has not shown yet, indexed (their bytes kept for it while AHEAD_BYTES
        lasts), then the classes parsed in the run's order; a file holding no marker is neither."""
        from ctxlint.adapters.crd_common import objects
        from ctxlint.file_reader import parse_bytes

        for data, path in self._texts():
            self._index(path, data)
            if path != "-" and path in self._order and len(data) <= self._ahead_left and \
                    (self.stdin is None or path != self.stdin[1]):
                self._ahead[path] = data
                self._ahead_left -= len(data)
        out: Dict[str, List[Tuple[str, Node]]] = {}
        for path in sorted(self._classes, key=self._order.__getitem__):
            for obj in objects(parse_bytes(self._classes[path], path, self.limit(path))):
                name = _scalar(obj.dig("metadata", "name"))
                if _scalar(obj.get("kind")) == "ComputeClass" and str(_scalar(obj.get("apiVersion"))).startswith(
                        _API_GROUP) and isinstance(name, str) and name:
                    out.setdefault(name, []).append((path, obj))
                elif _scalar(obj.get("kind")) == "NodePool" and str(_scalar(obj.get("apiVersion"))).startswith(
                        _KARPENTER_GROUP) and isinstance(name, str) and name:
                    self._pools.setdefault(name, []).append((path, obj))
        self._by_name = out

    def _texts(self) -> Iterator[Tuple[bytes, str]]:
        """(bytes, name) of stdin's text and of each regular file of the run within the size limit not indexed
        yet, one at a time."""
        if self.stdin is not None and self.stdin[1] not in self._indexed and \
                len(self.stdin[0]) <= self.limit(self.stdin[1]):
            yield self.stdin
        for path in self.paths:
            if path in self._indexed:
                continue
            try:
                info = os.stat(path)
                if not stat.S_ISREG(info.st_mode) or info.st_size > self.limit(path):
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
