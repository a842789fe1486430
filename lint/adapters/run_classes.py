"""The files of the run being checked, where a GKE compute class a pod names is looked for (compute_classes.py).

engine.lint_paths sets them for the whole run (`run_files`), and a --jobs worker is given them once as it starts
(parallel.py). Apart from compute_classes so that every run can set them without importing the class reader, which
only a pod that names a class needs (issue 15: import only what a run needs). Nothing is read until a pod names a
class (`RunClasses.named`)."""
from __future__ import annotations

import os
import stat
from contextlib import contextmanager
from typing import Dict, Iterator, List, Optional, Sequence, Tuple, Union

from ctxlint.nodes import SCALAR, Node

_API_GROUP = "cloud.google.com/"
_SUFFIXES = (".yaml", ".yml", ".json")

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

    def named(self, name: str) -> List[Tuple[str, Node]]:
        if self._by_name is None:
            self._by_name = self._read()
        return self._by_name.get(name, [])

    def _read(self) -> Dict[str, List[Tuple[str, Node]]]:
        from ctxlint.adapters.crd_common import objects
        from ctxlint.loader import parse_bytes

        out: Dict[str, List[Tuple[str, Node]]] = {}
        for data, path in self._texts():
            if b"ComputeClass" not in data:  # most files: no parse
                continue
            for obj in objects(parse_bytes(data, path, self.max_bytes)):
                name = _scalar(obj.dig("metadata", "name"))
                if _scalar(obj.get("kind")) == "ComputeClass" and str(_scalar(obj.get("apiVersion"))).startswith(
                        _API_GROUP) and isinstance(name, str) and name:
                    out.setdefault(name, []).append((path, obj))
        return out

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
