"""What rules yield (Problem), what the engine reports (Finding), and the input
diagnostics that the loader and the adapters record for the CTX0xx rules."""
from __future__ import annotations

from typing import Any, Dict, Optional, Tuple

from ctxlint.model import Source

from .records import field, record

SEVERITIES = ("error", "warning", "info")


@record(frozen=True)
class Fix:
    """A mechanical, certain edit of the finding's own span: `old` (the text there as the
    engine read it) becomes `new`. `ctxlint check --fix` applies it only where the file still
    holds `old` at that span, so quoting or a moved value is left alone, never guessed at."""

    old: str
    new: str
SEVERITY_RANK = {"info": 1, "warning": 2, "error": 3}


@record(frozen=True)
class Diagnostic:
    """An input problem found while reading a file (not a capacity problem).

    `kind` is the NAME of the CTX0xx rule that reports it (e.g. "duplicate-key"),
    so the loader never needs to know rule IDs.
    """

    kind: str
    message: str
    source: Source
    deployment: Optional[str] = None
    fix: Optional[Fix] = None
    severity: Optional[str] = None  # below the rule's own where the finding is less sure (CTX301, release unknown)


@record(frozen=True)
class Problem:
    """What a rule's check() yields: a message and the value it is about."""

    message: str
    source: Source
    deployment: Optional[str] = None
    evidence: Tuple[str, ...] = ()  # stack rules: how the route was joined to the engines, step by step
    fix: Optional[Fix] = None
    severity: Optional[str] = None  # None: the rule's SEVERITY; a config's severity for the rule overrides both


@record(frozen=True, order=True)
class Finding:
    """A problem stamped by the engine with the rule's identity and severity.

    Field order is the sort order: file, line, column, rule.
    """

    file: str
    line: int
    column: int
    rule: str
    name: str = field(compare=False)
    severity: str = field(compare=False)
    message: str = field(compare=False)
    path: str = field(default="", compare=False)
    deployment: Optional[str] = field(default=None, compare=False)
    end_line: int = field(default=0, compare=False)
    end_column: int = field(default=0, compare=False)
    tags: Tuple[str, ...] = field(default=(), compare=False)
    evidence: Tuple[str, ...] = field(default=(), compare=False)
    fix: Optional[Fix] = field(default=None, compare=False)  # `check --fix` (never in reports' contracts)

    def to_dict(self) -> Dict[str, Any]:
        data = {
            "rule": self.rule,
            "name": self.name,
            "severity": self.severity,
            "message": self.message,
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line or self.line,
            "end_column": self.end_column or self.column,
            "path": self.path,
            "deployment": self.deployment,
            "tags": list(self.tags),
        }
        if self.evidence:  # only stack findings have it, so other findings keep their exact shape
            data["evidence"] = list(self.evidence)
        return data


def at_least(severity: str, threshold: str) -> bool:
    """True when `severity` is at or above `threshold` ('never' matches nothing)."""
    if threshold == "never":
        return False
    return SEVERITY_RANK[severity] >= SEVERITY_RANK[threshold]
