"""POSIX path parts as pathlib parses them, without importing pathlib.

pathlib (with urllib.parse and ipaddress, which it imports) is ~3 ms of a one-file run that
only needs to shorten a few paths for display (issue 15). These functions give exactly what
`PurePosixPath(p).parts`, `.relative_to()` and `.as_posix()` give (tests compare them on
generated paths); on Windows the callers use pathlib itself.
"""
from __future__ import annotations

from typing import Optional, Tuple

Parts = Tuple[str, ...]


def parts(path: str) -> Parts:
    """PurePosixPath(path).parts: empty and "." segments dropped, ".." kept, and a root of
    "/" (or "//", which POSIX lets mean something else, exactly two slashes) first."""
    root = ""
    if path.startswith("/"):
        root = "//" if path.startswith("//") and not path.startswith("///") else "/"
    rest = tuple(segment for segment in path.split("/") if segment and segment != ".")
    return ((root,) + rest) if root else rest


def relative_to(path: Parts, base: Parts) -> Optional[Parts]:
    """PurePosixPath(*path).relative_to(*base).parts, or None where pathlib raises ValueError."""
    if not base:
        return None if path and path[0].startswith("/") else path
    if path[:len(base)] != base:
        return None
    return path[len(base):]


def as_posix(path: Parts) -> str:
    """PurePosixPath(*path).as_posix()."""
    if not path:
        return "."
    if path[0].startswith("/"):
        return path[0] + "/".join(path[1:])
    return "/".join(path)
