"""The fleet audit as data: one row per deployment, grouped by model, riskiest first.

Built from an engine Report (after the capacity stage, so every role carries the
pool it was declared or derived to have). Rendering is in
`ctxlint.reporters.audit`; nothing here formats for a terminal.

Risk order: worst finding severity (error > warning > info > none), then
headroom ascending (the smallest pool over the advertised window; unknown
headroom after every known one of the same severity), then file and line.
Models are ordered by their riskiest row, so the worst deployment is on top and
every deployment of the same model sits right under it, where a different pool
for the same model stands out.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

from ctxlint.engine import Report
from ctxlint.findings import SEVERITY_RANK, Finding
from ctxlint.model import DECODE, PREFILL, UNIFIED, Deployment, Role
from ctxlint.resolution.provenance import model_from

from .records import field, record, replace
from .verdicts import int_value as _int, verdict_of

NO_MODEL = "(no model id)"


@record(frozen=True)
class PoolCell:
    """The smallest KV pool of the roles of one kind, and where it came from."""

    tokens: int
    origin: str  # "declared" or "derived"
    role: str  # label of the role that has it
    request: Optional[int] = None  # what one request can hold of it (Pool.request; None: the whole pool)

    @property
    def held(self) -> int:
        return self.tokens if self.request is None else self.request


@record(frozen=True)
class AuditRow:
    model: str
    name: str
    file: str
    line: int
    engine: str  # "" when not set
    engine_version: str
    mode: str  # "unified" or "prefill-decode"
    window: Optional[int]  # advertised context window
    engine_context: Optional[int]  # the smallest context length any role accepts (JSON/CSV `engine_context`)
    prefill_pool: Optional[PoolCell]  # unified deployments: the unified pool
    decode_pool: Optional[PoolCell]  # unified deployments: None (the unified pool does both)
    # what one request can hold of each role's pool over what that role is promised (the window, else its own
    # context length), the smallest: the figure the verdict judges. None when a pool or the promise is unknown
    headroom: Optional[float]
    findings: Tuple[Finding, ...] = ()  # most severe first
    pools_differ: bool = False  # the same model is served with other pools elsewhere
    promise: Optional[int] = None  # what clients can send: the window, else the engine's (default) context
    promise_from: str = ""  # "window", "engine context" or "engine default"
    model_from: str = ""  # how the model was inferred from what the file says ("" when stated): provenance.py
    # fits | within band | exceeds | no KV memory | KV does not fit | weights do not fit | needs >= N GiB/GPU | unknown
    verdict: str = "unknown"
    why_unknown: str = ""  # for "unknown": what is missing
    names_model: bool = False  # the reference names a model (resolved, or a Hub id) rather than a bare path
    context_is_default: bool = False  # engine_context is an engine default, not a stated setting
    # the largest context length any role accepts: the promise without a window; above engine_context when
    # prefill and decode differ (shown as a range, so a reader never holds the smaller one against the pools)
    engine_context_max: Optional[int] = None
    context_max_is_default: bool = False

    @property
    def worst(self) -> Optional[Finding]:
        return self.findings[0] if self.findings else None

    def count(self, severity: str) -> int:
        return sum(1 for f in self.findings if f.severity == severity)


@record(frozen=True)
class ModelGroup:
    model: str
    rows: Tuple[AuditRow, ...]

    @property
    def pools_differ(self) -> bool:
        # Deployments without a model id are not known to serve the same model.
        return self.model != NO_MODEL and len(self.pools()) > 1

    def pools(self) -> List[Tuple[AuditRow, ...]]:
        """The rows with a known pool, by the pools they have, smallest first.

        An unknown pool is not "a different pool": those rows are left out. The options of
        one SkyPilot any-of set (rows from the same file and line) are one deployment's
        alternatives, so they count as one entry: the set of their pools.
        """
        by_source: Dict[Tuple[str, int], List[AuditRow]] = {}
        for row in self.rows:
            if row.prefill_pool is not None and (row.mode == "unified" or row.decode_pool is not None):
                by_source.setdefault((row.file, row.line), []).append(row)
        by_pools: Dict[tuple, List[AuditRow]] = {}
        for rows in by_source.values():
            key = tuple(sorted({_pool_key(r) for r in rows}, key=_none_last))
            by_pools.setdefault(key, []).extend(rows)
        return [tuple(rows) for _, rows in sorted(by_pools.items(), key=lambda kv: [_none_last(k) for k in kv[0]])]


@record(frozen=True)
class Audit:
    groups: Tuple[ModelGroup, ...]
    files: int
    outside: Tuple[Finding, ...] = ()  # findings in files where no deployment was read
    totals: Dict[str, int] = field(default_factory=dict)
    stacks: Tuple[Any, ...] = ()  # ctxlint.audit_stacks.StackRow: gateway routes joined to engine roles

    @property
    def rows(self) -> List[AuditRow]:
        return [row for group in self.groups for row in group.rows]


def build_audit(report: Report) -> Audit:
    from ctxlint.siblings import launch_lines, role_spans  # where each launch is: a nameless finding's owner
    spans = (role_spans(report.deployments), launch_lines(report.deployments))
    rows = [_row(dep, _findings_of(dep, report, spans)) for dep in report.deployments]
    by_model: Dict[str, List[AuditRow]] = {}
    for row in rows:
        by_model.setdefault(row.model, []).append(row)
    groups = []
    for model, members in by_model.items():
        group = ModelGroup(model, tuple(sorted(members, key=risk_key)))
        if group.pools_differ:
            known = {id(r) for rows in group.pools() for r in rows}
            group = ModelGroup(model, tuple(replace(r, pools_differ=id(r) in known) for r in group.rows))
        groups.append(group)
    groups.sort(key=lambda g: (risk_key(g.rows[0]), g.model))
    files_with_rows = {file for dep in report.deployments for file in dep.files}
    outside = tuple(f for f in report.findings if f.file not in files_with_rows and not f.rule.startswith("CTX6"))
    stacks = ()
    if report.stacks:
        from ctxlint.audit_stacks import build_stacks

        stacks = build_stacks(report)
    audit = Audit(tuple(groups), len(report.files), outside, stacks=stacks)
    audit.totals.update(_totals(audit))
    return audit


def risk_key(row: AuditRow) -> tuple:
    rank = SEVERITY_RANK[row.worst.severity] if row.worst else 0
    return (-rank, row.headroom is None, row.headroom or 0.0, row.file, row.line, row.name)


def _row(dep: Deployment, findings: Sequence[Finding]) -> AuditRow:
    disaggregated = dep.disaggregated
    prefill = _smallest(dep.roles_of(PREFILL) if disaggregated else dep.roles_of(UNIFIED))
    decode = _smallest(dep.roles_of(DECODE)) if disaggregated else None
    window = _int(dep.advertised.context_window)
    stated = [r for r in dep.roles if _int(r.context_length) is not None]
    smallest = min(stated, key=lambda r: r.context_length.value, default=None)
    largest = max(stated, key=lambda r: r.context_length.value, default=None)
    pools = [prefill, decode] if disaggregated else [prefill]
    promise, promise_from = _promise(dep, window)
    headroom = None
    if promise and dep.roles and all(p is not None for p in pools):
        # what one request can hold over what each role is promised, as verdict_of judges it (a prefill role
        # of 8,192 is not held to its decode role's 16,384): below 1 is a pool below what is promised
        roles = dep.roles_of(PREFILL) + dep.roles_of(DECODE) if disaggregated else dep.roles_of(UNIFIED)
        headroom = min(r.pool.request / (window or _int(r.context_length) or promise) for r in roles)
    verdict, why = verdict_of(dep)
    if verdict == "KV does not fit" and headroom is not None:
        headroom = 0.0  # the stated pool cannot be allocated: the engine exits at startup and holds nothing
    return AuditRow(
        model=str(dep.model.id.value) if dep.model.id is not None else NO_MODEL,
        # the line is the deployment's source's, in its own file: a systemd unit or compose service whose engine
        # line is in the script it runs points into that script (review: `vllm.service:32` of a 22-line unit)
        name=dep.display_name or "", file=dep.source.file or dep.file, line=dep.source.line,
        engine=str(dep.engine.name.value) if dep.engine.name is not None else "",
        engine_version=str(dep.engine.version.value) if dep.engine.version is not None else "",
        mode="prefill-decode" if disaggregated else "unified",
        window=window, engine_context=smallest.context_length.value if smallest is not None else None,
        prefill_pool=prefill, decode_pool=decode, headroom=headroom,
        findings=tuple(sorted(findings, key=lambda f: (-SEVERITY_RANK[f.severity], f))),
        promise=promise, promise_from=promise_from, verdict=verdict, why_unknown=why, model_from=model_from(dep),
        names_model=names_model(dep), context_is_default=smallest is not None and smallest.context_default is not None,
        engine_context_max=largest.context_length.value if largest is not None else None,
        context_max_is_default=largest is not None and largest.context_default is not None)


def _promise(dep: Deployment, window: Optional[int]) -> Tuple[Optional[int], str]:
    """What clients may send: the advertised window, else the largest context a role accepts."""
    if window:
        return window, "window"
    roles = [r for r in dep.roles if _int(r.context_length) is not None]
    if not roles:
        return None, ""
    role = max(roles, key=lambda r: r.context_length.value)
    return role.context_length.value, "engine default" if role.context_default is not None else "engine context"


def names_model(dep: Deployment) -> bool:
    """Does the deployment name a model (it resolved, or it is a Hub-style org/name id)?
    A bare path that resolves to nothing (`/work/models`) names none."""
    if dep.resolution is not None and dep.resolution.resolved:
        return True
    if dep.model.id is None or not isinstance(dep.model.id.value, str):
        return False
    from ctxlint.resolution.names import parse_ref
    ref = parse_ref(dep.model.id.value)
    return ref is not None and not ref.local and ref.repo_id is not None


def _smallest(roles: Sequence[Role]) -> Optional[PoolCell]:
    """The smallest pool among `roles`; unknown when any of them has none (it may be the smallest)."""
    if not roles or any(r.pool is None for r in roles):
        return None
    role = min(roles, key=lambda r: r.pool.request)
    return PoolCell(role.pool.tokens, role.pool.origin, role.label, role.pool.request)


def _findings_of(dep: Deployment, report: Report, spans: tuple) -> List[Finding]:
    """The deployment's own findings, plus those that name none (a duplicate key may change it), in all its files.
    One that names none but sits among the lines of the values some of its file's deployments hold, and outside
    the others', is theirs alone: a refused word of one of a script's launches (`vllm serve A --swap-space 4 &`
    then `vllm serve B`), whose finding the reader makes before the launches become deployments (sweep c29:
    haskoe/beancount-ledger start-llm.sh's three llama-servers each showed the second one's error)."""
    files = dep.files  # a runtime or a pair's other half may be in a sibling file
    return [f for f in report.findings if f.file in files and (
        f.deployment == dep.display_name or f.deployment is None and _nameless_about(f, dep, spans))]


def _nameless_about(finding: Finding, dep: Deployment, spans: tuple) -> bool:
    """Is a finding that names no deployment about `dep`: yes, unless it lies within the lines of the launches
    (siblings.role_spans) of some deployments of its file and not within dep's, and dep's launch is not the last
    one to start at or before it (siblings.launch_lines: a stray word on a launch's last line, after its values,
    while another launch's span reaches over it from an array written above)."""
    held, starts = spans
    inside = [name for first, last, name in held.get(finding.file, ()) if first <= finding.line <= last]
    if not inside or dep.display_name in inside:
        return True
    before = [(line, name) for line, name in starts.get(finding.file, ()) if line <= finding.line]
    return bool(before) and max(before, key=lambda item: item[0])[1] == dep.display_name


def _none_last(key: tuple) -> tuple:
    return tuple((value is None, value or 0) for value in key)


def _pool_key(row: AuditRow) -> tuple:
    return tuple(p.tokens if p else None for p in (row.prefill_pool, row.decode_pool))


def _totals(audit: Audit) -> Dict[str, int]:
    rows = audit.rows
    worst = [r.worst.severity if r.worst else "clean" for r in rows]
    return {
        "files": audit.files,
        "deployments": len(rows),
        "models": sum(1 for g in audit.groups if g.model != NO_MODEL),
        "without_model_id": sum(len(g.rows) for g in audit.groups if g.model == NO_MODEL),
        "models_with_differing_pools": sum(1 for g in audit.groups if g.pools_differ),
        "with_errors": worst.count("error"),
        "with_warnings": worst.count("warning"),
        "with_infos": worst.count("info"),
        "clean": worst.count("clean"),
        "below_window": sum(1 for r in rows if r.headroom is not None and r.headroom < 1),
        "unknown_headroom": sum(1 for r in rows if r.headroom is None),
        "naming_a_model": sum(1 for r in rows if r.names_model),
        "with_verdict": sum(1 for r in rows if r.names_model and r.verdict not in ("unknown",)
                            and not r.verdict.startswith("needs")),
        "with_memory_need": sum(1 for r in rows if r.names_model and r.verdict.startswith("needs")),
        "findings_outside_deployments": len(audit.outside),
    }
