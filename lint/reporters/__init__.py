"""Reporters: each writes a Report to a stream it is given. Selected by name.

Every writer is `write(report, stream, ctx=None)`; `ctx` (a ReportContext)
carries rule metadata, the working directory, colour, file text for snippets
and suppressed findings. Without one, a default context is used.
"""
from __future__ import annotations

from typing import Callable, Dict, Optional, TextIO

from ctxlint.engine import Report
from ctxlint.reporters import full, github, gitlab, json_report, junit, markdown, sarif, text
from ctxlint.reporters.common import LEVELS, summary_line
from ctxlint.reporters.context import ReportContext, read_sources

Writer = Callable[[Report, TextIO, Optional[ReportContext]], None]
REPORTERS: Dict[str, Writer] = {
    "text": text.write,
    "full": full.write,
    "json": json_report.write,
    "sarif": sarif.write,
    "github": github.write,
    "junit": junit.write,
    "gitlab": gitlab.write,
    "markdown": markdown.write,
}

__all__ = ["LEVELS", "REPORTERS", "ReportContext", "Writer", "read_sources", "summary_line"]
