"""The concise line format: `path:line:col: CTX101 [error] message (name)`."""
from __future__ import annotations

from typing import TextIO

from ctxlint.engine import Report


def write(report: Report, stream: TextIO) -> None:
    for f in report.findings:
        stream.write(f"{f.file}:{f.line}:{f.column}: {f.rule} [{f.severity}] {f.message} ({f.name})\n")
