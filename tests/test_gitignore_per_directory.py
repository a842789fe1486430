"""globs.gitignored decides a directory's parents once per directory and stats a file only for a rule that
only matches directories: it must answer as the per-file walk it replaced (kept here as the oracle) on
trees of nested .gitignore files with negations, anchored and directory-only patterns."""
from __future__ import annotations

import os
import random

import pytest

from ctxlint import globs


def _oracle(path: str) -> bool:
    """gitignored as it was: every parent directory of every file walked from the repository root down."""
    absolute = os.path.abspath(path)
    root = globs.repo_root(os.path.dirname(absolute))
    rel = globs.relative_posix(absolute, root)
    if rel is None:
        return False
    parts = rel.split("/")
    for depth in range(1, len(parts) + 1):
        is_dir = depth < len(parts) or os.path.isdir(absolute)
        if globs._ignored_by_rules(root, parts[:depth], is_dir):
            return True
    return False


NAMES = ["a", "b", "out", "keep", "x.yaml", "y.yml", "deploy", "c"]
PATTERNS = ["*.yaml", "!keep", "!x.yaml", "out/", "/out", "a/b", "b/", "**/deploy", "deploy/*.yml", "?.yml",
            "[ab]", "!b", "c/", "/a/", "keep/", "*", "!*.yml", "a/**/x.yaml", "\\!c", "# a comment", "d*/"]


def _tree(root, rng: random.Random, depth: int = 0) -> None:
    for name in rng.sample(NAMES, rng.randint(2, 5)):
        path = root / name
        if depth < 3 and rng.random() < 0.5:
            path.mkdir()
            _tree(path, rng, depth + 1)
        else:
            path.write_text("a: 1\n")
    if rng.random() < 0.6:
        (root / ".gitignore").write_text("\n".join(rng.sample(PATTERNS, rng.randint(1, 5))) + "\n")


@pytest.mark.parametrize("seed", range(40))
def test_gitignored_matches_the_per_file_walk(tmp_path, seed):
    rng = random.Random(seed)
    repo = tmp_path / "repo"
    repo.mkdir()
    _tree(repo, rng)
    if rng.random() < 0.7:
        (repo / ".git").mkdir()  # else the repository root is each file's own directory
    globs._directory.cache_clear()
    globs._gitignore_rules.cache_clear()
    checked = ignored = 0
    for directory, dirs, files in os.walk(repo):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in dirs + files:
            path = os.path.join(directory, name)
            for spelt in (path, os.path.relpath(path)):
                assert globs.gitignored(spelt) == _oracle(spelt), spelt
                checked += 1
                ignored += _oracle(spelt)
    assert checked


def test_a_file_is_stated_only_for_a_directory_rule(tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("*.tmp.yaml\n")
    (tmp_path / "a.yaml").write_text("a: 1\n")
    (tmp_path / "dir.yaml").mkdir()
    globs._directory.cache_clear()
    globs._gitignore_rules.cache_clear()
    asked = []
    real = os.path.isdir
    monkeypatch.setattr(globs.os.path, "isdir", lambda p: asked.append(p) or real(p))
    assert not globs.gitignored(str(tmp_path / "a.yaml"))
    assert asked == []
    (tmp_path / ".gitignore").write_text("*.yaml/\n")
    globs._directory.cache_clear()
    globs._gitignore_rules.cache_clear()
    assert globs.gitignored(str(tmp_path / "dir.yaml")) and not globs.gitignored(str(tmp_path / "a.yaml"))
    assert asked == [str(tmp_path / "dir.yaml"), str(tmp_path / "a.yaml")]
