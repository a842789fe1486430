"""Running the rules over one file's deployments and diagnostics, and stamping what they find.

The engine (ctxlint.engine) decides which files are checked together and in which order the
stages run; this module is what a stage does with the rules: which rules a file gets (the
selection, its per-file ignores), each rule's options, the rule's `check()` over each
deployment, the Finding a Problem becomes, and the run's severity overrides.
"""
from __future__ import annotations

from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Dict, FrozenSet, Iterable, List, Mapping, Optional, Tuple

from ctxlint import suppress
from ctxlint.findings import Diagnostic, Finding, Problem
from ctxlint.globs import glob_match, relative_posix
from ctxlint.model import Deployment
from ctxlint.registry import RuleSpec, selected

from .records import record, replace

if TYPE_CHECKING:
    from ctxlint.engine import Settings

SUPPRESSION_RULES = (suppress.INVALID, suppress.UNUSED)  # rule names fed by suppress.apply


@record(frozen=True)
class RuleSplit:
    checks: Tuple[RuleSpec, ...]       # the rules run on a file's deployments and diagnostics
    suppression: Tuple[RuleSpec, ...]  # the rules fed by suppress.apply
    ids: FrozenSet[str]                # every rule's ID: what a file reports


_SPLITS: Dict[int, Tuple[Tuple[RuleSpec, ...], RuleSplit]] = {}


def split(rules: Tuple[RuleSpec, ...]) -> RuleSplit:
    """A file's rules, split as engine._lint_group runs them. Every file of a run without per-file ignores
    has the same tuple (registry.selected remembers it): split once, not three times per file."""
    known = _SPLITS.get(id(rules))
    if known is None or known[0] is not rules:  # the tuple is held: its id is not reused meanwhile
        if len(_SPLITS) >= 256:
            _SPLITS.clear()
        known = _SPLITS[id(rules)] = (rules, RuleSplit(
            tuple(s for s in rules if s.name not in SUPPRESSION_RULES),
            tuple(s for s in rules if s.name in SUPPRESSION_RULES), frozenset(s.id for s in rules)))
    return known[1]


def rules_for(path: str, settings: Settings) -> Tuple[RuleSpec, ...]:
    rules = selected(settings.select, settings.ignore)
    if not settings.per_file_ignores or path == "-":
        return rules
    rel = relative_posix(path, settings.root) or path.replace("\\", "/")
    off = set()
    for pattern, ids in settings.per_file_ignores:
        if glob_match(pattern, rel):
            off |= ids
    return tuple(s for s in rules if s.id not in off)


_RUNNABLE: Dict[int, Tuple[Tuple[RuleSpec, ...], Tuple[Tuple[RuleSpec, ...], ...]]] = {}


def runnable(rules: Tuple[RuleSpec, ...]) -> Tuple[Tuple[RuleSpec, ...], ...]:
    """The rules `run` asks, in their order, indexed by (has diagnostics) + 2 * (has deployments).

    An input rule reports what the loader and the adapters recorded (rules._common.from_diagnostics): with
    nothing recorded (~4 files in 5) it has nothing to say, and 14 of them a file, each a generator and a
    list, were ~0.5% of a tree run. A deployment rule has nothing to check without deployments. Probe rules
    judge a live run (ctxlint.probe), stack rules the group's stack views (engine._lint_group). The rules'
    scopes were tested one by one for every file (~60 a file, twice); a run's files share one tuple of rules
    (registry.selected remembers it), so they are sorted once per tuple, as split() is."""
    known = _RUNNABLE.get(id(rules))
    if known is None or known[0] is not rules:  # the tuple is held: its id is not reused meanwhile
        if len(_RUNNABLE) >= 256:
            _RUNNABLE.clear()
        inputs, deployments = {"input"}, {"deployment"}
        known = _RUNNABLE[id(rules)] = (rules, tuple(tuple(s for s in rules if s.scope in wanted) for wanted in (
            set(), inputs, deployments, inputs | deployments)))
    return known[1]


def run(rules: Iterable[RuleSpec], diagnostics: List[Diagnostic], deployments: List[Deployment],
        settings: Settings, options_of: Optional[Dict[Any, Any]] = None) -> List[Finding]:
    """`options_of`: rule ID -> options, shared by the files of a group (the same settings): ~50 rules'
    options were rebuilt for every file. It also keeps, per tuple of rules and which of them run, each rule bound
    to its options (_bound): looking each rule's options up, and testing its scope, for every file was ~1% of a
    run's bytecodes."""
    out: List[Finding] = []
    rules = rules if type(rules) is tuple else tuple(rules)
    which = bool(diagnostics) + 2 * bool(deployments)
    one = deployments[0] if len(deployments) == 1 else None  # most files: one deployment, no loop over them
    for on_input, segment in _bound(rules, which, settings, options_of):
        if on_input:
            for spec, check, options in segment:
                out.extend(stamp(spec, check(diagnostics, options)))
        elif one is not None:
            for spec, check, options in segment:
                for problem in check(one, options):  # most checks find nothing: no list is made for them
                    out.append(to_finding(spec, problem))
        else:
            for spec, check, options in segment:
                for dep in deployments:
                    for problem in check(dep, options):
                        out.append(to_finding(spec, problem))
    return out


