"""Command-line pieces shared by `check`, `baseline` and `audit`: the click options that
select rules and files (cli_settings.py turns them plus the discovered config into Settings).
Also the `config show` and `baseline create|update|prune` commands.
"""
from __future__ import annotations

import functools
import os
import sys
from typing import Any, Callable, Optional, Tuple

import click

from ctxlint.cli_settings import (EXIT_USAGE, FAIL_ON, FILES_PER_PROCESS, JOBS_AUTO, config_error_exit, resolve,
                                  resolve_tree)


def selection_options(func: Callable) -> Callable:
    """The options every linting command shares (rules, files, config, suppressions)."""
    options = [
        click.option("--config", "config_path", metavar="FILE",
                     help="Use this config file (.ctxlint.yaml or pyproject.toml) instead of discovery."),
        click.option("--isolated", is_flag=True, help="Ignore every config file; defaults and flags only."),
        click.option("--select", multiple=True, metavar="CODES",
                     help="Only these rules: codes, prefixes (CTX1) or names; comma-separated, repeatable. "
                          "Replaces the config's selection."),
        click.option("--extend-select", multiple=True, metavar="CODES",
                     help="Add rules to the config's selection."),
        click.option("--ignore", multiple=True, metavar="CODES", help="Skip these rules (same syntax as --select)."),
        click.option("--extend-exclude", multiple=True, metavar="GLOB",
                     help="Also skip files matching these globs (relative to the config file)."),
        click.option("--force-exclude", is_flag=True,
                     help="Apply excludes to files named on the command line too (as pre-commit passes them)."),
        click.option("--no-suppressions", is_flag=True,
                     help="Ignore every inline, file-level and annotation suppression (strict gates)."),
        click.option("--max-file-size", type=click.IntRange(min=1), default=None, metavar="BYTES",
                     help="Files larger than this are reported, not parsed (default 20 MiB)."),
    ]
    return functools.reduce(lambda f, option: option(f), reversed(options), func)


class JobsType(click.ParamType):
    """--jobs: a count of processes (0 or more) or "auto"; what cli_check's parser reads the same way."""

    name = "jobs"

    def convert(self, value: Any, param: Optional[click.Parameter], ctx: Optional[click.Context]) -> Any:
        if value == JOBS_AUTO or (isinstance(value, int) and value >= 0):
            return value
        try:
            number = int(value)
        except (TypeError, ValueError):
            number = -1
        if number < 0:
            self.fail(f"{value!r} is neither a number of processes (0 or more) nor 'auto'", param, ctx)
        return number


def jobs_option(func: Callable) -> Callable:
    """--jobs for `check` and `audit`; None (not given) means the config's `jobs`, "auto" by default."""
    return click.option(
        "--jobs", "-j", type=JobsType(), default=None, metavar="N|auto",
        help=f"Check files in N processes, this one included (0: one per CPU it may use). Default: the config's "
             f"`jobs`, else auto: one per CPU with at least {FILES_PER_PROCESS} files each, so runs of fewer than "
             f"{2 * FILES_PER_PROCESS} files and runs under pre-commit stay in one process. The output is the same "
             f"for every N.")(func)


# --- ctxlint config show --------------------------------------------------------------------------

@click.group("config")
def config_group() -> None:
    """Inspect the effective configuration."""


@config_group.command("show")
@click.argument("path", required=False, default=".")
@click.option("--fail-on", type=click.Choice(FAIL_ON), default=None, help="As `check --fail-on`.")
@click.option("--fail-if-empty/--no-fail-if-empty", default=None, help="As `check --fail-if-empty`.")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True)
@selection_options
def config_show(path: str, fail_on: Optional[str], fail_if_empty: Optional[bool], output_format: str,
                **options: Any) -> None:
    """Print the effective settings for PATH and where each came from (default, a file, or cli).

    Takes the options `check` does, so `config show --select CTX1 --fail-on warning` shows
    what that `check` would run with.
    """
    from ctxlint.config import show
    from ctxlint.reporters.config_table import write_config

    config, _ = resolve([path], fail_on=fail_on, fail_if_empty=fail_if_empty, **options)
    write_config(config.path, show(config), sys.stdout, output_format)


