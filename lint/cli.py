"""The command line. click lives here only; everything else returns data.

Exit codes: 0 no finding at or above --fail-on; 1 findings at or above it;
2 usage or configuration error (bad option, missing path, unknown rule).
"""
from __future__ import annotations

import json
import sys
from typing import List, Optional, Sequence, Tuple

import click

from ctxlint import __version__

FAIL_ON = ("error", "warning", "info", "never")
EXIT_CLEAN, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


def _split(values: Sequence[str]) -> Tuple[str, ...]:
    """--select A,B --select C -> (A, B, C)."""
    return tuple(item.strip() for value in values for item in value.split(",") if item.strip())


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="ctxlint")
def main() -> None:
    """ctxlint: refuse LLM deployments whose promises exceed their capacity."""


@main.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text",
              show_default=True, help="Output format (written to stdout).")
@click.option("--fail-on", type=click.Choice(FAIL_ON), default="error", show_default=True,
              help="Lowest severity that makes the exit code 1.")
@click.option("--select", multiple=True, metavar="CODES",
              help="Only these rules: codes, prefixes (CTX1) or names; comma-separated, repeatable.")
@click.option("--ignore", multiple=True, metavar="CODES", help="Skip these rules (same syntax as --select).")
@click.option("--stdin-filename", default="-", metavar="NAME",
              help="File name to report for input read from '-' (stdin).")
@click.option("--max-file-size", type=click.IntRange(min=1), default=None, metavar="BYTES",
              help="Files larger than this are reported, not parsed (default 20 MiB).")
def check(paths: Tuple[str, ...], output_format: str, fail_on: str, select: Tuple[str, ...],
          ignore: Tuple[str, ...], stdin_filename: str, max_file_size: Optional[int]) -> None:
    """Check deployment files and directories (default: the current directory; '-' reads stdin)."""
    from ctxlint.discover import PathError
    from ctxlint.engine import InternalError, Settings, lint_paths
    from ctxlint.registry import SelectorError
    from ctxlint.reporters import REPORTERS, summary_line

    settings = Settings(select=_split(select), ignore=_split(ignore))
    if max_file_size:
        settings = Settings(settings.select, settings.ignore, settings.rule_options, max_file_size)
    stdin = _read_stdin() if "-" in paths else None
    try:
        report = lint_paths(list(paths) or ["."], settings, stdin=stdin, stdin_filename=stdin_filename)
    except (PathError, SelectorError) as exc:
        raise click.UsageError(str(exc)) from None
    except InternalError as exc:
        click.echo(f"ctxlint: {exc}; please report this with the input file", err=True)
        sys.exit(EXIT_USAGE)
    REPORTERS[output_format](report, sys.stdout)
    click.echo(summary_line(report), err=True)
    sys.exit(EXIT_FINDINGS if report.failed(fail_on) else EXIT_CLEAN)


def _read_stdin() -> bytes:
    stream = getattr(sys.stdin, "buffer", None)
    try:
        return stream.read() if stream is not None else b""
    except (OSError, ValueError):  # stdin closed
        return b""


@main.command("rules")
@click.option("--format", "output_format", type=click.Choice(["text", "markdown", "json"]), default="text",
              show_default=True)
def rules_command(output_format: str) -> None:
    """List every rule: ID, name, default severity, summary."""
    from ctxlint.registry import all_rules
    from ctxlint.reporters.catalog import write_table

    write_table(all_rules(), sys.stdout, output_format)


@main.command()
@click.argument("rule")
def explain(rule: str) -> None:
    """Print a rule's documentation (by ID or name)."""
    from ctxlint.registry import all_rules, find
    from ctxlint.reporters.catalog import write_page

    spec = find(rule)
    if spec is None:
        known: List[str] = [s.id for s in all_rules()]
        raise click.UsageError(f"unknown rule '{rule}' (known: {', '.join(known)})")
    write_page(spec, sys.stdout)


@main.command()
def schema() -> None:
    """Print the JSON Schema of the native manifest (for yaml-language-server)."""
    from ctxlint.schema import load_schema

    click.echo(json.dumps(load_schema("manifest.schema.json"), indent=2))
