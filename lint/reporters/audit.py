"""The fleet audit (`ctxlint audit`) as a table, Markdown, JSON or CSV.

Every writer is `write(audit, stream)`. The table and Markdown show a model's
name on the first row of its group only; a model served with different pools
in different places gets a `*` on every one of its rows and a note under the
table listing its pools, since that is what an audit is for.
"""
from __future__ import annotations

import csv
import json
from typing import Callable, Dict, Iterator, List, Optional, TextIO, Tuple

from tabulate import tabulate

from ctxlint import __version__
from ctxlint.audit import Audit, AuditRow, PoolCell
from ctxlint.model import fmt
from ctxlint.reporters.common import plural, printable
from ctxlint.reporters.markdown import cell

VERSION = 1
HEADERS = ("model", "deployment", "file", "engine", "mode", "window", "engine ctx",
           "prefill pool", "decode pool", "headroom", "verdict", "worst", "findings")
ALIGN = ("left",) * 5 + ("right", "right", "left", "left", "right", "left", "left", "right")
MARK = "*"
INFERRED = "~"  # after a deployment's name: its model is inferred from what the file says, not stated


def _pool(pool: Optional[PoolCell], row: AuditRow, which: str) -> str:
    if which == "decode" and row.mode == "unified":
        return "-"  # the unified pool (prefill column) holds both phases
    return f"{fmt(pool.tokens)} {pool.origin}" if pool else "unknown"


def _headroom(row: AuditRow) -> str:
    if row.headroom is None:
        return "?"
    text = f"{row.headroom:.2f}x"
    if row.headroom < 1 <= round(row.headroom, 2):  # 0.999x is short of the promise: never shown as 1.00x
        text = f"{int(row.headroom * 1000) / 1000:.3f}x"
    return text


def labelled_rows(audit: Audit) -> Iterator[Tuple[AuditRow, str, str]]:
    """Each row with its model cell (the model on its group's first row, MARK when the model is
    served with other pools) and its worst-finding cell."""
    for group in audit.groups:
        for index, row in enumerate(group.rows):
            model = group.model if index == 0 else ""
            if row.pools_differ:
                model = f"{model} {MARK}".lstrip()
            yield row, model, f"{row.worst.rule} {row.worst.severity}" if row.worst else "-"


def _cells(audit: Audit) -> List[List[str]]:
    return [[printable(cell) for cell in (  # names, models and paths come from the files: one line a row
        model, (row.name or "-") + (f" {INFERRED}" if row.model_from else ""), f"{row.file}:{row.line}",
        " ".join(p for p in (row.engine, row.engine_version) if p) or "-",
        row.mode, _num(row.window), _context(row),
        _pool(row.prefill_pool, row, "prefill"), _pool(row.decode_pool, row, "decode"),
        _headroom(row), row.verdict, worst, str(len(row.findings)),
    )] for row, model, worst in labelled_rows(audit)]


def _num(value: Optional[int]) -> str:
    return fmt(value) if value is not None else "-"


def _context(row: AuditRow) -> str:
    """The context length the roles accept; a range when prefill and decode differ (`8,192-16,384`): the
    headroom and verdict hold each role to its own, so the smaller alone would read as the one held."""
    if row.engine_context is None:
        return "-"
    low = fmt(row.engine_context) + (" default" if row.context_is_default else "")
    if row.engine_context_max is None or row.engine_context_max == row.engine_context:
        return low
    return f"{low}-{fmt(row.engine_context_max)}" + (" default" if row.context_max_is_default else "")


