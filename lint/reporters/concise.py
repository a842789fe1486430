"""The terminal format: one line per finding, cut to the terminal's width.

`path:line:col: CTX101 [error] message…` where the message is shortened with an
ellipsis so the line fits (the location, rule and severity are always kept). The
messages run to hundreds of characters, with the numbers first, so the cut keeps
what the finding is about; `text`, `full` and `json` keep the whole message.
Like ruff's `concise` and yamllint's formats it is opt-in: the default `text`
never cuts, so scripts and editors see every word.
"""
from __future__ import annotations

from typing import Optional, TextIO

from ctxlint.engine import Report
from ctxlint.findings import Finding
from ctxlint.reporters.common import printable, shared_places
from ctxlint.reporters.context import ReportContext

ELLIPSIS = "…"
MIN_MESSAGE = 20  # below this the message says nothing: keep this much even past the width
WORD = 15  # cut at a space within this many characters of the width


def line(f: Finding, width: int, named: bool = False) -> str:
    who = f"[{f.deployment}] " if named else ""  # another deployment's finding shares its place (text.line)
    head = printable(f"{f.file}:{f.line}:{f.column}: {f.rule} [{f.severity}] {who}")
    message = printable(f.message)
    full = f"{message} ({f.name})"
    if width <= 0 or len(head) + len(full) <= width:
        return head + full
    room = max(width - len(head) - len(ELLIPSIS), MIN_MESSAGE)
    cut = message[:room]
    if " " in cut[-WORD:] and message[room:room + 1] not in ("", " "):
        cut = cut.rsplit(" ", 1)[0]  # end on a whole word when one ends near the width
    return head + cut.rstrip(" ,;:") + ELLIPSIS


def write(report: Report, stream: TextIO, ctx: Optional[ReportContext] = None) -> None:
    width = ctx.width if ctx is not None else 0
    named = shared_places(report.findings)
    for f in report.findings:
        stream.write(line(f, width, id(f) in named) + "\n")
