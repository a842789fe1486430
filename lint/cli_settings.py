"""What the command line needs without click: usage errors, stderr lines, and turning the
selection options plus the discovered config into Settings.

`ctxlint check` with plain arguments (what pre-commit and most CI jobs pass) runs without
importing click at all (cli_check.py, issue 15); the click commands call the same functions.
A UsageError raised here becomes click's usage error (exit 2) in the click commands.
"""
from __future__ import annotations

import os
import sys
from typing import Any, Optional, Sequence, Tuple

EXIT_CLEAN, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2
FAIL_ON = ("error", "warning", "info", "never")


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
    config_tree.SettingsTree giving each file the config closest to it (None with --config or --isolated,
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
    from ctxlint.config_tree import SettingsTree

    stdin_dir = os.path.dirname(stdin_filename) if stdin_filename != "-" else "."
    return config, settings, SettingsTree(config, settings, finder, overrides, start, stdin_dir or ".", changes)


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
