"""What several reporters share: the one severity table, repo-relative paths,
stable fingerprints, ordering and the one-line summary."""
from __future__ import annotations

import os
from typing import Dict, List, Sequence

from ctxlint import pathparts
from ctxlint.engine import Report
from ctxlint.findings import SEVERITY_RANK, Finding

from ..records import record


@record(frozen=True)
class Levels:
    sarif: str
    github: str
    gitlab: str
    problem: str  # SARIF rule property problem.severity


# The one mapping from ctxlint severities to every consumer's vocabulary; add a
# column here rather than a mapping inside a reporter.
LEVELS: Dict[str, Levels] = {
    "error": Levels(sarif="error", github="error", gitlab="major", problem="error"),
    "warning": Levels(sarif="warning", github="warning", gitlab="minor", problem="warning"),
    "info": Levels(sarif="note", github="notice", gitlab="info", problem="recommendation"),
}


def printable(text: str) -> str:
    """`text` with its control characters written as escapes (a newline as \\n, ESC as \\x1b): a
    value quoted from a config must not end a finding's line (one finding a line is what editors'
    problem matchers and `grep` read, and a line starting `::` is a GitHub Actions command), colour
    or move a terminal's text, or reorder it (bidirectional controls)."""
    return text if text.isascii() and text.isprintable() or not _UNPRINTABLE.intersection(text) \
        else text.translate(_ESCAPES)


# C0 and C1 controls but the tab, DEL, the Unicode line and paragraph separators, bidi controls
_ESCAPES = {c: repr(chr(c))[1:-1] for c in (*range(0x09), *range(0x0A, 0x20), *range(0x7F, 0xA0),
                                             0x2028, 0x2029, *range(0x202A, 0x202F), *range(0x2066, 0x206A))}
_UNPRINTABLE = frozenset(map(chr, _ESCAPES))


def relative_path(file: str, cwd: str) -> str:
    """`file` as a forward-slash path relative to `cwd` when it lies inside it.

    Code scanning and GitLab match findings to the repository by relative path;
    an absolute path outside `cwd` (or stdin's "-") is returned unchanged.
    """
    if file == "-" or not file:
        return file
    if os.name == "nt":
        return _relative_path_windows(file, cwd)
    path = pathparts.parts(file)
    if path and path[0].startswith("/"):
        inside = pathparts.relative_to(pathparts.parts(os.path.realpath(file)), pathparts.parts(os.path.realpath(cwd)))
        if inside is None:
            return pathparts.as_posix(path)
        path = inside
    return pathparts.as_posix(path) if path else file


def root_relative(file: str, cwd: str, root: str) -> str:
    """`file` (relative to `cwd`, or absolute) as a forward-slash path relative to `root`.

    SARIF consumers resolve URIs against the repository root, wherever ctxlint ran from:
    `../repo/deploy/a.yaml` run from a sibling directory is `deploy/a.yaml`. A file outside
    `root` (or stdin's "-") keeps its absolute path.
    """
    if file == "-" or not file:
        return file
    if os.name == "nt":
        return _root_relative_windows(file, cwd, root)
    absolute = os.path.abspath(os.path.join(cwd, file))
    # As written first (a symlinked folder inside the repository stays inside), then resolved.
    for path, base in ((absolute, os.path.abspath(root)), (os.path.realpath(absolute), os.path.realpath(root))):
        inside = pathparts.relative_to(pathparts.parts(path), pathparts.parts(base))
        if inside is not None:
            return pathparts.as_posix(inside)
    return pathparts.as_posix(pathparts.parts(absolute))


def _relative_path_windows(file: str, cwd: str) -> str:
    from pathlib import Path, PurePosixPath

    path = Path(file)
    if path.is_absolute():
        try:
            path = Path(os.path.realpath(path)).relative_to(os.path.realpath(cwd))
        except ValueError:
            return path.as_posix()
    return PurePosixPath(*path.parts).as_posix() if path.parts else file


def _root_relative_windows(file: str, cwd: str, root: str) -> str:
    from pathlib import Path, PurePosixPath

    absolute = os.path.abspath(os.path.join(cwd, file))
    for path, base in ((absolute, os.path.abspath(root)), (os.path.realpath(absolute), os.path.realpath(root))):
        try:
            return PurePosixPath(*Path(path).relative_to(base).parts).as_posix()
        except ValueError:
            continue
    return Path(absolute).as_posix()


def _key(finding: Finding, cwd: str) -> str:
    # No line or column: a finding keeps its fingerprint when lines above it move.
    parts = (finding.rule, relative_path(finding.file, cwd), finding.path, finding.deployment or "")
    return "\x1f".join(parts)


def fingerprints(findings: Sequence[Finding], cwd: str) -> List[str]:
    """One md5 hex digest per finding, from rule + file + logical path + deployment.

    Two findings with the same key (one rule reporting one value twice) get an
    occurrence number, as code scanning's own fingerprints do, so every
    fingerprint in a report is unique and consumers that de-duplicate by it
    (GitLab's merge-request widget) keep both.
    """
    import hashlib  # deferred: only SARIF and GitLab output fingerprint (~5 ms import)

    seen: Dict[str, int] = {}
    result = []
    for finding in findings:
        key = _key(finding, cwd)
        occurrence = seen.get(key, 0)
        seen[key] = occurrence + 1
        if occurrence:
            key = f"{key}\x1f{occurrence}"
        result.append(hashlib.md5(key.encode("utf-8")).hexdigest())
    return result


def shared_places(findings: Sequence[Finding]) -> set:
    """The ids of findings whose rule and place another finding of another deployment shares (the overlays of one
    kustomize base found at the base's line): a line format names their deployment, else they read alike."""
    seen: Dict[tuple, set] = {}
    for f in findings:
        seen.setdefault((f.file, f.line, f.column, f.rule), set()).add(f.deployment)
    return {id(f) for f in findings if f.deployment and len(seen[(f.file, f.line, f.column, f.rule)]) > 1}


def most_severe_first(findings: Sequence[Finding]) -> List[Finding]:
    """Severity descending, then the usual file, line, column, rule order."""
    return sorted(findings, key=lambda f: (-SEVERITY_RANK[f.severity], f))


def end_column(finding: Finding) -> int:
    """The exclusive end column on the finding's first line (at least column + 1).

    Findings whose end is unknown (0) or on another line get a one-character
    span, so every consumer receives a valid, non-empty region.
    """
    if finding.end_line in (0, finding.line) and finding.end_column > finding.column:
        return finding.end_column
    return finding.column + 1


def one_line(finding: Finding) -> bool:
    return finding.end_line in (0, finding.line)


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def summary_line(report: Report) -> str:
    """One line for stderr: what was checked and what was found."""
    counts = [(report.count(s), s) for s in ("error", "warning", "info")]
    found = ", ".join(plural(n, word) for n, word in counts if n)
    checked = f"{plural(len(report.files), 'file')}, {plural(report.deployment_count, 'deployment')}"
    return f"ctxlint: {found or 'no findings'} in {checked}"
