"""Run the CLI in-process and capture stdout, stderr and the exit code."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

from click.testing import CliRunner

from ctxlint.cli import main


@dataclass
class Run:
    code: int
    out: str
    err: str


def run(args: Sequence[str], stdin: Optional[bytes] = None) -> Run:
    runner = CliRunner()
    result = runner.invoke(main, list(args), input=stdin, catch_exceptions=False)
    return Run(result.exit_code, result.stdout, result.stderr)
