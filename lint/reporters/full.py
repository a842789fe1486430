"""Findings grouped by file, each with its source line and a caret under the
offending value, then a per-file summary table."""
from __future__ import annotations

from itertools import groupby
from typing import List, Optional, TextIO

from tabulate import tabulate

from ctxlint.engine import Report
from ctxlint.findings import Finding
from ctxlint.lines import split_lines
from ctxlint.reporters.common import end_column, printable
from ctxlint.reporters.context import ReportContext

_RESET = "\x1b[0m"
_BOLD = "\x1b[1m"
_COLORS = {"error": "\x1b[31m", "warning": "\x1b[33m", "info": "\x1b[36m"}


def _paint(text: str, code: str, color: bool) -> str:
    return f"{code}{text}{_RESET}" if color else text


def _snippet(finding: Finding, source: Optional[str], color: bool) -> List[str]:
    """The finding's line and a caret line, or nothing when the text is unknown."""
    if source is None or finding.line < 1:
        return []
    lines = split_lines(source)
    if finding.line > len(lines):
        return []
    text = lines[finding.line - 1].rstrip("\r\n")
    start = max(finding.column, 1) - 1
    if start > len(text):
        return []
    end = max(min(end_column(finding), len(text) + 1) - 1, start + 1)
    # The line as printable() writes it (a control character in a comment or a quoted value must not
    # reach the terminal), and the caret under the same characters: an escape is several wide.
    before, marked = printable(text[:start]), printable(text[start:end])
    # Keep tabs in the padding so the caret lines up however the terminal expands them.
    pad = "".join(ch if ch == "\t" else " " for ch in before)
    gutter = " " * len(str(finding.line))
    carets = _paint("^" * max(len(marked), 1), _COLORS[finding.severity], color)
    return [f" {gutter} |", f" {finding.line} | {before}{marked}{printable(text[end:])}", f" {gutter} | {pad}{carets}"]


def _header(finding: Finding, color: bool) -> str:
    severity = _paint(finding.severity, _COLORS[finding.severity], color)
    return (f"{printable(finding.file)}:{finding.line}:{finding.column}: "
            f"{_paint(finding.rule, _BOLD, color)} [{severity}] {printable(finding.message)} ({finding.name})")


def write(report: Report, stream: TextIO, ctx: Optional[ReportContext] = None) -> None:
    ctx = ctx or ReportContext()
    rows = []
    for file, group in groupby(report.findings, key=lambda f: f.file):
        findings = list(group)
        stream.write(_paint(printable(file), _BOLD, ctx.color) + "\n")
        for finding in findings:
            stream.write(_header(finding, ctx.color) + "\n")
            for text in _snippet(finding, ctx.sources.get(file), ctx.color):
                stream.write(text + "\n")
            stream.write("\n")
        rows.append([printable(file)] + [sum(1 for f in findings if f.severity == s) for s in ("error", "warning", "info")])
    if rows:
        if len(rows) > 1:
            rows.append(["total"] + [sum(row[i] for row in rows) for i in (1, 2, 3)])
        stream.write(tabulate(rows, headers=("file", "errors", "warnings", "infos"), tablefmt="simple") + "\n")