_Segment = Tuple[bool, Tuple[Tuple[RuleSpec, Any, Mapping[str, Any]], ...]]


def _bound(rules: Tuple[RuleSpec, ...], which: int, settings: Settings,
           options_of: Optional[Dict[Any, Any]]) -> Tuple[_Segment, ...]:
    """_checks(rules)[which], each rule as (spec, its check, its options), in runs of rules that read
    diagnostics or do not (whether they do, then the run, in the rules' order: most files run one run of
    deployment rules), the options taken from `options_of` (else made and kept there, by rule ID, as run read
    them) and the binding kept there by (id(rules), which): the group's files share the settings that make the
    options."""
    key = (id(rules), which)
    known = options_of.get(key) if options_of is not None else None
    if known is not None and known[0] is rules:  # the tuple is held: its id is not reused meanwhile
        return known[1]
    segments: List[Tuple[bool, list]] = []
    for spec, rule_id, check, on_input in _checks(rules)[which]:
        options = options_of.get(rule_id) if options_of is not None else None
        if options is None:
            options = rule_options(spec, settings)
            if options_of is not None:
                options_of[rule_id] = options
        if not segments or segments[-1][0] != on_input:
            segments.append((on_input, []))
        segments[-1][1].append((spec, check, options))
    bound = tuple((on_input, tuple(segment)) for on_input, segment in segments)
    if options_of is not None:
        options_of[key] = (rules, bound)
    return bound


_CHECKS: Dict[int, Tuple[Tuple[RuleSpec, ...], tuple]] = {}


def _checks(rules: Tuple[RuleSpec, ...]) -> tuple:
    """runnable(rules), each rule as (spec, ID, its module's check, whether it reads diagnostics): run read the
    three through the spec for each of ~55 rules a file."""
    known = _CHECKS.get(id(rules))
    if known is None or known[0] is not rules:  # the tuple is held: its id is not reused meanwhile
        if len(_CHECKS) >= 256:
            _CHECKS.clear()
        known = _CHECKS[id(rules)] = (rules, tuple(
            tuple((s, s.id, s.module.check, s.scope == "input") for s in chosen) for chosen in runnable(rules)))
    return known[1]


def with_severity(finding: Finding, settings: Settings) -> Finding:
    level = settings.severity.get(finding.rule)
    return replace(finding, severity=level) if level and level != finding.severity else finding


def rule_options(spec: RuleSpec, settings: Settings) -> Mapping[str, Any]:
    options: Dict[str, Any] = spec.default_options()
    options.update(settings.rule_options.get(spec.id, {}))
    return MappingProxyType(options)


def stamp(spec: RuleSpec, problems: Iterable[Problem]) -> List[Finding]:
    return [to_finding(spec, p) for p in problems]


def to_finding(spec: RuleSpec, p: Problem) -> Finding:
    return Finding(
        file=p.source.file, line=p.source.line, column=p.source.col, rule=spec.id, name=spec.name,
        severity=p.severity or spec.severity, message=p.message, path=p.source.path, deployment=p.deployment,
        end_line=p.source.end_line, end_column=p.source.end_col, tags=spec.tags, evidence=p.evidence, fix=p.fix)


def unique(findings: Iterable[Finding], per_deployment: bool) -> List[Finding]:
    """One line per distinct finding: the options of a SkyPilot any-of set are checked as
    deployments of their own and often share a finding word for word, at the same place.
    An audit (per_deployment) keeps one per deployment, since each row shows its own."""
    seen: set = set()
    out: List[Finding] = []
    for f in findings:
        key = (f.file, f.line, f.column, f.rule, f.message, f.deployment if per_deployment else None)
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out


def _most_severe(findings: Iterable[Finding], per_deployment: bool) -> List[Finding]:
    """`unique`, keeping of two alike findings the more severe: groups under different configs (a severity
    override each) find one cluster-scoped runtime's problem, and the run's order of paths must not decide
    whether it is an error (the exit code)."""
    from ctxlint.findings import SEVERITY_RANK

    at: Dict[tuple, int] = {}
    out: List[Finding] = []
    for f in findings:
        key = (f.file, f.line, f.column, f.rule, f.message, f.deployment if per_deployment else None)
        i = at.get(key)
        if i is None:
            at[key] = len(out)
            out.append(f)
        elif SEVERITY_RANK.get(f.severity, 0) > SEVERITY_RANK.get(out[i].severity, 0):
            out[i] = f
    return out


def once(findings: List[Finding], suppressed: List[Tuple[Finding, str]],
         per_deployment: bool) -> Tuple[List[Finding], List[Tuple[Finding, str]]]:
    """A run's findings and waived ones, each once: its groups of files (a directory each) are checked apart, and
    two services of different directories that run one cluster-scoped runtime (a ClusterServingRuntime) both find
    its problems, word for word at the same place, where one group's two services say them once (`unique`)."""
    findings = _most_severe(findings, per_deployment)
    kept = unique([f for f, _ in suppressed], per_deployment)
    if len(kept) < len(suppressed):  # rare: the same waiver met from two groups
        ids = {id(f) for f in kept}
        suppressed = [pair for pair in suppressed if id(pair[0]) in ids]
    return findings, suppressed
