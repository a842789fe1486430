"""What the command line needs without click: usage errors, stderr lines, and turning the
selection options plus the discovered config into Settings.

`ctxlint check` with plain arguments (what pre-commit and most CI jobs pass) runs without
importing click at all (cli_check.py, issue 15); the click commands call the same functions.
A UsageError raised here becomes click's usage error (exit 2) in the click commands.
"""
from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any, Dict, Mapping, Optional, Sequence, Tuple

if TYPE_CHECKING:
    from ctxlint.config import Config
    from ctxlint.config_discovery import ConfigFinder

EXIT_CLEAN, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2
FAIL_ON = ("error", "warning", "info", "never")


# --- how many processes ---------------------------------------------------------------------------
# Here, not in parallel.py, because every `check` asks before it knows whether it needs the parallel
# runner: a one-file run must decide to stay serial without importing it (or multiprocessing).
JOBS_AUTO = "auto"  # the --jobs default (and the `jobs` config key's)
# A second process costs ~0.2-0.5 s of CPU (a forked worker's own first-seen work, the fork, reading the run's files
# for its lookups; more where workers are spawned) and starts only after the parent's first chunk, while a file
# costs ~1.3-1.6 ms (13.0 s for 10,000 files, 1.64 s for 1,000 in one process): the second process pays for itself
# once its half of the work outweighs its cost, at ~300 files (0.2 s) to ~600-800 files (0.5 s) by that CPU
# accounting. "auto" gives each process at least this many files, so a second one starts at 800 files, at or above
# that break-even (wall-clock rounds on the shared VM could not resolve it: benchmarks/README.md, 29th pass).
FILES_PER_PROCESS = 400


def available_cpus() -> int:
    """The CPUs this process may run on (its affinity mask, as a container's cpuset limits it), else all."""
    try:
        return max(1, len(os.sched_getaffinity(0)))  # type: ignore[attr-defined]
    except (AttributeError, OSError):  # macOS, Windows
        return max(1, os.cpu_count() or 1)


def under_pre_commit() -> bool:
    """pre-commit sets PRE_COMMIT=1 for its hooks (pre-commit/pre-commit@a9bba55a:pre_commit/commands/run.py) and
    runs several copies of a hook at once over parts of the files unless the hook is `require_serial`
    (pre-commit/pre-commit@a9bba55a:pre_commit/lang_base.py, run_xargs), so "auto" stays serial there: processes of
    our own would only compete with them. ctxlint's own hook is require_serial; a local hook may not be."""
    return os.environ.get("PRE_COMMIT") == "1"


