"""The JSON contract (version 1): findings with locations, and a summary.

Later tools rely on this shape: add fields, never rename or remove them.
"""
from __future__ import annotations

import json
from typing import Optional, TextIO

from ctxlint import __version__
from ctxlint.engine import Report
from ctxlint.reporters.context import ReportContext

VERSION = 1


def to_dict(report: Report, ctx: Optional[ReportContext] = None) -> dict:
    data = {
        "version": VERSION,
        "tool": {"name": "ctxlint", "version": __version__},
        "findings": [f.to_dict() for f in report.findings],
        "summary": {
            "files": len(report.files),
            "deployments": report.deployment_count,
            "errors": report.count("error"),
            "warnings": report.count("warning"),
            "infos": report.count("info"),
        },
    }
    if ctx is not None and ctx.suppressed:
        # Only when there are suppressions, so unsuppressed output keeps its exact shape.
        data["suppressed"] = [dict(f.to_dict(), justification=why) for f, why in ctx.suppressed]
    return data


def write(report: Report, stream: TextIO, ctx: Optional[ReportContext] = None) -> None:
    json.dump(to_dict(report, ctx), stream, indent=2, ensure_ascii=False)
    stream.write("\n")
