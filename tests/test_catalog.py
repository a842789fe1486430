"""Meta-tests: no rule is forgotten, and every rule is documented and sampled."""
from __future__ import annotations

import pkgutil
import re

import jsonschema
import pytest

import ctxlint.rules
from conftest import REPO
from ctxlint.registry import all_rules
from helpers import run

RULES = all_rules()
# Probe rules judge a live run, not a file: tests/test_probe.py triggers each against a real server.
FILE_RULES = tuple(spec for spec in RULES if spec.scope != "probe")
SECTIONS = ("Why:", "Example (bad):", "Example (good):", "Options:")


def test_every_rule_module_is_registered():
    modules = {m.name for m in pkgutil.iter_modules(ctxlint.rules.__path__) if not m.name.startswith("_")}
    registered = {spec.module.__name__.rsplit(".", 1)[1] for spec in RULES}
    assert modules == registered, f"not in ctxlint.rules.ALL: {sorted(modules - registered)}"


@pytest.mark.parametrize("spec", RULES, ids=lambda s: s.id)
def test_module_file_name_carries_id_and_name(spec):
    expected = f"{spec.id.lower()}_{spec.name.replace('-', '_')}"
    assert spec.module.__name__.rsplit(".", 1)[1] == expected


@pytest.mark.parametrize("spec", RULES, ids=lambda s: s.id)
def test_rule_is_documented(spec):
    doc = spec.doc
    assert spec.summary and not spec.summary.endswith(":")
    positions = [doc.find(section) for section in SECTIONS]
    assert all(p > 0 for p in positions), f"{spec.id} docstring lacks one of {SECTIONS}"
    assert positions == sorted(positions), f"{spec.id} docstring sections out of order"


@pytest.mark.parametrize("spec", RULES, ids=lambda s: s.id)
def test_options_schema_is_valid_and_defaults_validate(spec):
    jsonschema.Draft202012Validator.check_schema(dict(spec.options_schema))
    jsonschema.validate(spec.default_options(), dict(spec.options_schema))


@pytest.mark.parametrize("spec", FILE_RULES, ids=lambda s: s.id)
def test_bad_sample_triggers_the_rule_and_good_does_not(spec, in_repo):
    folder = REPO / "samples" / "rules" / f"{spec.id}-{spec.name}"
    assert (folder / "bad.yaml").is_file() and (folder / "good.yaml").is_file(), f"{folder} incomplete"
    bad = run(["check", str(folder / "bad.yaml"), "--select", spec.id])
    good = run(["check", str(folder / "good.yaml"), "--select", spec.id])
    assert bad.code == (1 if spec.severity == "error" else 0)
    assert re.search(rf": {spec.id} \[{spec.severity}\] ", bad.out), bad.out
    assert good.out == "" and good.code == 0
    # The bad sample marks each offending line with a `# [name]` comment.
    marked = {i + 1 for i, line in enumerate((folder / "bad.yaml").read_text().splitlines())
              if f"[{spec.name}]" in line}
    reported = {int(line.split(":")[1]) for line in bad.out.splitlines()}
    assert reported <= marked, (reported, marked)


def test_no_sample_folder_without_a_rule():
    names = {f"{s.id}-{s.name}" for s in FILE_RULES}
    folders = {p.name for p in (REPO / "samples" / "rules").iterdir() if p.is_dir()}
    assert folders == names


def test_every_probe_rule_is_triggered_by_the_probe_tests():
    probe_tests = (REPO / "tests" / "test_probe.py").read_text(encoding="utf-8")
    missing = [s.id for s in RULES if s.scope == "probe" and f'"{s.id}' not in probe_tests
               and f"CTX{s.id[3:]} [" not in probe_tests]
    assert not missing, f"probe rules no test_probe.py test asserts: {missing}"
