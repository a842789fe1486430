"""Reporters: each writes a Report to a stream it is given. Selected by name."""
from __future__ import annotations

from typing import Callable, Dict, TextIO

from ctxlint.engine import Report
from ctxlint.reporters import json_report, text

Writer = Callable[[Report, TextIO], None]
REPORTERS: Dict[str, Writer] = {
    "text": text.write,
    "json": json_report.write,
}


def summary_line(report: Report) -> str:
    """One line for stderr: what was checked and what was found."""
    files, deps = len(report.files), len(report.deployments)
    counts = [(report.count(s), s) for s in ("error", "warning", "info")]
    found = ", ".join(f"{n} {word}{'s' if n != 1 else ''}" for n, word in counts if n)
    checked = f"{files} file{'s' if files != 1 else ''}, {deps} deployment{'s' if deps != 1 else ''}"
    return f"ctxlint: {found or 'no findings'} in {checked}"
