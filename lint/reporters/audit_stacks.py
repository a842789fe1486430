"""The audit's stack view: one line per route and engine role it reaches (text and markdown), or a
`stacks` list in JSON. Only written when the checked files hold a gateway or catalog."""
from __future__ import annotations

from typing import List, TextIO

from tabulate import tabulate

from ctxlint.audit_stacks import StackRow
from ctxlint.reporters.common import printable

HEADERS = ["gateway route", "file", "promise", "caps", "engine role", "context", "pool", "worst"]


def _num(value) -> str:
    return "-" if value is None else f"{value:,}"


def cells(rows: List[StackRow]) -> List[List[str]]:
    out = []
    for row in rows:
        worst = f"{row.worst.rule} {row.worst.severity}" if row.worst else "-"
        head = [f"{row.gateway} {row.route}", f"{row.file}:{row.line}", _num(row.promise), "; ".join(row.caps) or "-"]
        if not row.targets:
            out.append(head + [f"(not joined: {row.unresolved})" if row.unresolved else "(no backend)", "-", "-",
                               worst])
            continue
        for index, t in enumerate(row.targets):
            context = _num(t.context) + (" default" if t.context_is_default else "")
            pool = f"{_num(t.pool)} {t.pool_origin}".strip()
            first = head if index == 0 else ["", "", "", ""]
            out.append(first + [f"{t.deployment} {t.role}", context, pool, worst if index == 0 else ""])
    return [[printable(cell) for cell in row] for row in out]  # routes, names and paths come from the files


def write_table(rows: List[StackRow], stream: TextIO) -> None:
    stream.write("\nstacks (gateway route -> engine roles -> pools):\n")
    stream.write(tabulate(cells(rows), headers=HEADERS, tablefmt="simple", disable_numparse=True) + "\n")


def write_markdown(rows: List[StackRow], stream: TextIO, cell) -> None:
    stream.write("\n#### Stacks: gateway route -> engine roles -> pools\n\n")
    table = [[cell(value) for value in line] for line in cells(rows)]
    stream.write(tabulate(table, headers=HEADERS, tablefmt="github", disable_numparse=True) + "\n")


def as_json(rows: List[StackRow]) -> list:
    return [{
        "gateway": r.gateway, "route": r.route, "file": r.file, "line": r.line, "promise": r.promise,
        "caps": list(r.caps), "unresolved": r.unresolved or None, "evidence": list(r.evidence),
        "engines": [{"deployment": t.deployment, "file": t.file, "line": t.line, "role": t.role,
                     "context": t.context, "context_is_default": t.context_is_default, "pool": t.pool,
                     "pool_origin": t.pool_origin or None} for t in r.targets],
        "worst": None if r.worst is None else {"rule": r.worst.rule, "severity": r.worst.severity,
                                               "message": r.worst.message},
    } for r in rows]
