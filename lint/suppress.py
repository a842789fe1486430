"""Suppressions: inline comments, file-level comments and Kubernetes annotations.

    kv_pool_tokens: 681280  # ctxlint: ignore[CTX101] -- capped at the gateway
    # ctxlint: ignore[CTX101,window-exceeds-kv-pool] -- on the line above also works
    # ctxlint: file-ignore[CTX108] -- anywhere in the file
    metadata: {annotations: {ctxlint.io/ignore.CTX101: "reason"}}   # the whole document

A reason (after `--`, or the annotation's value) is required by default: a
suppression without one is reported and suppresses nothing. Malformed directives,
unknown rules and suppressions that suppress nothing are reported too, because a
typo in a directive must never look like a reviewed exception.

Comments are found by suppress_comments (PyYAML's scanner: a `#` inside a quoted
string or a block scalar is text, not a comment).
"""
from __future__ import annotations

import os
import re
from typing import Any, Callable, Collection, Dict, Iterable, List, Optional, Sequence, Tuple

from ctxlint.adapters.workload_inputs import READ_ANNOTATIONS
from ctxlint.findings import Diagnostic, Finding
from ctxlint.lazyre import lazy_compile
from ctxlint.loader import LoadedFile
from ctxlint.model import Source
from ctxlint.lines import split_lines
from ctxlint.nodes import MAP, SCALAR
from ctxlint.registry import find

from .records import record
from .suppress_comments import Comment, comments, directive_lines

INVALID, UNUSED = "invalid-suppression", "unused-suppression"
LINE, DOCUMENT, FILE = "line", "document", "file"
ANNOTATION_PREFIX = "ctxlint.io/"
IGNORE_ANNOTATION = "ctxlint.io/ignore."
_SCOPE_RANK = {LINE: 0, DOCUMENT: 1, FILE: 2}  # the narrowest suppression is the one used
_DIRECTIVE = lazy_compile(r"^#+\s*ctxlint(?:\s*(?P<colon>:)|\s+(?=[\w-]*ignore))\s*(?P<body>.*?)\s*$", re.I)
_BODY = lazy_compile(r"^(?P<kind>ignore|file-ignore)\[(?P<codes>[^\]]*)\](?:\s*--(?P<reason>.*))?$")
_EXPECTED = "expected `# ctxlint: ignore[CTX101] -- reason` or `# ctxlint: file-ignore[CTX101] -- reason`"


@record(frozen=True)
class Suppression:
    file: str
    codes: Tuple[str, ...]  # rule IDs this suppresses (names in the directive are resolved)
    reason: Optional[str]  # None when missing or blank
    scope: str  # "line" | "document" | "file"
    first_line: int  # the lines whose findings it covers, inclusive
    last_line: int
    source: Source  # where the directive is written (the comment, or the annotation key)
    form: str = "comment"  # "comment" | "annotation"
    error: Optional[str] = None  # why the directive is malformed or names unknown rules

    def covers(self, finding: Finding) -> bool:
        return (finding.file == self.file and finding.rule in self.codes
                and self.first_line <= finding.line <= self.last_line)

    @property
    def directive(self) -> str:
        if self.form == "annotation":
            return f"annotation {IGNORE_ANNOTATION}{','.join(self.codes)}"
        kind = "file-ignore" if self.scope == FILE else "ignore"
        return f"# ctxlint: {kind}[{','.join(self.codes)}]"


# --- parsing directives ---------------------------------------------------------------------------

def parse_suppressions(loaded: LoadedFile) -> List[Suppression]:
    """All suppressions in one loaded file, malformed ones included (with `error` set)."""
    found: List[Suppression] = []
    # Cheap first: a directive is a comment that begins with `#...ctxlint`; most files have
    # none, and scanning a large file for every comment costs a second or more.
    candidates = directive_lines(loaded.text)
    if candidates:
        lines = split_lines(loaded.text)
        for comment in comments(loaded.text, loaded.path.lower().endswith(".json"), candidates):
            parsed = _from_comment(loaded.path, comment, lines)
            if parsed is not None:
                found.append(parsed)
    for document in loaded.documents:
        found.extend(_from_annotations(loaded.path, document.root))
    return found


