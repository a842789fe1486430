"""The pipeline: files -> loader -> adapters -> model -> capacity -> rules -> findings
-> suppressions.

Which files a run reads, and the groups (by directory) they are checked in, are ctxlint.discover's.

The engine returns data (a Report); it never prints and never exits.
"""
from __future__ import annotations

import operator
import os
from typing import (TYPE_CHECKING, Any, Callable, Collection, Dict, FrozenSet, List, Mapping, Optional, Sequence,
                    Tuple, Union)

from ctxlint import suppress
from ctxlint.adapters import adapt_file
from ctxlint.adapters.run_classes import current as current_run
from ctxlint.capacity import CapacityEnv, with_pools
from ctxlint.discover import by_directory, files_to_check, skipped, size_limits
from ctxlint.engine_guards import InternalError  # noqa: F401 - the engine's public name for it
from ctxlint.engine_guards import blame as _blame, fewer_collections as _fewer_collections
from ctxlint.findings import Diagnostic, Finding, at_least
from ctxlint.joins import REF_MARKERS, Joins
from ctxlint.loader import LoadedFile
from ctxlint.file_reader import DEFAULT_MAX_BYTES, parse_bytes, read_path
from ctxlint.model import Deployment
from ctxlint.pairing import pair_across_files
from ctxlint.registry import RuleSpec, all_rules
from ctxlint.rule_runs import once, rule_options, rules_for, run, split, stamp, unique, with_severity

from .records import field, fields, record, replace

if TYPE_CHECKING:
    from ctxlint.adapters.run_classes import RunClasses

SORT_KEY = operator.attrgetter(*(f.name for f in fields(Finding) if f.compare))  # Finding's own order


@record(frozen=True)
class Settings:
    """Everything a run needs; plain data, so it can be sent to worker processes."""

    select: Tuple[str, ...] = ()
    ignore: Tuple[str, ...] = ()
    rule_options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # rule ID -> options
    max_file_size: int = DEFAULT_MAX_BYTES
    severity: Mapping[str, str] = field(default_factory=dict)  # rule ID -> error|warning|info
    per_file_ignores: Tuple[Tuple[str, FrozenSet[str]], ...] = ()  # (glob, rule IDs)
    exclude: Tuple[str, ...] = ()  # globs, relative to `root`
    root: str = "."  # the directory globs are relative to (the config file's)
    respect_gitignore: bool = False
    force_exclude: bool = False  # apply excludes to files named explicitly too (pre-commit)
    require_suppression_reason: bool = True
    disallow_suppressions: bool = False
    accelerators: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # user-defined devices
    models: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # user-defined architectures
    models_lock: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # `ctxlint models lock` facts
    default_accelerators: Tuple[Tuple[str, str], ...] = ()  # (path glob, device) for roles that name none
    hf_cache: Tuple[str, ...] = ()  # Hugging Face hub cache directories to resolve models from
    config_label: str = ".ctxlint.yaml"  # how messages name the config file
    # `check` prints only how many deployments it read: not holding them keeps memory flat on
    # 100,000 files and keeps --jobs workers from pickling every deployment back to the parent.
    keep_deployments: bool = True


SettingsFor = Callable[[str], Settings]  # a file's own Settings ("-": stdin's), from the config closest to it


