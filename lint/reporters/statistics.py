"""`check --statistics`: how many findings each rule reported, most first (as ruff's
`--statistics`), as aligned text or as JSON."""
from __future__ import annotations

import json
from collections import Counter
from typing import Dict, List, TextIO

from ctxlint.engine import Report
from ctxlint.findings import SEVERITY_RANK


def counts(report: Report) -> List[Dict[str, object]]:
    """One entry per rule with findings: code, name, severity, count; most findings first, then by code. The
    severity is the highest of the rule's findings (CTX301 gives a warning where the release is unknown), whatever
    their order."""
    found = Counter(f.rule for f in report.findings)
    first = {}
    for f in report.findings:
        known = first.get(f.rule)
        if known is None or SEVERITY_RANK[f.severity] > SEVERITY_RANK[known.severity]:
            first[f.rule] = f
    return [{"code": rule, "name": first[rule].name, "severity": first[rule].severity, "count": count}
            for rule, count in sorted(found.items(), key=lambda item: (-item[1], item[0]))]


def write_text(report: Report, stream: TextIO) -> None:
    rows = counts(report)
    width = max((len(str(row["count"])) for row in rows), default=1)
    for row in rows:
        stream.write(f"{row['count']:>{width}}  {row['code']}  {'[' + str(row['severity']) + ']':<9}  {row['name']}\n")


def write_json(report: Report, stream: TextIO) -> None:
    json.dump(counts(report), stream, indent=2)
    stream.write("\n")
