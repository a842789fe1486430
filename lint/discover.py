"""Which files a check reads: explicit files as given, directories recursively."""
from __future__ import annotations

import os
import stat
from typing import Iterable, List

PATTERNS = (".yaml", ".yml", ".json")


class PathError(ValueError):
    """A path given on the command line does not exist (a usage error, exit 2)."""


def discover(paths: Iterable[str]) -> List[str]:
    """Expand directories into their YAML/JSON files, sorted; keep files as given.

    Hidden directories (.git, .venv, ...) are skipped when walking, and symlinked
    directories are not followed (no loops). FIFOs, sockets and devices found while
    walking are skipped (reading a FIFO would block); named explicitly, the loader
    reports them. A directory that cannot be listed is a PathError, never a silent
    pass. "-" stands for stdin.
    """
    found: List[str] = []
    seen = set()
    for path in paths:
        if path == "-":
            found.append(path)
            continue
        if not os.path.lexists(path):
            raise PathError(f"path does not exist: {path}")
        if os.path.isdir(path):
            for item in _walk(path):
                if item not in seen:
                    seen.add(item)
                    found.append(item)
        elif path not in seen:
            seen.add(path)
            found.append(path)
    return found


def _walk(root: str) -> List[str]:
    out = []
    for dirpath, dirnames, filenames in os.walk(root, onerror=_unlistable, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            if name.lower().endswith(PATTERNS) and not name.startswith("."):
                path = os.path.join(dirpath, name)
                if _special(path):
                    continue
                out.append(path if root != "." else os.path.relpath(path))
    return out


def _special(path: str) -> bool:
    """A FIFO, socket or device (also behind a symlink). Broken links are kept: the loader names them."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def _unlistable(error: OSError) -> None:
    raise PathError(f"cannot read directory {error.filename}: {error.strerror or error}")
