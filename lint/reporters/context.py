"""What a reporter may need besides the Report: rule metadata, where paths are
relative to, whether to colour, the files' text for snippets, and suppressions.

The CLI builds one ReportContext per run; reporters only read it.
"""
from __future__ import annotations

import os
from types import MappingProxyType
from typing import Iterable, Mapping, Optional, Sequence, Tuple

from ctxlint import __version__
from ctxlint.findings import Finding
from ctxlint.file_reader import DEFAULT_MAX_BYTES
from ctxlint.registry import RuleSpec, all_rules

from ..records import field, record


def _empty_sources() -> Mapping[str, str]:
    return MappingProxyType({})


@record(frozen=True)
class ReportContext:
    # All rules, not only the selected ones: SARIF consumers resolve ruleIndex
    # against this list, and a stable list keeps indexes stable across runs.
    rules: Tuple[RuleSpec, ...] = field(default_factory=all_rules)
    cwd: str = field(default_factory=os.getcwd)
    # What SARIF artifact URIs are relative to: the checked files' repository root, or
    # --sarif-root. None: the working directory.
    source_root: Optional[str] = None
    color: bool = False
    sources: Mapping[str, str] = field(default_factory=_empty_sources)  # display path -> text
    tool_version: str = __version__
    suppressed: Sequence[Tuple[Finding, str]] = ()  # (finding, justification)
    step_summary_path: Optional[str] = None  # $GITHUB_STEP_SUMMARY
    fail_on: str = "error"  # the run's --fail-on: JUnit counts only findings at or above it as failures
    width: int = 0  # the terminal's width in columns, for the concise format; 0: unlimited

    def rule(self, rule_id: str) -> Optional[RuleSpec]:
        for spec in self.rules:
            if spec.id == rule_id:
                return spec
        return None


def read_sources(paths: Iterable[str], max_bytes: int = DEFAULT_MAX_BYTES) -> Mapping[str, str]:
    """The text of each readable file, keyed by its display path, for snippets.

    Unreadable, oversized, binary or stdin ("-") entries are left out: reporters treat a
    missing entry as "no snippet", never as an error.
    """
    sources = {}
    for path in paths:
        if path == "-" or not os.path.isfile(path) or os.path.getsize(path) > max_bytes:
            continue
        try:
            with open(path, encoding="utf-8", errors="strict") as handle:
                text = handle.read()
        except (OSError, UnicodeDecodeError):
            continue
        # columns count after a byte-order mark, as the loader reads (not utf-8-sig: a Python-level decoder)
        sources[path] = text[1:] if text.startswith("\ufeff") else text
    return MappingProxyType(sources)