def _from_comment(file: str, comment: Comment, lines: Sequence[str]) -> Optional[Suppression]:
    match = _DIRECTIVE.match(comment.text)
    if not match:
        return None
    source = Source(file, comment.line, comment.col, "", comment.line, comment.col + len(comment.text))
    body = _BODY.match(match.group("body")) if match.group("colon") else None
    if not body:
        word = re.match(r"[\w-]*", match.group("body")).group(0)  # type: ignore[union-attr]
        import difflib  # only a misspelt directive pays for it

        close = difflib.get_close_matches(word.lower(), ["ignore", "file-ignore"], n=1)
        hint = f" (did you mean '{close[0]}'?)" if close and close[0] != word else ""
        hint = hint if match.group("colon") else " (missing ':' after 'ctxlint')"
        return Suppression(file, (), None, LINE, 0, -1, source,
                           error=f"malformed suppression '{comment.text}'{hint}: {_EXPECTED}")
    codes, error = _resolve([c for c in body.group("codes").split(",")])
    reason = (body.group("reason") or "").strip() or None
    if body.group("kind").lower() == "file-ignore":
        return Suppression(file, codes, reason, FILE, 1, max(len(lines), 1), source, error=error)
    target = comment.line
    if comment.own_line:  # a directive on its own line covers the next line of YAML
        target = _next_code_line(lines, comment.line)
    return Suppression(file, codes, reason, LINE, target, target, source, error=error)


def _next_code_line(lines: Sequence[str], line: int) -> int:
    for number in range(line + 1, len(lines) + 1):
        stripped = lines[number - 1].strip()
        if stripped and not stripped.startswith("#"):
            return number
    return line + 1


def _resolve(names: Iterable[str]) -> Tuple[Tuple[str, ...], Optional[str]]:
    codes: List[str] = []
    unknown: List[str] = []
    for name in (n.strip() for n in names if n.strip()):
        spec = find(name)
        if spec is None:
            unknown.append(name)
        elif spec.id not in codes:
            codes.append(spec.id)
    if not codes and not unknown:
        return (), f"suppression names no rule: {_EXPECTED}"
    if unknown:
        return tuple(codes), ("unknown rule " + ", ".join(f"'{u}'" for u in unknown)
                              + " in suppression (use a rule code such as CTX101 or a rule name; see `ctxlint rules`)")
    return tuple(codes), None


def _from_annotations(file: str, root) -> List[Suppression]:
    annotations = root.dig("metadata", "annotations")
    if annotations is None or annotations.kind != MAP:
        return []
    out = []
    for key, value in annotations.value.items():
        # The promise and measured-pool annotations (context-window, ...) are read by the adapters, not here.
        if not isinstance(key, str) or not key.startswith(ANNOTATION_PREFIX) or key in READ_ANNOTATIONS:
            continue
        key_node = annotations.keys[key]
        source = key_node.source(file)
        reason = value.value.strip() if value.kind == SCALAR and isinstance(value.value, str) else None
        if not key.startswith(IGNORE_ANNOTATION):
            out.append(Suppression(file, (), None, DOCUMENT, 0, -1, source, "annotation",
                                   error=f"unknown ctxlint annotation '{key}': expected "
                                         f"'{IGNORE_ANNOTATION}CTX101: \"reason\"' or one of "
                                         f"{', '.join(sorted(READ_ANNOTATIONS))}"))
            continue
        codes, error = _resolve([key[len(IGNORE_ANNOTATION):]])
        out.append(Suppression(file, codes, reason or None, DOCUMENT, root.line, root.end_line, source,
                               "annotation", error))
    return out


def foreign_suppressions(paths: Sequence[str]) -> List[Suppression]:
    """The suppressions of files outside a group that its findings sit in (a cluster-scoped runtime of another
    directory the group's services run: crd_refs), from the files the run has read (run_classes.current): they
    apply to what is found with them in this group (engine._lint_group)."""
    from ctxlint.adapters.run_classes import current
    from ctxlint.engine_guards import blame

    found: List[Suppression] = []
    run_now = current()
    for path in paths:
        loaded = run_now.parsed(path) if run_now is not None else None
        if loaded is not None:
            with blame(path):
                found.extend(parse_suppressions(loaded))
    return found


# --- applying -------------------------------------------------------------------------------------

