"""Where a ctxlint config is: the closest `.ctxlint.yaml`, `.ctxlint.yml` or `pyproject.toml` with `[tool.ctxlint]`.

`find_config` walks up from a start directory to the repository root (the first directory holding `.git`)
or the filesystem root; a `pyproject.toml` without the table is passed over, and one that never spells
"ctxlint" is not even parsed (reading TOML is ~3 ms of a one-file run). It is apart from config.py, which
validates and builds the effective config from the file found, because finding a file is I/O over the
directory tree and knows nothing of the settings.
"""
from __future__ import annotations

import os
import re
from typing import Dict, Optional

from ctxlint.config_source import ConfigError, toml_module

CONFIG_NAMES = (".ctxlint.yaml", ".ctxlint.yml")
PYPROJECT = "pyproject.toml"


def find_config(start: str = ".") -> Optional[str]:
    """The closest config file from `start` up to the repository root, or None."""
    directory = os.path.abspath(start)
    while True:
        found = config_in(directory)
        if found is not None:
            return found
        parent = os.path.dirname(directory)
        if os.path.exists(os.path.join(directory, ".git")) or parent == directory:
            return None
        directory = parent


def config_in(directory: str) -> Optional[str]:
    """The config file `directory` itself holds, or None."""
    for name in CONFIG_NAMES:
        candidate = os.path.join(directory, name)
        if os.path.isfile(candidate):
            return candidate
    candidate = os.path.join(directory, PYPROJECT)
    if os.path.isfile(candidate) and _has_tool_table(candidate):
        return candidate
    return None


class ConfigFinder:
    """`find_config` for many directories, each directory walked once.

    Every file of a run is checked under the config closest to it (as ruff does), so a 10,000-file
    tree asks for each of its directories; the answer of every directory a walk passes is kept,
    and a sibling's walk stops at their shared parent.
    """

    def __init__(self) -> None:
        self._closest: Dict[str, Optional[str]] = {}  # absolute directory -> its closest config

    def find(self, start: str) -> Optional[str]:
        directory = os.path.abspath(start)
        passed = []
        while directory not in self._closest:
            passed.append(directory)
            found = config_in(directory)
            parent = os.path.dirname(directory)
            if found is not None or os.path.exists(os.path.join(directory, ".git")) or parent == directory:
                self._closest[directory] = found
                break
            directory = parent
        answer = self._closest[directory]
        for seen in passed:
            self._closest[seen] = answer
        return answer


def _has_tool_table(path: str) -> bool:
    # A pyproject.toml without [tool.ctxlint] is not a ctxlint config: keep walking (as ruff does).
    # A file that never spells "ctxlint" has no such table; most projects' pyproject.toml is
    # such a file, and reading TOML (import included) is ~3 ms of a one-file pre-commit run.
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except OSError:
        raw = read_text(path).encode()  # raises the ConfigError that names the file
    if b"ctxlint" not in raw:
        return False
    tomllib = toml_module()
    try:
        return "ctxlint" in tomllib.loads(raw.decode("utf-8")).get("tool", {})
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        return bool(re.search(r"^\s*\[\s*tool\.ctxlint\b", read_text(path), re.M))


def read_text(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read config: {exc}", path) from exc
