"""`ctxlint audit --format concise`: the audit table cut to the terminal's width.

The full table is hundreds of columns wide on a real fleet (long model ids and file
paths, thirteen columns). This keeps what ranks the risk (model, deployment, file,
headroom, verdict, worst finding), cuts the long text columns to fit, the model and
deployment at their end and the file at its start (the file name and line stay),
and wraps the notes and the totals. `table`, `json` and `csv` keep everything.
"""
from __future__ import annotations

import textwrap
from typing import List, Sequence, TextIO

from tabulate import tabulate

from ctxlint.audit import Audit
from ctxlint.reporters.audit import _headroom, labelled_rows, notes, totals_line
from ctxlint.reporters.common import printable

HEADERS = ("model", "deployment", "file", "headroom", "verdict", "worst")
ALIGN = ("left", "left", "left", "right", "left", "left")
SHRINKABLE = (0, 1, 2)  # model, deployment, file
MIN_WIDTH = 10
GAP = 2  # tabulate's "simple" format puts two spaces between columns
HEADER_PADDING = 2
ELLIPSIS = "…"


def _cells(audit: Audit) -> List[List[str]]:
    return [[printable(cell) for cell in (model, row.name or "-", f"{row.file}:{row.line}", _headroom(row), row.verdict,
                                          worst)]
            for row, model, worst in labelled_rows(audit)]


def _widths(rows: Sequence[Sequence[str]], width: int) -> List[int]:
    """Column widths that fit `width`: the widest text column gives up a character at a time."""
    # tabulate's "simple" format makes a column at least its header plus 2 wide
    floor = [len(header) + HEADER_PADDING for header in HEADERS]
    widths = [max([floor[i]] + [len(str(r[i])) for r in rows]) for i in range(len(HEADERS))]
    while width > 0 and sum(widths) + GAP * (len(widths) - 1) > width:
        column = max(SHRINKABLE, key=lambda i: widths[i])
        if widths[column] <= max(MIN_WIDTH, floor[column]):
            break  # narrower than this says nothing; let the terminal wrap
        widths[column] -= 1
    return widths


def _cut(text: str, size: int, keep_end: bool) -> str:
    if len(text) <= size:
        return text
    return ELLIPSIS + text[len(text) - size + 1:] if keep_end else text[:size - 1] + ELLIPSIS


def write(audit: Audit, stream: TextIO, width: int) -> None:
    if audit.rows:
        rows = _cells(audit)
        widths = _widths(rows, width)
        cut = [[_cut(value, widths[i], keep_end=i == 2) if i in SHRINKABLE else value
                for i, value in enumerate(row)] for row in rows]
        stream.write(tabulate(cut, headers=HEADERS, tablefmt="simple", disable_numparse=True,
                              colalign=ALIGN) + "\n\n")
    for line in notes(audit) + [f"total: {totals_line(audit)}"]:
        wrapped = textwrap.wrap(line, width, subsequent_indent="  ", break_on_hyphens=False) if width > 0 else [line]
        stream.write("\n".join(wrapped) + "\n")