def apply(findings: Iterable[Finding], suppressions: Sequence[Suppression], require_reason: bool = True,
          disabled: bool = False, active_rules: Optional[Collection[str]] = None,
          home: Optional[Callable[[Finding], Optional[Tuple[str, int]]]] = None,
          ) -> Tuple[List[Finding], List[Tuple[Finding, Suppression]], List[Diagnostic]]:
    """Split findings into (kept, suppressed with their suppression, problems).

    `problems` are `invalid-suppression` and `unused-suppression` diagnostics.
    `disabled` (disallow-suppressions) keeps every finding and reports nothing.
    `active_rules` (rule IDs that ran): an unused suppression of a rule that did
    not run is not reported, since it cannot be known to be unused.
    """
    findings = list(findings)
    if disabled:
        return findings, [], []
    problems: List[Diagnostic] = []
    effective: List[Suppression] = []
    for sup in suppressions:
        if sup.error:
            problems.append(Diagnostic(INVALID, sup.error, sup.source))
        if not sup.codes:
            continue
        if require_reason and not sup.reason:
            problems.append(Diagnostic(INVALID, _no_reason(sup), sup.source))
            continue
        effective.append(sup)
    effective.sort(key=lambda s: (_SCOPE_RANK[s.scope], s.source.line))
    used = set()
    kept: List[Finding] = []
    suppressed: List[Tuple[Finding, Suppression]] = []
    for finding in findings:
        match = next((s for s in effective if s.covers(finding)), None)
        if match is None and home is not None and finding.deployment:
            # a kustomize overlay's build of a base's workload carries the base's annotations (kustomize keeps
            # metadata.annotations): the base document's ignore annotation waives the build's findings that sit
            # in the overlay's patch (`home`: the file and line of the workload document a finding's deployment is)
            at = home(finding)
            match = next((s for s in effective if at is not None and s.form == "annotation" and s.scope == DOCUMENT
                          and s.file == at[0] and s.first_line <= at[1] <= s.last_line
                          and finding.rule in s.codes), None)
        if match is None:
            kept.append(finding)
        else:
            suppressed.append((finding, match))
            used.add((id(match), finding.rule))
    for sup in effective:
        for code in sup.codes:
            if (id(sup), code) not in used and (active_rules is None or code in active_rules):
                problems.append(Diagnostic(UNUSED, _unused(sup, code), sup.source))
    problems.sort(key=lambda d: (d.source.file, d.source.line, d.source.col, d.message))
    return kept, suppressed, problems


def _no_reason(sup: Suppression) -> str:
    codes = ",".join(sup.codes)
    if sup.form == "annotation":
        return (f"suppression {sup.directive} has no reason: give the annotation a value saying why "
                f"it is safe; until then it suppresses nothing")
    kind = "file-ignore" if sup.scope == FILE else "ignore"
    return (f"suppression of {codes} has no reason: write `# ctxlint: {kind}[{codes}] -- <why this is "
            f"safe>`; until then it suppresses nothing")


def _unused(sup: Suppression, code: str) -> str:
    spec = find(code)
    name = f" ({spec.name})" if spec else ""
    where = {LINE: f"on line {sup.first_line}", DOCUMENT: "in this document", FILE: "in this file"}[sup.scope]
    return f"unused suppression: {code}{name} reports nothing {where}; remove it from the directive"


def overlay_home(producer: Dict[int, Any]):
    """`apply`'s `home`: the file and line of the workload document a finding's deployment was read from, where the
    finding sits in a kustomize overlay's patch: one deployment of that name in the unit that found it (`producer`:
    id of a finding -> engine._Unit), else None."""

    def home(finding: Finding) -> Optional[Tuple[str, int]]:
        unit = producer.get(id(finding))
        # only a value a kustomize patch sets (its path `patch.yaml:spec...`, kustomize_patch_inputs): a workload's
        # annotation does not reach a sibling ConfigMap's document (test_sibling_config_maps)
        if unit is None or not (finding.path or "").startswith(os.path.basename(finding.file) + ":"):
            return None
        deps = [d for d in unit.deployments if d.display_name == finding.deployment]
        if len(deps) != 1 or deps[0].file == finding.file or deps[0].source is None:
            return None
        return deps[0].source.file or deps[0].file, deps[0].source.line

    return home