def notes(audit: Audit) -> List[str]:
    """One line per model served with different pools, and one for the rows whose model is inferred."""
    lines = []
    for group in audit.groups:
        if not group.pools_differ:
            continue
        pools = []
        for rows in group.pools():
            first = [r for r in rows if (r.file, r.line) == (rows[0].file, rows[0].line)]
            others = len({(r.file, r.line) for r in rows}) - 1
            more = f" and {others} more" if others else ""
            if len(first) > 1:  # a SkyPilot any-of set: one deployment, alternative pools
                distinct = list(dict.fromkeys(_pool_pair(r) for r in first))
                options = " or ".join(distinct) if len(distinct) < 3 else \
                    f"{distinct[0]} to {distinct[-1]} ({len(distinct)} pools)"
                name = first[0].name.split(" [")[0]
                pools.append(f"{options} ({name}, one of {len(first)} options, at {rows[0].file}:{rows[0].line}"
                             f"{more})")
            else:
                pools.append(f"{_pool_pair(rows[0])} ({rows[0].name or '-'} at {rows[0].file}:{rows[0].line}{more})")
        lines.append(printable(f"{MARK} {group.model} is served with {len(pools)} different pools: {'; '.join(pools)}"))
    inferred = sum(1 for r in audit.rows if r.model_from)
    if inferred:
        lines.append(f"{INFERRED} the model of {plural(inferred, 'deployment')} is inferred from what the file says, "
                     "not stated (how: model_from in --format json or csv)")
    return lines


def _pool_pair(row: AuditRow) -> str:
    if row.mode == "unified":
        return _pool(row.prefill_pool, row, "prefill")
    return f"prefill {_pool(row.prefill_pool, row, 'prefill')} / decode {_pool(row.decode_pool, row, 'decode')}"


def totals_line(audit: Audit) -> str:
    t = audit.totals
    parts = [f"{plural(t['deployments'], 'deployment')} of {plural(t['models'], 'model')} "
             f"in {plural(t['files'], 'file')}"
             + (f" ({t['without_model_id']} without a model id)" if t["without_model_id"] else "")]
    worst = [f"{t['with_errors']} with errors", f"{t['with_warnings']} with warnings",
             f"{t['with_infos']} with infos only", f"{t['clean']} clean"]
    parts.append(", ".join(worst))
    # a banded row whose point is below the promise but whose band reaches it is not yet a shortfall: say so
    banded = sum(1 for r in audit.rows if r.headroom is not None and r.headroom < 1 and r.verdict == "within band")
    below = f"{t['below_window']} with a pool below what is promised" + (
        f" ({banded} of them only at the estimate's point, within its band)" if banded else "")
    parts.append(f"{below}, {t['unknown_headroom']} not known")
    if t["naming_a_model"]:
        share = 100 * t["with_verdict"] / t["naming_a_model"]
        text = (f"{t['with_verdict']} of the {t['naming_a_model']} that name a model have a capacity verdict "
                f"({share:.0f}%)")
        if t["with_memory_need"]:
            text += (f", {t['with_memory_need']} more the memory per GPU they need (device not stated; "
                     f"{100 * (t['with_verdict'] + t['with_memory_need']) / t['naming_a_model']:.0f}% in all)")
        parts.append(text)
    parts.append(f"{plural(t['models_with_differing_pools'], 'model')} served with different pools")
    if t["findings_outside_deployments"]:
        parts.append(f"{plural(t['findings_outside_deployments'], 'finding')} in files without a deployment "
                     "(see ctxlint check)")
    return "; ".join(parts)


def write_table(audit: Audit, stream: TextIO) -> None:
    if audit.rows:
        stream.write(tabulate(_cells(audit), headers=HEADERS, tablefmt="simple", disable_numparse=True,
                              colalign=ALIGN) + "\n\n")
    for line in notes(audit):
        stream.write(line + "\n")
    if audit.stacks:
        from ctxlint.reporters import audit_stacks

        audit_stacks.write_table(list(audit.stacks), stream)
    stream.write(f"total: {totals_line(audit)}\n")


