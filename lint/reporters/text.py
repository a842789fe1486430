"""The concise line format: `path:line:col: CTX101 [error] message (name)`, the deployment before the
message (`[error] [prod-vllm] message`) where another deployment's finding shares the rule and place."""
from __future__ import annotations

from typing import Optional, TextIO

from ctxlint.engine import Report
from ctxlint.findings import Finding
from ctxlint.reporters.common import printable, shared_places
from ctxlint.reporters.context import ReportContext


def line(f: Finding, named: bool = False) -> str:
    """`named`: the deployment is said before the message (another deployment's finding shares its place)."""
    who = f"[{f.deployment}] " if named else ""
    return printable(f"{f.file}:{f.line}:{f.column}: {f.rule} [{f.severity}] {who}{f.message} ({f.name})")


def write(report: Report, stream: TextIO, ctx: Optional[ReportContext] = None) -> None:
    # ctx is accepted for a uniform reporter signature; the line format needs none of it.
    named = shared_places(report.findings)
    for f in report.findings:
        stream.write(line(f, id(f) in named) + "\n")
