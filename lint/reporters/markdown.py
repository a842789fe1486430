"""A Markdown table for pull-request comments and GitHub step summaries."""
from __future__ import annotations

from typing import List, Optional, Sequence, TextIO

from ctxlint.engine import Report
from ctxlint.findings import Finding
from ctxlint.reporters.common import printable, summary_line
from ctxlint.reporters.context import ReportContext

HEADER = ["| severity | rule | location | message |", "|---|---|---|---|"]


def cell(text: str) -> str:
    """Text that stays inside one table cell and is not read as HTML."""
    text = text.replace("\\", "\\\\").replace("|", "\\|")
    text = text.replace("<", "&lt;")  # "<string>" would otherwise vanish as an unknown HTML tag
    # Tables are one line per row: a newline would end the row.
    return "<br>".join(part for part in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"))


def row(f: Finding) -> str:
    location = f"{f.file}:{f.line}:{f.column}"
    return f"| {f.severity} | {f.rule} {cell(f.name)} | {cell(printable(location))} | {cell(printable(f.message))} |"


def table(findings: Sequence[Finding]) -> List[str]:
    return HEADER + [row(f) for f in findings]


def write(report: Report, stream: TextIO, ctx: Optional[ReportContext] = None) -> None:
    suppressed = len(ctx.suppressed) if ctx else 0
    title = summary_line(report)
    if suppressed:
        title += f" ({suppressed} suppressed)"
    stream.write(f"### {cell(title)}\n")
    if report.findings:
        stream.write("\n" + "\n".join(table(report.findings)) + "\n")
