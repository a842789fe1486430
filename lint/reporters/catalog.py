"""The rule catalog: the table (`ctxlint rules`), one rule's page (`ctxlint explain`)
and the full reference (`ctxlint rules --format docs`, committed as docs/rules.md).

A page is built from the rule module alone: its constants (ID, name, severity,
scope, tags), its OPTIONS schema (types and defaults) and its docstring sections
(Why, Example (bad), Example (good), Options). `explain` and the reference use
the same `page()`, so the terminal and the docs never disagree.
"""
from __future__ import annotations

import json
import re
import textwrap
from typing import Dict, List, Sequence, TextIO, Tuple

from tabulate import tabulate

from ctxlint.lazyre import lazy_compile
from ctxlint.registry import RuleSpec

SECTION = lazy_compile(r"^(\S[^\n]*):$")  # a docstring section title at column 0, e.g. "Why:"
SCOPES = {"input": "input (each file's parse and schema diagnostics)",
          "deployment": "deployment (each deployment after the capacity stage)",
          "stack": "stack (each gateway or catalog route, joined to the engines behind it across the checked files)",
          "probe": "probe (a live run of `ctxlint probe` against an endpoint; `check` never reports it)"}
REGENERATE = "ctxlint rules --format docs > docs/rules.md"


def write_table(rules: Sequence[RuleSpec], stream: TextIO, fmt: str = "text") -> None:
    if fmt == "docs":
        write_reference(rules, stream)
        return
    if fmt == "json":
        json.dump([{"id": r.id, "name": r.name, "severity": r.severity, "tags": list(r.tags),
                    "summary": r.summary, "options": dict(r.options_schema)} for r in rules], stream, indent=2)
        stream.write("\n")
        return
    stream.write(_table(rules, "github" if fmt == "markdown" else "simple") + "\n")


def _table(rules: Sequence[RuleSpec], table_format: str) -> str:
    rows = [(r.id, r.name, r.severity + (" (security)" if "security" in r.tags else ""), r.summary)
            for r in rules]
    return tabulate(rows, headers=("ID", "name", "severity", "summary"), tablefmt=table_format)


def sections(doc: str) -> Tuple[str, str, Dict[str, str]]:
    """A rule docstring as (summary, text before the first section, {title: dedented body})."""
    lines = doc.strip().splitlines()
    summary, intro, found = lines[0].strip(), [], {}
    current: List[str] = intro
    for line in lines[1:]:
        match = SECTION.match(line)
        if match:
            current = found.setdefault(match.group(1), [])
        else:
            current.append(line)
    body = {title: textwrap.dedent("\n".join(text)).strip() for title, text in found.items()}
    return summary, textwrap.dedent("\n".join(intro)).strip(), body


def options_table(rule: RuleSpec, prose: str) -> str:
    """Options from the schema (type, default); the description from the schema or the docstring."""
    props = rule.options_schema.get("properties", {})
    if not props:
        return "None."
    rows = []
    for name, spec in props.items():
        described = re.search(rf"^{re.escape(name)}\b[^:\n]*:\s*(.*?)(?=\n\S+ \(|\Z)", prose, re.S | re.M)
        text = spec.get("description") or (" ".join(described.group(1).split()) if described else "")
        default = json.dumps(spec["default"]) if "default" in spec else "(none)"
        rows.append((f"`{name}`", spec.get("type", "any"), f"`{default}`", text))
    return tabulate(rows, headers=("option", "type", "default", "description"), tablefmt="github")


def page(rule: RuleSpec, heading: str = "") -> str:
    """One rule's reference page in Markdown; `heading` ("## ") prefixes its title line."""
    summary, intro, body = sections(rule.doc)
    parts = [f"{heading}{rule.id} {rule.name} [{rule.severity}]", summary]
    if intro:
        parts.append(intro)
    parts.append("\n".join([
        f"- Severity: {rule.severity} (default)",
        f"- Scope: {SCOPES.get(rule.scope, rule.scope)}",
        f"- Tags: {', '.join(rule.tags) if rule.tags else 'none'}",
    ]))
    sub = "### "  # also under a "## " title in the reference
    for title in ("Why", "Example (bad)", "Example (good)"):
        if body.get(title):
            parts.append(f"{sub}{title}\n\n{body[title]}")
    parts.append(f"{sub}Options\n\n{options_table(rule, body.get('Options', ''))}")
    rest = [t for t in body if t not in ("Why", "Example (bad)", "Example (good)", "Options")]
    parts.extend(f"{sub}{title}\n\n{body[title]}" for title in rest)
    return "\n\n".join(parts) + "\n"


def write_page(rule: RuleSpec, stream: TextIO) -> None:
    stream.write(page(rule))


def write_reference(rules: Sequence[RuleSpec], stream: TextIO) -> None:
    stream.write("# ctxlint rules\n\n"
                 f"<!-- Generated from the rule modules by `{REGENERATE}`; do not edit. -->\n\n"
                 "Each rule has an ID (`CTX` and three digits, the first one its category), a name, a "
                 "default severity and a scope. `ctxlint explain ID` prints the same page in a terminal.\n\n")
    stream.write(_table(rules, "github") + "\n")
    for rule in rules:
        stream.write("\n" + page(rule, heading="## "))
