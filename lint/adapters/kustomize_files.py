"""The files kustomize overlays are read from (kustomize_overlays, kustomize_patch_files), each read once a run and
its one mapping parsed once."""
from __future__ import annotations

import os
from typing import Any, Dict, Optional, Tuple

from ctxlint.adapters.crd_common import objects
from ctxlint.loader import LoadedFile

# The files read for overlays, kept across the workloads of a run (path -> (stat, file, root)): sibling bases
# share their parent, so each would read every overlay kustomization of it again (50 bases with 4 overlays
# each: 12,800 reads, 2.5 s of a 3.4 s run). A file changed since (its mtime, size or inode) is read anew.
_FILES: Dict[str, Tuple[Any, Optional[LoadedFile], Any]] = {}
_MAX_FILES = 4096
_NO_ROOT = object()


class _Reader:
    def _entry(self, path: str) -> Tuple[Any, Optional[LoadedFile], Any]:
        try:
            info = os.stat(path)
            sig: Any = (info.st_mtime_ns, info.st_size, info.st_ino, info.st_mode)
        except OSError:
            sig = None
        kept = _FILES.get(path)
        if kept is not None and kept[0] == sig:
            return kept
        from ctxlint.file_reader import read_path

        found = read_path(path) if sig is not None and os.path.isfile(path) else None
        if len(_FILES) >= _MAX_FILES:
            _FILES.clear()
        kept = _FILES[path] = (sig, found if found is not None and not found.shell else None, _NO_ROOT)
        return kept

    def read(self, path: str) -> Optional[LoadedFile]:
        return self._entry(path)[1]

    def root(self, path: str) -> Any:
        sig, loaded, root = self._entry(path)
        if root is _NO_ROOT:
            roots = [r for r in objects(loaded)] if loaded is not None and not loaded.diagnostics else []
            root = roots[0] if len(roots) == 1 and roots[0].kind == "map" else None
            _FILES[path] = (sig, loaded, root)
        return root
