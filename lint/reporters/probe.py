"""The probe's summary: one row per request (case, status, latency, tokens), then how it sized prompts.

Written to stderr by `ctxlint probe`, so stdout carries only the findings in the
chosen format (JSON, SARIF, ...), as with `check`.
"""
from __future__ import annotations

from typing import Dict, Iterable, List, TextIO

from tabulate import tabulate

from ctxlint.findings import Finding
from ctxlint.model import fmt

HEADERS = ("#", "request", "expected", "prompt (probe)", "prompt (server)", "max_tokens", "status", "seconds",
           "verdict")


def write_summary(run, findings: Iterable[Finding], stream: TextIO) -> None:
    verdicts: Dict[str, List[str]] = {}
    for f in findings:
        verdicts.setdefault(f.path, []).append(f.rule)
    rows = []
    for e in run.exchanges:
        name = e.case.name if e.case is not None else ("calibration" if e.session == "calibration" else "canary A")
        key = f"probe.{e.case.name if e.case is not None else e.session.lower()}"
        rules = sorted(set(verdicts.get(key, [])))
        status = str(e.status) if e.status is not None else e.answer.problem.split(" ", 1)[0] or "none"
        counted = e.answer.prompt_tokens
        rows.append((e.number, name, e.case.expect if e.case is not None else "completion",
                     fmt(e.planned_prompt), "-" if counted is None else fmt(counted), fmt(e.max_tokens),
                     status, f"{e.seconds:.2f}", ", ".join(rules) if rules else e.answer.kind))
    stream.write(tabulate(rows, headers=HEADERS, tablefmt="simple", disable_numparse=True) + "\n")
    for name, why in run.skipped:
        stream.write(f"not run: {name}: {why}\n")
    overhead = f"{run.overhead} tokens measured" if run.overhead is not None else \
        f"unknown (no usage reported); cases that must be served were built {run.margin} tokens smaller"
    stream.write(f"limits: {run.limits.describe()}; sizing: {run.sizing}; template overhead: {overhead}\n")
