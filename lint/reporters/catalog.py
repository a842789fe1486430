"""The rule catalog as a table (`ctxlint rules`) and one rule's page (`ctxlint explain`)."""
from __future__ import annotations

import json
from typing import Sequence, TextIO

from tabulate import tabulate

from ctxlint.registry import RuleSpec


def write_table(rules: Sequence[RuleSpec], stream: TextIO, fmt: str = "text") -> None:
    if fmt == "json":
        json.dump([{"id": r.id, "name": r.name, "severity": r.severity, "tags": list(r.tags),
                    "summary": r.summary, "options": dict(r.options_schema)} for r in rules], stream, indent=2)
        stream.write("\n")
        return
    rows = [(r.id, r.name, r.severity + (" (security)" if "security" in r.tags else ""), r.summary)
            for r in rules]
    table_format = "github" if fmt == "markdown" else "simple"
    stream.write(tabulate(rows, headers=("ID", "name", "severity", "summary"), tablefmt=table_format) + "\n")


def write_page(rule: RuleSpec, stream: TextIO) -> None:
    stream.write(f"{rule.id} {rule.name} [{rule.severity}]\n\n{rule.doc}\n")
