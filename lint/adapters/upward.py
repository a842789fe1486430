"""The folders an upward lookup reads (a kustomize patch's kustomization, a script's repository-relative engine
config): the start and those above it, up to and including a repository's root (a folder holding .git); with none
on the way, up to and including the current directory for a start under it. A file outside the checked tree (a
stray one in /tmp or $HOME) is never read, and a run started in a subfolder of a repository reads what one at its
root reads."""
from __future__ import annotations

import os
from typing import Callable, List


def is_repository_root(folder: str) -> bool:
    return os.path.exists(os.path.join(folder, ".git"))


def folders_up(start: str, count: int, is_root: Callable[[str], bool] = is_repository_root) -> List[str]:
    """`start` (absolute) and the folders above it, `count` at most, bounded as the module says."""
    out, root = [start], is_root(start)
    while not root and len(out) < count:
        parent = os.path.dirname(out[-1])
        if parent == out[-1]:
            break
        out.append(parent)
        root = is_root(parent)
    if not root:
        here = os.path.abspath(os.getcwd())
        if here in out:  # the start is under it, within reach
            out = out[:out.index(here) + 1]
    return out