@record
class Report:
    findings: List[Finding] = field(default_factory=list)
    files: List[str] = field(default_factory=list)
    deployments: List[Deployment] = field(default_factory=list)  # empty unless Settings.keep_deployments
    stacks: List[Any] = field(default_factory=list)  # ctxlint.stack.StackView; empty unless keep_deployments
    suppressed: List[Tuple[Finding, str]] = field(default_factory=list)  # (finding, reason)
    excluded: int = 0  # files skipped by exclude globs or .gitignore
    deployment_count: int = 0  # deployments read, kept or not

    def count(self, severity: str) -> int:
        return sum(1 for f in self.findings if f.severity == severity)

    def failed(self, fail_on: str) -> bool:
        return any(at_least(f.severity, fail_on) for f in self.findings)

    def extend(self, other: "Report") -> None:
        self.findings.extend(other.findings)
        self.files.extend(other.files)
        self.deployments.extend(other.deployments)
        self.stacks.extend(other.stacks)
        self.suppressed.extend(other.suppressed)
        self.excluded += other.excluded
        self.deployment_count += other.deployment_count

    def sort(self, per_deployment: bool = True) -> None:
        """Findings in their order, each once (rule_runs.once; per_deployment: Settings.keep_deployments)."""
        # Finding's own order (file, line, column, rule), as a C-level key: the dataclass
        # comparisons build two tuples per comparison, seconds on 100,000 findings.
        self.findings.sort(key=SORT_KEY)
        self.suppressed.sort(key=lambda pair: SORT_KEY(pair[0]))
        self.findings, self.suppressed = once(self.findings, self.suppressed, per_deployment)


def lint_paths(paths: Sequence[str], settings: Settings = Settings(),
               stdin: Optional[bytes] = None, stdin_filename: str = "-",
               named: Optional[Collection[str]] = None, settings_for: Optional[SettingsFor] = None,
               run_files: Optional[Union[Sequence[str], "RunClasses"]] = None) -> Report:
    """Check files and directories ("-" reads `stdin`); raises PathError for missing paths.

    Files named one by one (`named`; default: the file paths in `paths`) that hold an unpaired prefill or
    decode half get their directory's other files as read-only context (ctxlint.siblings): paired with them,
    never reported on. `settings_for` gives each file its own Settings (its closest config's). `run_files`: every
    file of the run, where a GKE compute class a pod names is looked for (default: these files, and `stdin` when
    they hold "-"; a --jobs worker is given the whole run's classes, so the answer never depends on the chunk).
    """
    report = Report()
    files = files_to_check(paths, settings, report, settings_for)
    named = set(named) if named is not None else {p for p in paths if p != "-" and not os.path.isdir(p)}
    known_files: Dict[str, bool] = {}  # for the run only: a long-lived process sees files made since
    from ctxlint.adapters.run_classes import run_files as classes_in

    with _fewer_collections(), classes_in(files if run_files is None else run_files, settings.max_file_size,
                                                 None if stdin is None else (stdin, stdin_filename),
                                                 size_limits(files, settings_for, stdin_filename)
                                                 if run_files is None else None):
        for group in by_directory(files):
            # one directory has one closest config, so a group never mixes two
            here = settings_for(group[0]) if settings_for is not None else settings
            loaded = [_load(path, here, stdin, stdin_filename) for path in group]
            _lint_group(loaded, here, report, [p for p in group if p in named], files, known_files)
    report.sort(settings.keep_deployments)
    return report


def _load(path: str, settings: Settings, stdin: Optional[bytes], stdin_filename: str) -> LoadedFile:
    if path == "-":
        return parse_bytes(stdin or b"", stdin_filename, settings.max_file_size)
    run = current_run()
    if run is None:
        return read_path(path, max_bytes=settings.max_file_size)
    data = run.take(path)  # read ahead by a run-wide lookup (run_classes.py): not read twice
    if data is not None and len(data) <= settings.max_file_size:
        return parse_bytes(data, path, settings.max_file_size)
    return read_path(path, max_bytes=settings.max_file_size, seen=run.note)


def lint_text(text: str, filename: str = "<string>", settings: Settings = Settings()) -> Report:
    """Check one in-memory document set (for tests and editor integrations)."""
    report = Report()
    _lint_group([parse_bytes(text.encode("utf-8"), filename, settings.max_file_size)], settings, report)
    report.sort(settings.keep_deployments)
    return report


