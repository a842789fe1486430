"""The concise line format: `path:line:col: CTX101 [error] message (name)`."""
from __future__ import annotations

from typing import Optional, TextIO

from ctxlint.engine import Report
from ctxlint.findings import Finding
from ctxlint.reporters.common import printable
from ctxlint.reporters.context import ReportContext


def line(f: Finding) -> str:
    return printable(f"{f.file}:{f.line}:{f.column}: {f.rule} [{f.severity}] {f.message} ({f.name})")


def write(report: Report, stream: TextIO, ctx: Optional[ReportContext] = None) -> None:
    # ctx is accepted for a uniform reporter signature; the line format needs none of it.
    for f in report.findings:
        stream.write(line(f) + "\n")