def write_markdown(audit: Audit, stream: TextIO) -> None:
    stream.write("### ctxlint audit\n\n")
    if audit.rows:
        rows = [[cell(value) for value in row] for row in _cells(audit)]
        stream.write(tabulate(rows, headers=HEADERS, tablefmt="github", disable_numparse=True,
                              colalign=ALIGN) + "\n\n")
    for line in notes(audit):
        stream.write(f"- \\{cell(line)}\n")  # "- * x" would be a nested list
    if audit.stacks:
        from ctxlint.reporters import audit_stacks

        audit_stacks.write_markdown(list(audit.stacks), stream, cell)
    stream.write(f"\n**Total:** {cell(totals_line(audit))}\n")


def _pool_dict(pool: Optional[PoolCell]) -> Optional[dict]:
    return None if pool is None else {"tokens": pool.tokens, "origin": pool.origin, "role": pool.role}


def row_dict(row: AuditRow) -> dict:
    worst = row.worst
    return {
        "model": row.model, "model_from": row.model_from or None,
        "name": row.name, "file": row.file, "line": row.line,
        "engine": row.engine, "engine_version": row.engine_version, "mode": row.mode,
        "window": row.window, "engine_context": row.engine_context, "engine_context_max": row.engine_context_max,
        "prefill_pool": _pool_dict(row.prefill_pool), "decode_pool": _pool_dict(row.decode_pool),
        "promise": row.promise, "promise_from": row.promise_from or None,
        "headroom": None if row.headroom is None else round(row.headroom, 4),
        "verdict": row.verdict, "why_unknown": row.why_unknown or None, "names_model": row.names_model,
        "worst": None if worst is None else {"rule": worst.rule, "name": worst.name, "severity": worst.severity,
                                             "line": worst.line, "column": worst.column, "message": worst.message},
        "findings": {"errors": row.count("error"), "warnings": row.count("warning"), "infos": row.count("info")},
        "pools_differ": row.pools_differ,
    }


def write_json(audit: Audit, stream: TextIO) -> None:
    data = {
        "version": VERSION,
        "tool": {"name": "ctxlint", "version": __version__},
        "deployments": [row_dict(r) for r in audit.rows],
        "models": [{"model": g.model, "deployments": len(g.rows), "pools_differ": g.pools_differ}
                   for g in audit.groups],
        "outside_deployments": [f.to_dict() for f in audit.outside],
        "totals": dict(audit.totals),
    }
    if audit.stacks:  # only with gateways, so other audits keep their exact shape
        from ctxlint.reporters.audit_stacks import as_json

        data["stacks"] = as_json(list(audit.stacks))
    json.dump(data, stream, indent=2, ensure_ascii=False)
    stream.write("\n")


CSV_COLUMNS = ("model", "name", "file", "line", "engine", "engine_version", "mode", "window", "engine_context",
               "prefill_pool", "prefill_origin", "decode_pool", "decode_origin", "headroom", "verdict",
               "worst_rule", "worst_severity", "errors", "warnings", "infos", "pools_differ",
               "engine_context_max", "model_from")  # added last: a reader of the columns by position keeps its positions


def write_csv(audit: Audit, stream: TextIO) -> None:
    """One header row and one row per deployment, in the audit's order (no totals: load it anywhere)."""
    writer = csv.writer(stream, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for row in audit.rows:
        d = row_dict(row)
        pre, dec, worst = d["prefill_pool"] or {}, d["decode_pool"] or {}, d["worst"] or {}
        writer.writerow([
            row.model, row.name, row.file, row.line, row.engine, row.engine_version, row.mode,
            _blank(row.window), _blank(row.engine_context), pre.get("tokens", ""), pre.get("origin", ""),
            dec.get("tokens", ""), dec.get("origin", ""), _blank(d["headroom"]), row.verdict,
            worst.get("rule", ""), worst.get("severity", ""),
            d["findings"]["errors"], d["findings"]["warnings"], d["findings"]["infos"],
            "true" if row.pools_differ else "false", _blank(row.engine_context_max), row.model_from,
        ])


def _blank(value) -> str:
    return "" if value is None else str(value)


AUDIT_WRITERS: Dict[str, Callable[[Audit, TextIO], None]] = {
    "table": write_table, "markdown": write_markdown, "json": write_json, "csv": write_csv,
}
