"""SARIF 2.1.0, shaped for GitHub code scanning: one run, every rule's metadata,
results on the offending scalar, stable fingerprints, suppressions kept."""
from __future__ import annotations

import json
import textwrap
from functools import lru_cache
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, TextIO, Tuple

from ctxlint.engine import Report
from ctxlint.findings import Finding
from ctxlint.lazyre import lazy_compile
from ctxlint.links import rule_url
from ctxlint.registry import RuleSpec
from ctxlint.reporters.common import LEVELS, end_column, fingerprints, one_line, root_relative
from ctxlint.reporters.context import ReportContext

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://ctxlint.dev"  # the domain the manifest schema's $id already uses
FINGERPRINT_KEY = "ctxlint/v1"
SRCROOT = "%SRCROOT%"
MAX_DESCRIPTION = 1024  # GitHub rejects longer short/full descriptions
# Only rules tagged "security" carry a security-severity: GitHub turns those into
# security alerts. CTX102 is a cross-tenant data exposure, hence "high" by default.
SECURITY_SEVERITY = {"error": "8.0", "warning": "5.0", "info": "2.0"}
_SECTION = lazy_compile(r"^([A-Z][A-Za-z ()]*):$")


def _clip(text: str) -> str:
    text = " ".join(text.split())
    if len(text) <= MAX_DESCRIPTION:
        return text
    return text[:MAX_DESCRIPTION - 1].rsplit(" ", 1)[0] + "…"


@lru_cache(maxsize=None)  # rule docstrings are fixed; dedenting all of them cost ~7 ms per report
def _sections(doc: str) -> Tuple[Tuple[str, str], ...]:
    """A rule docstring as (heading, dedented body) pairs; the summary has heading ""."""
    sections: List[Tuple[str, List[str]]] = [("", [])]
    for line in doc.splitlines():
        match = _SECTION.match(line)
        if match:
            sections.append((match.group(1), []))
        else:
            sections[-1][1].append(line)
    return tuple((head, textwrap.dedent("\n".join(body)).strip()) for head, body in sections)


def _markdown(rule: RuleSpec) -> str:
    parts = []
    for head, body in _sections(rule.doc):
        if head and body:
            parts.append(f"**{head}**\n\n{body}")
        elif body:
            parts.append(body)
    parts.append(f"Run `ctxlint explain {rule.id}` for this page offline.")
    return "\n\n".join(parts)


def _descriptor(rule: RuleSpec) -> Dict[str, Any]:
    why = dict(_sections(rule.doc)).get("Why", "") or rule.summary
    properties: Dict[str, Any] = {
        "tags": list(rule.tags),
        # Rules compare declared numbers, so a finding is either right or the input
        # is wrong; a rule module may lower this with PRECISION.
        "precision": getattr(rule.module, "PRECISION", "very-high"),
        "problem.severity": LEVELS[rule.severity].problem,
    }
    if "security" in rule.tags:
        properties["security-severity"] = getattr(rule.module, "SECURITY_SEVERITY",
                                                  SECURITY_SEVERITY[rule.severity])
    return {
        "id": rule.id,
        "name": rule.name,
        "shortDescription": {"text": _clip(rule.summary)},
        "fullDescription": {"text": _clip(why)},
        "helpUri": rule_url(rule.id),
        "help": {"text": rule.doc, "markdown": _markdown(rule)},
        "defaultConfiguration": {"level": LEVELS[rule.severity].sarif},
        "properties": properties,
    }


def _region(f: Finding) -> Dict[str, int]:
    line, column = max(f.line, 1), max(f.column, 1)  # SARIF is 1-based; 0 fails the upload
    if one_line(f):
        return {"startLine": line, "startColumn": column, "endLine": line, "endColumn": end_column(f)}
    return {"startLine": line, "startColumn": column, "endLine": max(f.end_line, line),
            "endColumn": max(f.end_column, 1)}


def _artifact(file: str, cwd: str, root: str) -> Dict[str, str]:
    uri = root_relative(file, cwd, root)
    if Path(uri).is_absolute():
        return {"uri": Path(uri).as_uri()}
    return {"uri": uri, "uriBaseId": SRCROOT}


def _location(f: Finding, cwd: str, root: str) -> Dict[str, Any]:
    location: Dict[str, Any] = {"physicalLocation": {"artifactLocation": _artifact(f.file, cwd, root),
                                                     "region": _region(f)}}
    logical = []
    if f.deployment:
        logical.append({"name": f.deployment, "fullyQualifiedName": f"ModelDeployment/{f.deployment}",
                        "kind": "object"})
    if f.path:
        prefix = f"ModelDeployment/{f.deployment}/" if f.deployment else ""
        logical.append({"name": f.path, "fullyQualifiedName": prefix + f.path, "kind": "member"})
    if logical:
        location["logicalLocations"] = logical
    return location


def _result(f: Finding, index: Optional[int], fingerprint: str, cwd: str, root: str,
            justification: Optional[str]) -> Dict[str, Any]:
    result: Dict[str, Any] = {"ruleId": f.rule}
    if index is not None:
        result["ruleIndex"] = index
    result.update({
        "level": LEVELS[f.severity].sarif,
        "message": {"text": f.message},
        "locations": [_location(f, cwd, root)],
        "partialFingerprints": {FINGERPRINT_KEY: fingerprint},
    })
    if justification is not None:
        result["suppressions"] = [{"kind": "inSource", "justification": justification}]
    return result


def to_dict(report: Report, ctx: ReportContext, success: bool = True) -> Dict[str, Any]:
    index = {rule.id: i for i, rule in enumerate(ctx.rules)}
    entries: Sequence[Tuple[Finding, Optional[str]]] = (
        [(f, None) for f in report.findings] + [(f, why) for f, why in ctx.suppressed])
    prints = fingerprints([f for f, _ in entries], ctx.cwd)
    source_root = ctx.source_root or ctx.cwd
    root = Path(source_root).resolve().as_uri().rstrip("/") + "/"
    cwd = Path(ctx.cwd).resolve().as_uri().rstrip("/") + "/"
    run = {
        "tool": {"driver": {
            "name": "ctxlint",
            "version": ctx.tool_version,
            "semanticVersion": ctx.tool_version,
            "informationUri": INFORMATION_URI,
            "rules": [_descriptor(rule) for rule in ctx.rules],
        }},
        "automationDetails": {"id": "ctxlint/"},
        # columns count characters (code points), as editors do; without this a reader assumes UTF-16
        # code units (SARIF 2.1.0, 3.14.17) and moves a result right of an emoji one column too far
        "columnKind": "unicodeCodePoints",
        "originalUriBaseIds": {SRCROOT: {"uri": root}},
        "invocations": [{"executionSuccessful": success, "workingDirectory": {"uri": cwd}}],
        # Always present, even when clean: code scanning rejects a run without it.
        "results": [_result(f, index.get(f.rule), fp, ctx.cwd, source_root, why)
                    for (f, why), fp in zip(entries, prints)],
    }
    return {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}


def write(report: Report, stream: TextIO, ctx: Optional[ReportContext] = None) -> None:
    json.dump(to_dict(report, ctx or ReportContext()), stream, indent=2, ensure_ascii=False)
    stream.write("\n")
