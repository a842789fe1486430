"""GitHub Actions workflow-command annotations, most severe first.

The runner keeps only 10 annotations per level per step and drops the rest
silently, so findings past ten are printed as plain log lines with a count, and
the full table goes to the step summary when its path is given.
"""
from __future__ import annotations

from typing import Dict, List, Optional, TextIO

from ctxlint.engine import Report
from ctxlint.findings import Finding
from ctxlint.reporters import markdown
from ctxlint.reporters.common import (LEVELS, end_column, most_severe_first, one_line, plural, printable,
                                      root_relative, summary_line)
from ctxlint.reporters.context import ReportContext
from ctxlint.reporters.text import line as text_line

PER_LEVEL = 10  # annotations the runner shows per level per step
SUMMARY_LIMIT = 1024 * 1024  # bytes GitHub accepts per step summary


def escape_data(text: str) -> str:
    """A command's message, as actions/toolkit's command.ts escapes it."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A command's property value: the message escapes plus ':' and ','."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(f: Finding, file: Optional[str] = None) -> str:
    """One workflow command; `file` is the path the runner resolves against the repository
    (default: the finding's file as given)."""
    props = [("file", printable(file or f.file)), ("line", str(f.line))]
    if one_line(f):
        # The runner drops an annotation whose col/endColumn span several lines.
        props += [("col", str(f.column)), ("endColumn", str(end_column(f)))]
    else:
        props += [("endLine", str(max(f.end_line, f.line)))]
    props.append(("title", f"ctxlint ({f.rule})"))
    joined = ",".join(f"{key}={escape_property(value)}" for key, value in props)
    # The location is repeated in the message so the raw log stays readable.
    return f"::{LEVELS[f.severity].github} {joined}::{escape_data(text_line(f))}"


def _summary(report: Report) -> str:
    lines = [f"### {markdown.cell(summary_line(report))}", ""]
    if report.findings:
        lines += markdown.table(most_severe_first(report.findings))
    text = "\n".join(lines) + "\n"
    if len(text.encode("utf-8")) > SUMMARY_LIMIT:
        # Keep whole rows and say how many were cut rather than let GitHub reject the summary.
        kept: List[str] = []
        size = 0
        for row in lines:
            size += len(row.encode("utf-8")) + 1
            if size > SUMMARY_LIMIT - 200:
                break
            kept.append(row)
        omitted = len(lines) - len(kept)
        text = "\n".join(kept) + f"\n\n{omitted} more rows omitted (step summary limit).\n"
    return text


def write(report: Report, stream: TextIO, ctx: Optional[ReportContext] = None) -> None:
    ctx = ctx or ReportContext()
    shown: Dict[str, int] = {}
    overflow: List[Finding] = []
    for f in most_severe_first(report.findings):
        level = LEVELS[f.severity].github
        if shown.get(level, 0) < PER_LEVEL:
            shown[level] = shown.get(level, 0) + 1
            stream.write(annotation(f, root_relative(f.file, ctx.cwd, ctx.source_root or ctx.cwd)) + "\n")
        else:
            overflow.append(f)
    if overflow:
        counts = {}
        for f in overflow:
            counts[f.severity] = counts.get(f.severity, 0) + 1
        more = ", ".join(plural(n, f"more {s}") for s, n in counts.items())
        where = "; all findings are in the step summary" if ctx.step_summary_path else ""
        stream.write(f"ctxlint: {more} beyond the first {PER_LEVEL} per level "
                     f"(GitHub shows {PER_LEVEL} annotations per level per step){where}:\n")
        for f in overflow:
            stream.write(text_line(f) + "\n")
    if ctx.step_summary_path:
        # Append: other steps' tools write to the same file.
        with open(ctx.step_summary_path, "a", encoding="utf-8") as summary:
            summary.write(_summary(report))
