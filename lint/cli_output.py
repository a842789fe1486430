"""What `ctxlint check` does after the run: where each report goes, the lines on stderr
and the exit code. Kept out of cli.py so that module stays a list of commands.

Exit codes: 0 clean (or --exit-zero); 1 findings at or above --fail-on, or no file
checked with --fail-if-empty; 2 usage or output errors.
"""
from __future__ import annotations

import os
import sys
from typing import Callable, Optional, Sequence, Tuple

from ctxlint.cli_settings import EXIT_CLEAN, EXIT_FINDINGS, EXIT_USAGE, UsageError, echo_err

# --statistics replaces the report on stdout; these formats have a statistics form.
STATISTICS_FORMATS = ("text", "full", "concise", "json")


def stdout_format(formats: Sequence[str], outputs: Sequence[str]) -> Optional[str]:
    """The one format written to stdout (None when all go to files); more than one is a usage error."""
    if len(outputs) > len(formats):
        raise UsageError("more --output files than --format options")
    to_stdout = [fmt for index, fmt in enumerate(formats) if index >= len(outputs) or outputs[index] == "-"]
    if len(to_stdout) > 1:  # two documents back to back parse as neither
        raise UsageError(f"--format {' and '.join(to_stdout)} would both write to stdout: "
                         "give all but one an --output FILE")
    return to_stdout[0] if to_stdout else None


def check_output_paths(outputs: Sequence[str]) -> None:
    """Refuse a missing directory before the run, so nothing is half written (exit 2)."""
    for path in outputs:
        if path == "-":
            continue
        folder = os.path.dirname(os.path.abspath(path))
        if os.path.isdir(path):
            raise UsageError(f"--output {path}: is a directory")
        if not os.path.isdir(folder):
            raise UsageError(f"--output {path}: directory {os.path.dirname(path)} does not exist")


def write_atomically(path: str, write) -> None:
    """Write via a temporary file and a rename (readers never see half a report), with the
    mode `open()` would give; an unwritable path is a usage error (exit 2), not a traceback."""
    from ctxlint.atomic_write import OutputError, write_atomically as write_file

    try:
        write_file(path, write)
    except OutputError as exc:
        echo_err(f"ctxlint: {exc}")
        sys.exit(EXIT_USAGE)


def source_root(targets: Sequence[str]) -> str:
    """The repository root of the first path checked (the working directory outside a repository)."""
    from ctxlint.globs import repo_root

    first = next((p for p in targets if p != "-"), ".")
    root = repo_root(first if os.path.isdir(first) else os.path.dirname(first) or ".")
    return root if os.path.exists(os.path.join(root, ".git")) else os.getcwd()


def report_context(report, settings, formats: Sequence[str], root: Optional[str], fail_on: str):
    from ctxlint import __version__
    from ctxlint.registry import all_rules
    from ctxlint.reporters.context import ReportContext, read_sources

    color = sys.stdout.isatty() and "NO_COLOR" not in os.environ or "FORCE_COLOR" in os.environ
    return ReportContext(
        rules=all_rules(), cwd=os.getcwd(), source_root=root, color=color,
        sources=read_sources(report.files, settings.max_file_size) if "full" in formats else {},
        tool_version=__version__, suppressed=tuple(report.suppressed),
        step_summary_path=os.environ.get("GITHUB_STEP_SUMMARY") if "github" in formats else None,
        fail_on=fail_on, width=_terminal_width() if "concise" in formats else 0)  # only concise cuts lines


def _terminal_width() -> int:
    import shutil

    return shutil.get_terminal_size().columns  # $COLUMNS first, then the terminal, else 80


def write_reports(report, formats: Sequence[str], outputs: Sequence[str], ctx, statistics: bool) -> None:
    """Each format to its --output file, or to stdout (--statistics replaces the stdout report)."""
    from ctxlint.reporters import REPORTERS

    for index, fmt in enumerate(formats):
        if index < len(outputs) and outputs[index] != "-":
            write_atomically(outputs[index], lambda stream, fmt=fmt: REPORTERS[fmt](report, stream, ctx))
        elif statistics:
            from ctxlint.reporters.statistics import write_json, write_text

            (write_json if fmt == "json" else write_text)(report, sys.stdout)
        else:
            REPORTERS[fmt](report, sys.stdout, ctx)


def check_statistics(statistics: bool, on_stdout: Optional[str]) -> None:
    """A chosen stdout format without a statistics form is a usage error (the default
    `github` under GitHub Actions gets the text form)."""
    if statistics and on_stdout is not None and on_stdout not in STATISTICS_FORMATS:
        raise UsageError(f"--statistics replaces the report on stdout, and --format {on_stdout} has no "
                         f"statistics form: write it to a file with --output, or use --format text or json")


def finish(report, config, targets: Sequence[str], lines: Tuple[str, ...], quiet: bool, exit_zero: bool,
           fail_on_of: Optional[Callable[[str], str]] = None) -> None:
    """Print the stderr lines (only warnings with --quiet) and exit with the run's code: a finding fails
    the run at or above the fail-on of its file's own config (`fail_on_of`), else `config`'s."""
    from ctxlint.reporters import summary_line

    if not quiet:
        for line in lines + (summary_line(report),):
            echo_err(line)
    empty_fails = False
    if not report.files:
        excluded = f" ({report.excluded} excluded)" if report.excluded else ""
        echo_err(f"ctxlint: warning: no file to check in {', '.join(targets)}{excluded}"
                 + ("" if config.fail_if_empty else "; --fail-if-empty makes this exit 1"))
        empty_fails = config.fail_if_empty
    if exit_zero:
        sys.exit(EXIT_CLEAN)
    if fail_on_of is None:
        failed = report.failed(config.fail_on)
    else:
        from ctxlint.findings import at_least

        failed = any(at_least(f.severity, fail_on_of(f.file)) for f in report.findings)
    sys.exit(EXIT_FINDINGS if empty_fails or failed else EXIT_CLEAN)
