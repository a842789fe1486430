"""A probe run judged by the probe-scope rules (CTX5xx), as a Report for the usual reporters."""
from __future__ import annotations

from typing import Sequence

from ctxlint.engine import Report
from ctxlint.findings import Finding
from ctxlint.probe.run import ProbeRun
from ctxlint.registry import all_rules, selected


def judge(run: ProbeRun, select: Sequence[str] = (), ignore: Sequence[str] = ()) -> Report:
    """Findings of every selected probe rule; the report's one 'file' is the manifest or the URL."""
    report = Report()
    chosen = {spec.id for spec in selected(select, ignore)}
    for spec in all_rules():
        if spec.scope != "probe" or spec.id not in chosen:
            continue
        options = spec.default_options()
        for p in spec.module.check(run, options):
            report.findings.append(Finding(
                file=p.source.file, line=p.source.line, column=p.source.col, rule=spec.id, name=spec.name,
                severity=spec.severity, message=p.message, path=p.source.path, deployment=p.deployment,
                end_line=p.source.end_line, end_column=p.source.end_col, tags=spec.tags))
    origin = run.limits.window_source or run.limits.pool_source
    report.files.append(origin.file if origin is not None else run.url)
    report.sort()
    return report
