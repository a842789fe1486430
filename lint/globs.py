"""Path globs for `exclude`/`per-file-ignores`, and a small .gitignore matcher.

Globs follow gitignore conventions, which users already know: `*` and `?` stay
within one path segment, `**` spans segments, a pattern without a `/` matches a
name at any depth, and a pattern that matches a directory matches everything
under it.
"""
from __future__ import annotations

import os
import re
from functools import lru_cache
from typing import Callable, List, Optional, Sequence, Tuple, Union


@lru_cache(maxsize=1024)
def _regex(pattern: str) -> "re.Pattern[str]":
    """Translate one glob (already stripped of leading '/') to an anchored regex."""
    out, i, n = [], 0, len(pattern)
    while i < n:
        c = pattern[i]
        if pattern.startswith("**/", i):
            out.append(r"(?:.*/)?")
            i += 3
        elif pattern.startswith("/**", i) and i + 3 == n:
            out.append(r"/.*")
            i += 3
        elif pattern.startswith("**", i):
            out.append(r".*")
            i += 2
        elif c == "*":
            out.append(r"[^/]*")
            i += 1
        elif c == "?":
            out.append(r"[^/]")
            i += 1
        elif c == "[":
            end = pattern.find("]", i + 2)
            if end < 0:
                out.append(re.escape(c))
                i += 1
                continue
            body = pattern[i + 1:end]
            if body.startswith("!"):
                body = "^" + body[1:]
            out.append(f"[{body}]")
            i = end + 1
        else:
            out.append(re.escape(c))
            i += 1
    return re.compile("".join(out) + r"\Z")


def _candidates(rel: str) -> List[str]:
    """The path and each of its parent directories: excluding a directory excludes its files."""
    parts = rel.split("/")
    return ["/".join(parts[: i + 1]) for i in range(len(parts))]


def glob_match(pattern: str, rel: str) -> bool:
    """Does `pattern` match the relative posix path `rel` or one of its parent directories?"""
    pattern = pattern.strip()
    if pattern.startswith("./"):
        pattern = pattern[2:]
    anchored = "/" in pattern.rstrip("/")
    pattern = pattern.strip("/")
    if not pattern:
        return False
    regex = _regex(pattern)
    for candidate in _candidates(rel):
        name = candidate if anchored else candidate.rsplit("/", 1)[-1]
        if regex.match(name):
            return True
    return False


def relative_posix(path: str, root: str) -> Optional[str]:
    """`path` relative to `root` with forward slashes, or None when it lies outside root."""
    rel = os.path.relpath(os.path.abspath(path), os.path.abspath(root))
    rel = rel.replace(os.sep, "/")  # relpath gives no empty or "." segments to drop
    return None if rel == ".." or rel.startswith("../") else rel


# --- .gitignore -----------------------------------------------------------------------------------

# negated, dir_only, anchored, regex; `re.Pattern`, not the string "re.Pattern[str]": a string in a subscript
# is a typing.ForwardRef, built with compile(), whose first call in a process costs ~10 M instructions (issue 15)
Rule = Tuple[bool, bool, bool, re.Pattern]


@lru_cache(maxsize=256)
def _gitignore_rules(directory: str) -> Tuple[Rule, ...]:
    try:
        with open(os.path.join(directory, ".gitignore"), encoding="utf-8", errors="replace") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return ()
    rules: List[Rule] = []
    for line in lines:
        line = line.rstrip()
        if not line or line.startswith("#"):
            continue
        negated = line.startswith("!")
        if negated or line.startswith("\\"):
            line = line[1:]
        dir_only = line.endswith("/")
        line = line.rstrip("/")
        anchored = "/" in line
        line = line.lstrip("/")
        if line:
            rules.append((negated, dir_only, anchored, _regex(line)))
    return tuple(rules)


def repo_root(start: str) -> str:
    """The closest directory at or above `start` that holds `.git`; `start` itself when none does."""
    directory = os.path.abspath(start)
    while True:
        if os.path.exists(os.path.join(directory, ".git")):
            return directory
        parent = os.path.dirname(directory)
        if parent == directory:
            return os.path.abspath(start)
        directory = parent


@lru_cache(maxsize=1024)
def _directory(directory: str) -> Tuple[str, Optional[Tuple[str, ...]], bool]:
    """(the repository root of `directory`, the directory's parts below it or None when it lies outside
    the root, whether the directory or one of its parents is ignored). What gitignored asks
    of every parent of a file is the same for all the files of a directory: once per directory, not
    once per file (a relpath and, for each level, every .gitignore from the root down)."""
    root = repo_root(directory)  # it stats `.git` at every level up (~5 stats a directory)
    rel = relative_posix(directory, root)
    if rel is None:
        return root, None, False
    parts = () if rel == "." else tuple(rel.split("/"))
    # each parent directory, from the root down
    return root, parts, any(_ignored_by_rules(root, parts[:depth], True) for depth in range(1, len(parts) + 1))


def gitignored(path: str) -> bool:
    """Is `path` ignored by a .gitignore between its directory and the repository root?

    Supports the common subset: comments, `!` negation, trailing `/` for directories,
    anchored patterns (with a `/`), `*`, `?`, `**` and `[...]`. As in git, a file
    inside an ignored directory cannot be re-included.
    """
    absolute = os.path.abspath(path)
    directory, name = os.path.split(absolute)
    if not name:  # the file system's root itself, its own repository root
        return _ignored_by_rules(repo_root(absolute), (".",), True)
    root, parents, ignored = _directory(directory)
    if parents is None or ignored:
        return ignored
    # only a rule for directories (a trailing `/`) asks whether the path is one: a stat then, not for every file
    return _ignored_by_rules(root, parents + (name,), lambda: os.path.isdir(absolute))


def _ignored_by_rules(root: str, parts: Sequence[str], is_dir: Union[bool, Callable[[], bool]]) -> bool:
    ignored = False
    # .gitignore files from the root down to the candidate's parent; later (deeper) rules win.
    for level in range(len(parts)):
        directory = os.path.join(root, *parts[:level])
        rel = "/".join(parts[level:])
        for negated, dir_only, anchored, regex in _gitignore_rules(directory):
            if dir_only:
                if not isinstance(is_dir, bool):
                    is_dir = is_dir()
                if not is_dir:
                    continue
            target = rel if anchored else parts[-1]
            if regex.match(target):
                ignored = not negated
    return ignored