@record
class _Unit:
    """One file on its way through the pipeline."""

    loaded: LoadedFile
    wanted: Tuple[RuleSpec, ...]
    deployments: List[Deployment]
    diagnostics: List[Diagnostic]
    adapted: Any = None  # the AdaptResult: its routes, services and body limits join in ctxlint.stack
    context: bool = False  # a sibling read for pairing only: nothing in it is reported


_REF_MARKERS = REF_MARKERS  # crd_refs.MARKERS, which joins tests against


def _lint_group(group: Sequence[LoadedFile], settings: Settings, report: Report, named: Sequence[str] = (),
                present: Sequence[str] = (), known_files: Optional[Dict[str, bool]] = None) -> None:
    """Check the files of one directory together (cross-file pairing, then rules, then suppressions)."""
    from ctxlint import siblings

    # what an InferenceService names (crd_refs) and the ConfigMaps a workload reads (config_map_refs) may be in
    # a sibling file
    joins = Joins(group, named)
    units = [_adapted(loaded, settings, joins) for loaded in group]
    ran = [f for u in units if u.adapted is not None for f in u.adapted.scripts]
    if ran:  # a script a compose service of the group runs is read through that service alone
        from ctxlint.adapters.compose_scripts import without
        without(units, ran)
    built = [f for u in units if u.adapted is not None for f in u.adapted.dockerfiles]
    if built:  # a Dockerfile named beside the compose file that builds from it is read: no CTX011 "not read"
        from ctxlint.adapters.compose_build import read_through
        read_through(units, built)
    report.files.extend(loaded.path for loaded in group)
    gateways = [u.loaded.path for u in units if u.adapted.routes and u.loaded.path in named]
    loose = [u.loaded.path for u in units if u.loaded.path in named and joins.loose(u.loaded)]
    wanted = joins.wanted([u.loaded for u in units if u.loaded.path in loose]) if loose else None
    context = siblings.context_files(named, {u.loaded.path: u.deployments for u in units}, present,
                                     lambda path: skipped(path, settings), settings.max_file_size, gateways, loose,
                                     wanted)
    joined = joins.joined(group, context) if context else None
    if joined is not None:
        # a sibling may hold what a file of the group names, or name what it holds: joined, they read anew
        joins = joined
        units = [_adapted(u.loaded, settings, joins) if joins.involves(u.loaded) else u for u in units]
    units += [_adapted(loaded, settings, joins, context=True) for loaded in context]
    if len(units) > 1:
        for unit, deployments in zip(units, pair_across_files([u.deployments for u in units])):
            unit.deployments = deployments
    sups: List[suppress.Suppression] = []
    if not settings.disallow_suppressions:
        for unit in units:
            with _blame(unit.loaded.path):
                sups.extend(suppress.parse_suppressions(unit.loaded))
    found: List[Tuple[Finding, _Unit]] = []
    options_of: Dict[str, Mapping[str, Any]] = {}
    env = CapacityEnv(  # frozen: one for the group's files, which share their settings
        models=settings.models, lock=settings.models_lock, hf_cache=settings.hf_cache,
        default_accelerators=settings.default_accelerators, root=settings.root, config_path=settings.config_label,
        known_files=known_files)
    for unit in units:
        with _blame(unit.loaded.path):
            unit.deployments = [_with_capacity(dep, settings, unit.diagnostics, env) for dep in unit.deployments]
            # With suppressions around, every rule runs, so a suppression of a rule left out of
            # this run is not mistaken for an unused one; only the wanted rules are reported.
            rules = split(all_rules() if sups else unit.wanted).checks
            found.extend((f, unit) for f in run(rules, unit.diagnostics, unit.deployments, settings, options_of))
    views = _stack(units)
    if views:
        by_file = {unit.loaded.path: unit for unit in units}
        rules = [s for s in all_rules() if s.scope == "stack"]
        for view in views:
            unit = by_file[view.route.file]
            wanted_here = rules if sups else [s for s in rules if s.id in split(unit.wanted).ids]
            found.extend((f, unit) for spec in wanted_here
                         for f in stamp(spec, spec.module.check(view, rule_options(spec, settings))))
        if settings.keep_deployments:
            report.stacks.extend(views)
    wanted = {unit.loaded.path: split(unit.wanted).ids for unit in units}
    producer = {id(f): unit for f, unit in found}
    context = {unit.loaded.path for unit in units if unit.context}

    # A finding in a context file is reported when a named file's deployment made it (a service's runtime
    # value), or when it sits among the lines of the values of a deployment a named file holds a value of (the
    # other half of a pair, a ConfigMap's workload): a deployment the run counts is never reported clean while
    # findings about it are dropped
    held = siblings.held_spans([d for u in units for d in u.deployments], context) if context else {}

    def reported(finding: Finding, unit: Optional[_Unit] = None) -> bool:
        unit = unit or producer.get(id(finding))
        ids = wanted.get(finding.file) or (wanted[unit.loaded.path] if unit else set())
        return finding.rule in ids and (finding.file not in context or (unit is not None and not unit.context)
                                        or siblings.about_held(finding, held))

    # A cluster-scoped runtime of another directory the group's services run (crd_refs): its own suppressions
    # apply to what it is found with here, and in its own directory they are not known to be unused.
    elsewhere = set(joins.refs.used_elsewhere()) if joins.refs is not None and sups else set()
    foreign = sorted({f.file for f, _ in found} - {u.loaded.path for u in units}) \
        if not settings.disallow_suppressions else []
    if foreign:
        sups.extend(suppress.foreign_suppressions(foreign))
    with _blame(", ".join(u.loaded.path for u in units)):
        kept, waived, problems = suppress.apply([f for f, _ in found], sups, settings.require_suppression_reason,
                                                home=suppress.overlay_home(producer) if sups else None)
        for unit in units:
            mine = [d for d in problems if d.source.file == unit.loaded.path
                    and not (d.kind == suppress.UNUSED and unit.loaded.path in elsewhere)]
            kept += run(split(unit.wanted).suppression, mine, [], settings)
    report.findings.extend(with_severity(f, settings) for f in unique(kept, settings.keep_deployments) if reported(f))
    report.suppressed.extend((with_severity(f, settings), sup.reason or "") for f, sup in waived if reported(f))
    for unit in units:
        # A context file's deployment counts when a reported file holds one of its values (the pair's other
        # half, a runtime, a ConfigMap).
        mine = [dep for dep in unit.deployments if not unit.context or any(f not in context for f in dep.files)]
        report.deployment_count += len(mine)
        if settings.keep_deployments:
            report.deployments.extend(mine)


def _adapted(loaded: LoadedFile, settings: Settings, joins: Joins, context: bool = False) -> _Unit:
    with _blame(loaded.path):
        adapted = adapt_file(loaded, joins.refs, joins.maps)
        return _Unit(loaded, rules_for(loaded.path, settings), list(adapted.deployments),
                     loaded.diagnostics + adapted.diagnostics, adapted, context=context)


def _stack(units: Sequence[_Unit]) -> list:
    """The routes of this group's gateways joined to its deployments (after capacity, so pools are known)."""
    routes = [r for u in units for r in u.adapted.routes]
    if not routes:
        return []
    from ctxlint.stack import build  # only runs that read a gateway pay for it

    return build(routes, [s for u in units for s in u.adapted.services],
                 [b for u in units for b in u.adapted.body_limits], [d for u in units for d in u.deployments])


def _with_capacity(dep: Deployment, settings: Settings, diagnostics: List[Diagnostic], env: CapacityEnv) -> Deployment:
    if settings.accelerators:  # the deployment's own custom accelerators win over the config's
        dep = replace(dep, custom_accelerators=tuple(settings.accelerators.items()) + dep.custom_accelerators)
    dep, found = with_pools(dep, env)
    diagnostics.extend(found)
    return dep
