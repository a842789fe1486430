"""The JSON contract (version 1): findings with locations, and a summary.

Later tools rely on this shape: add fields, never rename or remove them.
"""
from __future__ import annotations

import json
from typing import TextIO

from ctxlint import __version__
from ctxlint.engine import Report

VERSION = 1


def to_dict(report: Report) -> dict:
    return {
        "version": VERSION,
        "tool": {"name": "ctxlint", "version": __version__},
        "findings": [f.to_dict() for f in report.findings],
        "summary": {
            "files": len(report.files),
            "deployments": len(report.deployments),
            "errors": report.count("error"),
            "warnings": report.count("warning"),
            "infos": report.count("info"),
        },
    }


def write(report: Report, stream: TextIO) -> None:
    json.dump(to_dict(report), stream, indent=2, ensure_ascii=False)
    stream.write("\n")
