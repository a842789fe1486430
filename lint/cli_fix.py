"""`ctxlint check --fix` and `--diff`: the options, and what the check does with them.

Kept out of cli.py so that the check command gains two decorator lines and one call.
"""
from __future__ import annotations

import sys
from typing import Any, Callable, Dict, Optional, Sequence

from ctxlint.cli_settings import UsageError, echo_err

FIX_HELP = ("Rewrite values the engine refuses where the fix is mechanical and certain (SGLang 128K -> 128Ki, "
            "--switch=false -> --no-switch, --switch=true -> --switch), then report what remains. Never changes "
            "a capacity setting.")
DIFF_HELP = "Print those fixes as a unified diff instead of writing them; exit 1 when there is one."


def fix_options(command: Callable) -> Callable:
    import click

    command = click.option("--diff", "fix_diff", is_flag=True, help=DIFF_HELP)(command)
    return click.option("--fix", "fix_write", is_flag=True, help=FIX_HELP)(command)


def take_fix_mode(options: Dict[str, Any], paths: Sequence[str]) -> Optional[str]:
    """Remove the fix options from `options`: None, "fix" or "diff" (--diff wins: it never writes)."""
    write, diff = options.pop("fix_write", False), options.pop("fix_diff", False)
    mode = "diff" if diff else "fix" if write else None
    if mode and "-" in paths:
        raise UsageError(f"--{mode} needs files: stdin ('-') cannot be rewritten")
    return mode


def run_fixes(mode: str, report: Any, relint: Callable[[], Any]) -> Any:
    """--diff: print the diff and exit. --fix: write the files and return the report of a new check."""
    from ctxlint.fixes import plan, write

    planned = plan(report.findings)
    count, files = sum(f.applied for f in planned), len(planned)
    noun = "finding" if count == 1 else "findings"
    where = f"in {files} file{'' if files == 1 else 's'}"
    if mode == "diff":
        for fixed in planned:
            sys.stdout.write(fixed.diff())
        echo_err(f"ctxlint: {count} {noun} fixable with --fix {where}" if count else "ctxlint: nothing to fix")
        sys.exit(1 if count else 0)
    for fixed in planned:
        write(fixed)
    echo_err(f"ctxlint: fixed {count} {noun} {where}" if count else "ctxlint: nothing to fix")
    return relint() if count else report
