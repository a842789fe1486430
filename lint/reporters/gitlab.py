"""GitLab Code Quality: a JSON array the merge-request widget reads and
de-duplicates by fingerprint."""
from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, TextIO

from ctxlint.engine import Report
from ctxlint.reporters.common import LEVELS, fingerprints, root_relative
from ctxlint.reporters.context import ReportContext


def to_list(report: Report, ctx: ReportContext) -> List[Dict[str, Any]]:
    return [{
        "description": f"{f.rule} {f.message} ({f.name})",
        "check_name": f.rule,
        "fingerprint": fingerprint,
        "severity": LEVELS[f.severity].gitlab,
        # Relative to the repository root (ctx.source_root), as GitLab matches it to the diff.
        "location": {"path": root_relative(f.file, ctx.cwd, ctx.source_root or ctx.cwd),
                     "lines": {"begin": max(f.line, 1)}},
    } for f, fingerprint in zip(report.findings, fingerprints(report.findings, ctx.cwd))]


def write(report: Report, stream: TextIO, ctx: Optional[ReportContext] = None) -> None:
    # GitLab rejects a byte-order mark; the stream's encoding is the caller's, json is ASCII-safe.
    json.dump(to_list(report, ctx or ReportContext()), stream, indent=2, ensure_ascii=False)
    stream.write("\n")
