"""discover._walk lists what os.walk did, in its order, with a stat only for files the listing does
not show to be regular: trees of files, hidden and nested directories, links to files and
directories, loops, dangling links and FIFOs, compared with the os.walk walk it replaced."""
from __future__ import annotations

import os
import random
import stat

import pytest

from ctxlint import discover


def _by_os_walk(root: str):
    """The walk as it was (os.walk, then a stat of each YAML/JSON file): the oracle."""
    out = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            if name.lower().endswith(discover.PATTERNS) and not name.startswith("."):
                path = os.path.join(dirpath, name)
                try:
                    mode = os.stat(path).st_mode
                except OSError:
                    mode = stat.S_IFREG  # a broken link is kept: the loader names it
                if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
                    out.append(path if root != "." else os.path.relpath(path))
    return out


def _tree(root, rng: random.Random) -> None:
    names = ["a.yaml", "B.YML", "c.json", "d.txt", ".hidden.yaml", "é.yaml", "z.yaml", "m.Yaml"]
    dirs = [root]
    for folder in rng.sample(["b", "a", "c/d", "c", "B"], 3):  # siblings and nesting: the order shows
        (root / folder).mkdir(parents=True, exist_ok=True)
        (root / folder / "f.yaml").write_text("a: 1\n")
        dirs.append(root / folder)
    for _ in range(rng.randint(3, 12)):
        parent = rng.choice(dirs)
        kind = rng.choice(["dir", "hidden-dir", "file", "file", "file", "link-file", "link-dir", "dangling",
                           "fifo", "loop"])
        name = rng.choice(names) if kind.startswith(("file", "link-file", "dangling", "fifo")) else \
            rng.choice(["sub", "Sub", "x.yaml", "nested"])
        path = parent / (("." if kind == "hidden-dir" else "") + name)
        if path.exists() or path.is_symlink():
            continue
        if kind in ("dir", "hidden-dir"):
            path.mkdir()
            dirs.append(path)
        elif kind == "file":
            path.write_text("a: 1\n")
        elif kind == "link-file":
            target = parent / "target.yaml"
            target.write_text("a: 1\n")
            path.symlink_to(target)
        elif kind == "link-dir":
            path.symlink_to(rng.choice(dirs), target_is_directory=True)
        elif kind == "dangling":
            path.symlink_to(parent / "nowhere")
        elif kind == "loop":
            path.symlink_to(path)
        elif hasattr(os, "mkfifo"):
            os.mkfifo(path)


@pytest.mark.skipif(os.name == "nt", reason="links and FIFOs as POSIX makes them")
@pytest.mark.parametrize("seed", range(40))
def test_the_walk_lists_what_os_walk_listed(tmp_path, seed, monkeypatch):
    _tree(tmp_path, random.Random(seed))
    assert discover._walk(str(tmp_path)) == _by_os_walk(str(tmp_path))
    assert discover._walk(str(tmp_path) + "/") == _by_os_walk(str(tmp_path) + "/")
    monkeypatch.chdir(tmp_path)
    assert discover._walk(".") == _by_os_walk(".")
