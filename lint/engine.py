"""The pipeline: files -> loader -> adapters -> model -> capacity -> rules -> findings.

The engine returns data (a Report); it never prints and never exits.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from ctxlint.adapters import adapt_file
from ctxlint.capacity import with_pools
from ctxlint.discover import discover
from ctxlint.findings import Finding, Problem, at_least
from ctxlint.loader import DEFAULT_MAX_BYTES, LoadedFile, parse_bytes, read_path
from ctxlint.model import Deployment
from ctxlint.registry import RuleSpec, selected


class InternalError(RuntimeError):
    """A bug in ctxlint while checking a file: reported with the file, exit 2."""


@dataclass(frozen=True)
class Settings:
    select: Tuple[str, ...] = ()
    ignore: Tuple[str, ...] = ()
    rule_options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # rule ID -> options
    max_file_size: int = DEFAULT_MAX_BYTES


@dataclass
class Report:
    findings: List[Finding] = field(default_factory=list)
    files: List[str] = field(default_factory=list)
    deployments: List[Deployment] = field(default_factory=list)

    def count(self, severity: str) -> int:
        return sum(1 for f in self.findings if f.severity == severity)

    def failed(self, fail_on: str) -> bool:
        return any(at_least(f.severity, fail_on) for f in self.findings)


def lint_paths(paths: Sequence[str], settings: Settings = Settings(),
               stdin: Optional[bytes] = None, stdin_filename: str = "-") -> Report:
    """Check files and directories ("-" reads `stdin`); raises PathError for missing paths."""
    rules = selected(settings.select, settings.ignore)
    report = Report()
    for path in discover(paths):
        if path == "-":
            loaded = parse_bytes(stdin or b"", stdin_filename, settings.max_file_size)
        else:
            loaded = read_path(path, max_bytes=settings.max_file_size)
        _lint_loaded(loaded, rules, settings, report)
    report.findings.sort()
    return report


def lint_text(text: str, filename: str = "<string>", settings: Settings = Settings()) -> Report:
    """Check one in-memory document set (for tests and editor integrations)."""
    report = Report()
    _lint_loaded(parse_bytes(text.encode("utf-8"), filename, settings.max_file_size),
                 selected(settings.select, settings.ignore), settings, report)
    report.findings.sort()
    return report


def _lint_loaded(loaded: LoadedFile, rules: Sequence[RuleSpec], settings: Settings, report: Report) -> None:
    report.files.append(loaded.path)
    try:
        adapted = adapt_file(loaded)
        diagnostics = loaded.diagnostics + adapted.diagnostics
        deployments = []
        for dep in adapted.deployments:
            dep, found = with_pools(dep)
            deployments.append(dep)
            diagnostics.extend(found)
        for spec in rules:
            options = _options(spec, settings)
            if spec.scope == "input":
                report.findings.extend(_stamp(spec, spec.module.check(diagnostics, options)))
            else:
                for dep in deployments:
                    report.findings.extend(_stamp(spec, spec.module.check(dep, options)))
    except Exception as exc:  # a ctxlint bug: name the file instead of dumping a traceback
        raise InternalError(f"internal error while checking {loaded.path}: "
                            f"{type(exc).__name__}: {exc}") from exc
    report.deployments.extend(deployments)


def _options(spec: RuleSpec, settings: Settings) -> Mapping[str, Any]:
    options: Dict[str, Any] = spec.default_options()
    options.update(settings.rule_options.get(spec.id, {}))
    return MappingProxyType(options)


def _stamp(spec: RuleSpec, problems: Iterable[Problem]) -> List[Finding]:
    return [Finding(
        file=p.source.file, line=p.source.line, column=p.source.col, rule=spec.id, name=spec.name,
        severity=spec.severity, message=p.message, path=p.source.path, deployment=p.deployment,
        end_line=p.source.end_line, end_column=p.source.end_col, tags=spec.tags,
    ) for p in problems]
