"""rule_runs.run skips an input rule when the file recorded no diagnostics and a deployment rule when it has no
deployments: every finding must be what the loop it replaced (kept below) gives, for every file of the samples
and the corpus, with all rules and with suppression rules, and no input rule may have anything to say about an
empty list of diagnostics (the premise of the skip)."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional

import pytest
from conftest import SHARED

from ctxlint import engine, rule_runs
from ctxlint.engine import Settings, lint_paths
from ctxlint.registry import all_rules

ROOT = Path(__file__).resolve().parents[1]


def _reference(rules, diagnostics, deployments, settings, options_of: Optional[Dict[str, Mapping[str, Any]]] = None):
    """The replaced loop: every rule asked, whatever the file holds."""
    out: List[Any] = []
    for spec in rules:
        if spec.scope == "probe":
            continue
        options = options_of.get(spec.id) if options_of is not None else None
        if options is None:
            options = rule_runs.rule_options(spec, settings)
            if options_of is not None:
                options_of[spec.id] = options
        if spec.scope == "input":
            out.extend(rule_runs.stamp(spec, spec.module.check(diagnostics, options)))
        elif spec.scope == "stack":
            continue
        else:
            for dep in deployments:
                for problem in spec.module.check(dep, options):
                    out.append(rule_runs.to_finding(spec, problem))
    return out


def test_no_input_rule_reports_without_diagnostics() -> None:
    inputs = [s for s in all_rules() if s.scope == "input"]
    assert len(inputs) >= 10
    for spec in inputs:
        assert list(spec.module.check([], spec.default_options())) == [], spec.id


def test_every_file_finds_what_every_rule_asked_finds(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = {"all": 0, "skipped": 0}

    def both(rules, diagnostics, deployments, settings, options_of=None):
        rules = tuple(rules)
        calls["all"] += 1
        calls["skipped"] += not diagnostics or not deployments
        found = rule_runs.run(rules, diagnostics, deployments, settings, options_of)
        assert found == _reference(rules, diagnostics, deployments, settings, {}), [f.rule for f in found]
        return found

    monkeypatch.setattr(engine, "run", both)
    paths = [str(ROOT / "samples")] + ([str(SHARED / "corpus")] if (SHARED / "corpus").is_dir() else [])
    report = lint_paths(paths, Settings())
    assert report.findings and calls["skipped"] > 50 and calls["all"] > calls["skipped"]


def test_the_rules_run_are_those_the_scope_tests_picked() -> None:
    """run() picks a file's rules from runnable(), sorted once per tuple of rules: the same rules, in the same
    order, as testing each rule's scope for the file did, for any selection of rules in any order."""
    import random

    rules = all_rules()
    rng = random.Random(15)
    for _ in range(200):
        chosen = tuple(rng.sample(rules, rng.randint(0, len(rules))))
        for diagnostics in (False, True):
            for deployments in (False, True):
                expected = tuple(s for s in chosen if (diagnostics if s.scope == "input" else deployments
                                                       if s.scope == "deployment" else False))
                assert rule_runs.runnable(chosen)[diagnostics + 2 * deployments] == expected
                assert rule_runs.runnable(list(chosen))[diagnostics + 2 * deployments] == expected


def test_the_checks_run_reads_are_the_specs_own() -> None:
    """run() reads each rule's ID, check and scope from rule_runs._checks, made once per tuple of rules: they must
    be those of runnable()'s specs, in the same order, for any selection of rules."""
    import random

    rules = all_rules()
    rng = random.Random(15)
    for _ in range(100):
        chosen = tuple(rng.sample(rules, rng.randint(0, len(rules))))
        for which, specs in enumerate(rule_runs.runnable(chosen)):
            assert rule_runs._checks(chosen)[which] == tuple(
                (s, s.id, s.module.check, s.scope == "input") for s in specs)


def test_a_workload_stating_no_promise_or_gateway_reads_as_the_records_defaults() -> None:
    from ctxlint.adapters import workload_groups
    from ctxlint.model import Advertised, Gateway

    assert workload_groups._NO_PROMISE == Advertised() and workload_groups._NO_GATEWAY == Gateway()
    with pytest.raises(Exception):
        workload_groups._NO_PROMISE.context_window = None  # frozen: shared by every deployment that states none
