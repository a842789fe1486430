"""Reporters: each writes a Report to a stream it is given. Selected by name.

Every writer is `write(report, stream, ctx=None)`; `ctx` (a ReportContext)
carries rule metadata, the working directory, colour, file text for snippets
and suppressed findings. Without one, a default context is used.
"""
from __future__ import annotations

import importlib
from typing import Callable, Dict, Optional, TextIO

from ctxlint.engine import Report
from ctxlint.reporters.common import LEVELS, summary_line
from ctxlint.reporters.context import ReportContext, read_sources

Writer = Callable[[Report, TextIO, Optional[ReportContext]], None]


def _lazy(module: str) -> Writer:
    """A writer that imports its module on first call: a plain-text run should not pay for
    tabulate (~30 ms with its importlib.metadata), XML and the SARIF rule metadata."""
    def write(report: Report, stream: TextIO, ctx: Optional[ReportContext] = None) -> None:
        importlib.import_module(f"ctxlint.reporters.{module}").write(report, stream, ctx)

    write.__qualname__ = write.__name__ = f"{module}.write"
    return write


REPORTERS: Dict[str, Writer] = {
    "text": _lazy("text"),
    "concise": _lazy("concise"),
    "full": _lazy("full"),
    "json": _lazy("json_report"),
    "sarif": _lazy("sarif"),
    "github": _lazy("github"),
    "junit": _lazy("junit"),
    "gitlab": _lazy("gitlab"),
    "markdown": _lazy("markdown"),
}

__all__ = ["LEVELS", "REPORTERS", "ReportContext", "Writer", "read_sources", "summary_line"]
