"""The real-config corpus (../shared/corpus/real): what ctxlint recognises in each file, and finds.

tests/golden/corpus.txt records, per file, every deployment recognised (name, input
format, engine and version, roles with context length, KV pool and accelerators) and
every finding. A change in adapters or rules shows up there as a reviewable diff;
regenerate with `python -m pytest tests/test_corpus_golden.py --update-golden`.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import List

import pytest

from conftest import REPO, SHARED
from ctxlint.engine import lint_paths
from ctxlint.model import Deployment, Role, fmt
from helpers import run

CORPUS = SHARED / "corpus" / "real"
GOLDEN = REPO / "tests" / "golden" / "corpus.txt"
pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus/real is not beside the repo")


def corpus_files() -> List[str]:
    return sorted(p.relative_to(CORPUS).as_posix() for p in CORPUS.rglob("*")
                  if p.is_file() and p.suffix in (".yaml", ".yml", ".json"))


def _role(role: Role) -> str:
    parts = [role.label]
    if role.replicas is not None:
        parts.append(f"x{role.replicas.value}")
    if role.context_length is not None:
        parts.append(f"context {fmt(role.context_length.value)}")
    if role.pool is not None:
        parts.append(f"pool {fmt(role.pool.tokens)} {role.pool.origin}")
    acc = role.accelerators
    if acc.type is not None or acc.count is not None:
        parts.append(f"{acc.count.value if acc.count else '?'}x {acc.type.value if acc.type else '?'}")
    if role.parallelism.gpus > 1:
        parts.append(f"tp{role.parallelism.tp} pp{role.parallelism.pp} dp{role.parallelism.dp}")
    return " ".join(parts)


def _deployment(dep: Deployment) -> str:
    engine = dep.engine.name.value if dep.engine.name is not None else "?"
    version = f" {dep.engine.version.value}" if dep.engine.version is not None else ""
    model = dep.model.id.value if dep.model.id is not None else "?"
    head = f"  deployment {dep.display_name or '?'} [{dep.input_format}] {engine}{version} model {model}"
    return "\n".join([head] + [f"    {_role(role)}" for role in dep.roles])


def render() -> str:
    cwd = os.getcwd()
    os.chdir(CORPUS)
    try:
        out = []
        for rel in corpus_files():
            report = lint_paths([rel])
            out.append(f"== {rel}")
            out.extend(_deployment(dep) for dep in report.deployments)
            # a finding in a sibling read as context (about this file's deployment) names its file
            out.extend(f"  {'' if f.file == rel else f.file + ':'}{f.line}:{f.column} {f.rule} [{f.severity}] "
                       f"{f.message}" for f in report.findings)
        return "\n".join(out) + "\n"
    finally:
        os.chdir(cwd)


def test_corpus_golden(update_golden):
    actual = render()
    if update_golden:
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(actual, encoding="utf-8")
    assert GOLDEN.exists(), "tests/golden/corpus.txt missing: run with --update-golden"
    expected = GOLDEN.read_text(encoding="utf-8")
    if actual != expected:
        import difflib

        diff = "\n".join(list(difflib.unified_diff(expected.splitlines(), actual.splitlines(), "golden", "now",
                                                   lineterm=""))[:80])
        pytest.fail("corpus output changed (rerun with --update-golden if intended):\n" + diff)


def test_every_corpus_file_goes_through_the_cli(monkeypatch):
    monkeypatch.chdir(CORPUS)
    result = run(["check", ".", "--format", "json", "--fail-on", "never"])
    assert result.code == 0, result.err
    assert "Traceback" not in result.out + result.err


def test_files_other_yaml_readers_reject_give_a_located_finding(monkeypatch):
    """PyYAML (pure Python) rejects four corpus files: three write `{{HF_TOKEN}}` placeholders,
    which parse as a mapping used as a key (Kubernetes refuses them: CTX001 error); one has a
    tab after a value, which YAML 1.2, libyaml and Kubernetes accept (CTX009 warning)."""
    monkeypatch.chdir(CORPUS)
    import yaml

    broken = []
    for rel in corpus_files():
        try:
            list(yaml.safe_load_all(Path(rel).read_text(encoding="utf-8")))
        except yaml.YAMLError as exc:
            broken.append((rel, exc.problem_mark.line + 1))
    assert len(broken) == 4, broken
    rules = []
    for rel, line in broken:
        result = run(["check", rel, "--select", "CTX0"])
        first = result.out.splitlines()[0]
        assert first.startswith(f"{rel}:{line}:"), (first, line)
        rules.append(first.split(" ")[1])
    assert sorted(rules) == ["CTX001", "CTX001", "CTX001", "CTX009"]