# --- ctxlint baseline create|update|prune ---------------------------------------------------------

@click.group("baseline")
def baseline_group() -> None:
    """Accept today's findings in a baseline file; `check --baseline FILE` then fails only on new ones."""


def _baseline_command(name: str, doc: str) -> Callable:
    def decorate(func: Callable) -> Callable:
        func.__doc__ = doc
        func = selection_options(func)
        func = click.option("--baseline", "baseline_file", default=".ctxlint-baseline.json", show_default=True,
                            metavar="FILE", help="The baseline file.")(func)
        func = click.argument("paths", nargs=-1, type=click.Path())(func)
        return baseline_group.command(name)(func)
    return decorate


def _lint_for_baseline(paths: Tuple[str, ...], options: dict):
    from ctxlint.config_source import ConfigError
    from ctxlint.discover import PathError
    from ctxlint.engine import InternalError, lint_paths
    from ctxlint.registry import SelectorError

    _, settings, tree = resolve_tree(list(paths) or ["."], **options)
    try:
        return lint_paths(list(paths) or ["."], settings, settings_for=tree)  # each file under its closest config
    except (PathError, SelectorError) as exc:
        raise click.UsageError(str(exc)) from None
    except ConfigError as exc:
        config_error_exit(exc)
    except InternalError as exc:
        click.echo(f"ctxlint: {exc}; please report this with the input file", err=True)
        sys.exit(EXIT_USAGE)


def _maintain(action: str, paths: Tuple[str, ...], baseline_file: str, options: dict, force: bool = False) -> None:
    from ctxlint import baseline
    from ctxlint.reporters.common import plural

    report = _lint_for_baseline(paths, options)
    root = os.path.dirname(os.path.abspath(baseline_file))
    reader = baseline.file_reader()
    try:
        if action == "create":
            if os.path.exists(baseline_file) and not force:
                raise click.UsageError(f"{baseline_file} exists: use `ctxlint baseline update`, or --force")
            data = baseline.create(report.findings, reader, root)
        else:
            old = baseline.load(baseline_file)
            data = (baseline.update if action == "update" else baseline.prune)(old, report.findings, reader, root)
        baseline.write(baseline_file, data)
    except baseline.BaselineError as exc:
        click.echo(f"ctxlint: {exc}", err=True)
        sys.exit(EXIT_USAGE)
    except OSError as exc:  # OutputError already names the file
        click.echo(f"ctxlint: {exc if exc.strerror is None else f'cannot write {baseline_file}: {exc.strerror}'}",
                   err=True)
        sys.exit(EXIT_USAGE)
    total = sum(entry["count"] for entry in data["entries"])
    click.echo(f"ctxlint: {baseline_file}: {plural(total, 'finding')} accepted "
               f"({len(data['entries'])} {'entry' if len(data['entries']) == 1 else 'entries'}) from {plural(len(report.files), 'file')}", err=True)


@_baseline_command("create", "Write a baseline accepting every current finding.")
@click.option("--force", is_flag=True, help="Overwrite an existing baseline file.")
def baseline_create(paths: Tuple[str, ...], baseline_file: str, force: bool, **options: Any) -> None:
    _maintain("create", paths, baseline_file, options, force)


@_baseline_command("update", "Accept the current findings: add new ones, drop fixed ones, keep notes.")
def baseline_update(paths: Tuple[str, ...], baseline_file: str, **options: Any) -> None:
    _maintain("update", paths, baseline_file, options)


@_baseline_command("prune", "Drop fixed findings from the baseline; never adds new ones.")
def baseline_prune(paths: Tuple[str, ...], baseline_file: str, **options: Any) -> None:
    _maintain("prune", paths, baseline_file, options)
