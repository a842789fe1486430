"""Which files a check reads: explicit files as given, directories recursively, less the excluded ones; and the
groups (by directory) it checks them in.

The engine (ctxlint.engine) and the --jobs runner (ctxlint.parallel) both choose and group files here, so a run's
files and blocks never depend on --jobs.
"""
from __future__ import annotations

import os
import stat
from typing import TYPE_CHECKING, Dict, Iterable, List, NoReturn, Optional, Sequence

from ctxlint.globs import gitignored, glob_match, relative_posix
from ctxlint.file_reader import PROPERTIES_NAMES, SHELL_SUFFIXES, UNIT_SUFFIXES, YAML_SUFFIXES

# Shell scripts too: most public `vllm serve` launchers are `start_vllm.sh` files, HPC ones Slurm batch
# scripts (`serve.slurm`; file_reader.is_shell_script).
# systemd units too (`vllm.service` on a bare-metal host): only one that runs an engine is a deployment
PATTERNS = YAML_SUFFIXES + SHELL_SUFFIXES + UNIT_SUFFIXES  # the loader's own: YAML/JSON, scripts and units
# Hidden files are skipped (`.pre-commit-config.yaml`, `.gitlab-ci.yml` start no engine), but dstack's default
# configuration is one: `dstack apply` without `-f` reads `.dstack.yml` (dstackai/dstack@511c318c8a7672fb2a92504
# 1bfc2d7301a26272e:src/dstack/_internal/cli/services/configurators/__init__.py); `.dstack.yaml` is its twin.
HIDDEN_READ = (".dstack.yml", ".dstack.yaml")

if TYPE_CHECKING:
    from ctxlint.engine import Report, Settings, SettingsFor


class PathError(ValueError):
    """A path given on the command line does not exist (a usage error, exit 2)."""


def discover(paths: Iterable[str]) -> List[str]:
    """Expand directories into their YAML/JSON files and shell scripts, sorted; keep files as given.

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
    """os.walk's order (a directory's files by name, then its subdirectories by name, depth first),
    read with os.scandir: a file the listing already shows to be regular needs no stat of its own."""
    out = []
    pending = [root]
    while pending:
        directory = pending.pop()
        try:
            with os.scandir(directory) as listing:
                entries = list(listing)
        except OSError as error:
            _unlistable(error)
        files, subdirs = [], []
        for entry in entries:
            try:
                is_dir = entry.is_dir()  # as os.walk sorts an entry (a link to a directory included)
            except OSError:
                is_dir = False
            (subdirs if is_dir else files).append(entry)
        for entry in sorted(files, key=_name):
            name = entry.name
            if (name.lower().endswith(PATTERNS) or name in PROPERTIES_NAMES) and \
                    (not name.startswith(".") or name.lower() in HIDDEN_READ):
                if not _regular(entry) and _special(entry.path):
                    continue
                out.append(entry.path if root != "." else os.path.relpath(entry.path))
        # not hidden ones, and not through links (no loops); reversed: popped in name order
        pending.extend(entry.path for entry in sorted(subdirs, key=_name, reverse=True)
                       if not entry.name.startswith(".") and not _link(entry))
    return out


def _name(entry: os.DirEntry) -> str:
    return entry.name


def _regular(entry: os.DirEntry) -> bool:
    try:
        return entry.is_file()
    except OSError:
        return False


def _link(entry: os.DirEntry) -> bool:
    try:
        return entry.is_symlink()
    except OSError:
        return False


def _special(path: str) -> bool:
    """A FIFO, socket or device (also behind a symlink). Broken links are kept: the loader names them."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def _unlistable(error: OSError) -> NoReturn:  # never returns: _walk reads no listing after it
    raise PathError(f"cannot read directory {error.filename}: {error.strerror or error}")


def files_to_check(paths: Sequence[str], settings: Settings, report: Optional[Report] = None,
                   settings_for: Optional[SettingsFor] = None) -> List[str]:
    """The files a run reads, in order, with each file's excludes applied (counted on `report`)."""
    explicit = set(paths)
    out = []
    for path in discover(paths):
        if path != "-" and (path not in explicit or settings.force_exclude) and \
                skipped(path, settings_for(path) if settings_for is not None else settings):
            if report is not None:
                report.excluded += 1
            continue
        out.append(path)
    return out


def skipped(path: str, settings: Settings) -> bool:
    """Would a directory walk skip `path` (exclude globs, or .gitignore when respected)?"""
    return _excluded(path, settings) or (settings.respect_gitignore and gitignored(path))


def _excluded(path: str, settings: Settings) -> bool:
    if not settings.exclude:
        return False
    rel = relative_posix(path, settings.root)
    target = rel if rel is not None else path.replace("\\", "/").rsplit("/", 1)[-1]
    return any(glob_match(pattern, target) for pattern in settings.exclude)


PAIRING_BLOCK = 256  # files of one directory checked together, at most


def directory_of(path: str) -> str:
    """The key files are grouped by: the absolute directory ("-" for stdin)."""
    return "-" if path == "-" else os.path.dirname(os.path.abspath(path))


def by_directory(files: Sequence[str]) -> List[List[str]]:
    """Files grouped by directory, in first-seen order, in blocks of at most PAIRING_BLOCK.

    A block is checked together, since the prefill and decode halves of one deployment
    may sit in sibling files. Serial and parallel runs use the same blocks, so the
    findings never depend on --jobs; halves more than a block apart in a huge
    directory are not paired.
    """
    groups: Dict[str, List[str]] = {}
    for path in files:
        groups.setdefault(directory_of(path), []).append(path)
    return [group[i:i + PAIRING_BLOCK] for group in groups.values() for i in range(0, len(group), PAIRING_BLOCK)]


def size_limits(files: Sequence[str], settings_for: Optional[SettingsFor],
                stdin_filename: str = "-") -> Optional[Dict[str, int]]:
    """Each file's own --max-file-size (its closest config's; stdin's under `stdin_filename`), for the run's
    index of files (run_classes.RunClasses): None when one config applies to all."""
    if settings_for is None:
        return None
    return {stdin_filename if path == "-" else path: settings_for(path).max_file_size for path in files}
