"""The audit's stack view as data: each gateway route -> the engine roles it reaches -> their pools.

Built from `Report.stacks` (ctxlint.stack.StackView, after the capacity stage) and the stack
findings (CTX6xx) at each route. Rendering is in `ctxlint.reporters.audit_stacks`.
"""
from __future__ import annotations

from typing import List, Optional, Tuple

from ctxlint.engine import Report
from ctxlint.findings import SEVERITY_RANK, Finding
from ctxlint.model import DECODE, PREFILL, UNIFIED

from .records import record


@record(frozen=True)
class StackTarget:
    deployment: str
    file: str
    line: int
    role: str  # unified | prefill | decode (label)
    context: Optional[int]
    context_is_default: bool
    pool: Optional[int]
    pool_origin: str


@record(frozen=True)
class StackRow:
    gateway: str
    route: str
    file: str
    line: int
    promise: Optional[int]  # the advertised prompt limit, else the window
    caps: Tuple[str, ...]  # "600,000 tokens (approximate, fails open)", "4,194,304 bytes"
    targets: Tuple[StackTarget, ...]
    unresolved: str
    evidence: Tuple[str, ...]
    findings: Tuple[Finding, ...]  # the route's CTX6xx findings, most severe first

    @property
    def worst(self) -> Optional[Finding]:
        return self.findings[0] if self.findings else None


def build_stacks(report: Report) -> Tuple[StackRow, ...]:
    rows: List[StackRow] = []
    for view in report.stacks:
        route = view.route
        mine = sorted((f for f in report.findings if f.rule.startswith("CTX6") and f.file == route.file
                       and f.deployment == route.label), key=lambda f: (-SEVERITY_RANK[f.severity], f.line, f.rule))
        caps = tuple(f"{c.limit.value:,} {c.unit}" + ("" if c.exact else " (approximate" + (", fails open)" if
                                                                                            c.fails_open else ")"))
                     for c in route.caps) + tuple(f"{b.limit.value:,} bytes (body)" for b in view.body_limits)
        targets = []
        for dep in view.deployments:
            kinds = (PREFILL, DECODE) if dep.disaggregated else (UNIFIED,)
            for role in dep.roles_of(*kinds):
                targets.append(StackTarget(
                    dep.display_name or "(unnamed)", dep.file, dep.source.line, role.label,
                    role.context_length.value if role.context_length is not None else None,
                    role.context_default is not None, role.pool.tokens if role.pool is not None else None,
                    role.pool.origin if role.pool is not None else ""))
        promise = route.promise
        rows.append(StackRow(route.gateway, route.label, route.file, route.source.line,
                             promise.value if promise is not None else None, caps, tuple(targets),
                             view.unresolved, view.evidence, tuple(mine)))
    rows.sort(key=lambda r: (-(SEVERITY_RANK[r.worst.severity] if r.worst else 0), r.file, r.line, r.route))
    return tuple(rows)