def processes_for(jobs: Any, files: int) -> int:
    """The processes (the parent included) a run of `files` files uses for `--jobs`: N as given, 0 one per available
    CPU, "auto" one per available CPU with at least FILES_PER_PROCESS files each (serial under pre-commit)."""
    if jobs == JOBS_AUTO:
        return 1 if under_pre_commit() else max(1, min(available_cpus(), files // FILES_PER_PROCESS))
    return available_cpus() if jobs == 0 else max(1, int(jobs))


def serial_for_sure(jobs: Any, paths: Sequence[str]) -> bool:
    """Known before any file is discovered: the run stays in one process (`processes_for` gives 1), so it need
    not import the parallel runner. Paths that are all files (as pre-commit passes them) count as they stand."""
    if jobs == JOBS_AUTO and not under_pre_commit():
        return len(paths) < 2 * FILES_PER_PROCESS and not any(p != "-" and os.path.isdir(p) for p in paths)
    return processes_for(jobs, 0) == 1


class UsageError(Exception):
    """A bad combination of options or paths: exit 2 with click's usage message."""


def echo_err(message: str) -> None:
    """One line on stderr, as click.echo(message, err=True) writes it."""
    sys.stderr.write(f"{message}\n")
    sys.stderr.flush()


def split_list(values: Sequence[str]) -> Tuple[str, ...]:
    """--select A,B --select C -> (A, B, C)."""
    return tuple(item.strip() for value in values for item in value.split(",") if item.strip())


def resolve(paths: Sequence[str], config_path: Optional[str], isolated: bool, select: Sequence[str],
            extend_select: Sequence[str], ignore: Sequence[str], extend_exclude: Sequence[str],
            force_exclude: bool, no_suppressions: bool, max_file_size: Optional[int],
            fail_on: Optional[str] = None, fail_if_empty: Optional[bool] = None, **tree: Any):
    """(Config, Settings) of the first path's config with the flags on top; exits 2 on errors."""
    return resolve_tree(paths, config_path, isolated, select, extend_select, ignore, extend_exclude, force_exclude,
                        no_suppressions, max_file_size, fail_on, fail_if_empty, **tree)[:2]


def resolve_tree(paths: Sequence[str], config_path: Optional[str], isolated: bool, select: Sequence[str],
                 extend_select: Sequence[str], ignore: Sequence[str], extend_exclude: Sequence[str],
                 force_exclude: bool, no_suppressions: bool, max_file_size: Optional[int],
                 fail_on: Optional[str] = None, fail_if_empty: Optional[bool] = None, stdin_filename: str = "-",
                 keep_deployments: bool = True):
    """(Config, Settings, tree): the first path's config and Settings (the run's: fail-if-empty, ...), and a
    SettingsTree (below) giving each file the config closest to it (None with --config or --isolated,
    where one config applies to all). Exits 2 on a config error."""
    from ctxlint.records import replace

    from ctxlint.config import ConfigError, load_config
    from ctxlint.config_discovery import ConfigFinder
    from ctxlint.config_merge import merge_cli

    start = _start_dir(paths, stdin_filename)
    finder = ConfigFinder()  # the run's one walk up, shared with every other directory's
    overrides = dict(select=split_list(select) or None, extend_select=split_list(extend_select) or None,
                     ignore=split_list(ignore) or None, extend_exclude=split_list(extend_exclude) or None,
                     fail_on=fail_on, fail_if_empty=fail_if_empty,
                     disallow_suppressions=True if no_suppressions else None, max_file_size=max_file_size)
    changes = dict(force_exclude=force_exclude, keep_deployments=keep_deployments)
    try:
        config = merge_cli(load_config(start, config_path, isolated, finder), **overrides)
        settings = replace(config.settings(), **changes)
    except ConfigError as exc:
        config_error_exit(exc)
    if config_path or isolated:
        return config, settings, None
    stdin_dir = os.path.dirname(stdin_filename) if stdin_filename != "-" else "."
    return config, settings, SettingsTree(config, settings, finder, overrides, start, stdin_dir or ".", changes)


# --- each file's settings ------------------------------------------------------------------------
# A run over several projects (`ctxlint audit repoA repoB`, a tree whose teams each keep a .ctxlint.yaml)
# checks every file under the config closest to its directory, as ruff does; the closest file wins whole
# (merged over the defaults, never over a farther config), and the flags go on top of every one. A
# directory has one closest config, so the files the engine checks together (one directory's, with
# their sibling context) never mix two. The run's config is reused for every directory that finds the
# same file, so a tree with one config runs exactly as before. It lives here, not in a module of its own,
# because every `check` builds one: importing one more module is ~0.7 ms of a one-file run.
class SettingsTree:
    """`tree(path)` -> the engine Settings for that file ("-": stdin's); raises ConfigError on a bad config."""

    def __init__(self, run: Config, run_settings: Any, finder: ConfigFinder, overrides: Mapping[str, Any],
                 start: str, stdin_dir: str, changes: Mapping[str, Any]) -> None:
        """`run`, `run_settings`: the first path's config with the flags on top, and its Settings with
        `changes` applied (force_exclude, ...), which every other config's Settings get too."""
        self._finder, self._overrides, self._start, self._changes = finder, dict(overrides), start, dict(changes)
        self._stdin_dir = os.path.abspath(stdin_dir)
        self._run = run.path
        self._by_config: Dict[Optional[str], Tuple[Config, Any]] = {run.path: (run, run_settings)}
        self._by_dir: Dict[str, Tuple[Config, Any]] = {}

    def __call__(self, path: str) -> Any:
        return self.config_of(path)[1]

    def fail_on(self, path: str) -> str:
        """The fail-on of the config the file was checked under (the flag's when given: it is merged into every
        one); the run's for a file the run did not check (a finding in a mounted file of another directory)."""
        found = self._by_dir.get(self._stdin_dir if path == "-" else os.path.dirname(os.path.abspath(path)))
        return (found or self._by_config[self._run])[0].fail_on

    def config_of(self, path: str) -> Tuple[Config, Any]:
        directory = self._stdin_dir if path == "-" else os.path.dirname(os.path.abspath(path))
        found = self._by_dir.get(directory)
        if found is None:
            found = self._by_dir[directory] = self._load(self._finder.find(directory))
        return found

    def _load(self, config_path: Optional[str]) -> Tuple[Config, Any]:
        found = self._by_config.get(config_path)
        if found is None:
            from ctxlint.records import replace

            from ctxlint.config import load_config
            from ctxlint.config_merge import merge_cli

            # no config in the chain: the defaults, rooted as the run's would be without one
            config = merge_cli(load_config(self._start, config_path, isolated=config_path is None), **self._overrides)
            found = self._by_config[config_path] = (config, replace(config.settings(), **self._changes))
        return found


def config_error_exit(exc: Exception) -> None:
    """A bad config (the run's, or one a file of the run is checked under): exit 2 naming it."""
    echo_err(f"ctxlint: config error: {exc}")
    sys.exit(EXIT_USAGE)


def _start_dir(paths: Sequence[str], stdin_filename: str = "-") -> str:
    """Config discovery starts at the first path checked (its directory for a file); for stdin alone, at
    --stdin-filename's directory (the working directory without one)."""
    first = next((p for p in paths if p != "-"), None)
    if first is None:
        return (os.path.dirname(stdin_filename) if stdin_filename != "-" else "") or "."
    return first if os.path.isdir(first) else (os.path.dirname(first) or ".")


def apply_baseline(report: Any, baseline_file: str) -> str:
    """Hide baselined findings on `report`; returns the line to print on stderr."""
    from ctxlint import baseline
    from ctxlint.reporters.common import plural

    try:
        data = baseline.load(baseline_file)
    except baseline.BaselineError as exc:
        echo_err(f"ctxlint: {exc}")
        sys.exit(EXIT_USAGE)
    root = os.path.dirname(os.path.abspath(baseline_file))
    new, matched, fixed = baseline.apply(report.findings, data, baseline.file_reader(), root)
    report.findings[:] = new
    line = f"ctxlint: baseline {baseline_file}: {plural(matched, 'known finding')} hidden"
    if fixed:
        line += f", {plural(fixed, 'baselined finding')} fixed since (run `ctxlint baseline prune`)"
    return line
