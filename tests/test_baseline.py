"""Baseline: keys without line numbers, counts, update/prune, file format and atomic writes."""
from __future__ import annotations

import json
import os

import pytest

from conftest import REPO
from ctxlint import baseline
from ctxlint.baseline import BaselineError, apply, create, load, prune, text_reader, update, write
from ctxlint.engine import Settings, lint_text
from ctxlint.findings import Finding

NAME = "deploy/incident.yaml"
INCIDENT = (REPO / "samples/incident/deployment.yaml").read_text()


def lint(text: str, name: str = NAME):
    # The two capacity findings of the incident (its advisory finding would only add a third row).
    return lint_text(text, name, Settings(select=("CTX101", "CTX102"))).findings, text_reader({name: text})


def finding(line: int, rule: str = "CTX101", path: str = "spec.x", deployment: str = "d") -> Finding:
    return Finding(NAME, line, 1, rule, "n", "error", "m", path=path, deployment=deployment)


def test_create_then_apply_accepts_everything():
    findings, reader = lint(INCIDENT)
    data = create(findings, reader)
    assert data["version"] == 1 and data["tool"] == "ctxlint"
    assert [(e["rule"], e["path"], e["count"]) for e in data["entries"]] == [
        ("CTX101", "spec.serving.roles[0].kv_pool_tokens", 1), ("CTX102", "spec.advertised.context_window", 1)]
    assert all(e["fingerprint"].startswith("sha256:") and "line" not in e for e in data["entries"])
    assert apply(findings, data, reader) == ([], 2, 0)


def test_moved_lines_still_match():
    findings, reader = lint(INCIDENT)
    data = create(findings, reader)
    moved = "# a new header comment\n# and another\n" + INCIDENT.replace("kv_pool_tokens: 681280",
                                                                          "kv_pool_tokens: 681280  # noted")
    moved_findings, moved_reader = lint(moved)
    assert [f.line for f in moved_findings] != [f.line for f in findings]
    assert apply(moved_findings, data, moved_reader) == ([], 2, 0)


def test_changed_value_is_new_and_the_old_one_fixed():
    findings, reader = lint(INCIDENT)
    data = create(findings, reader)
    changed, changed_reader = lint(INCIDENT.replace("kv_pool_tokens: 681280", "kv_pool_tokens: 500000"))
    new, matched, fixed = apply(changed, data, changed_reader)
    assert [f.rule for f in new] == ["CTX101"] and matched == 1 and fixed == 1


def test_counts_keep_a_new_finding_from_hiding_behind_an_old_one():
    data = create([finding(5)])
    new, matched, fixed = apply([finding(9), finding(5)], data)
    assert [f.line for f in new] == [9] and (matched, fixed) == (1, 0)
    data2 = create([finding(5), finding(9)])
    assert data2["entries"][0]["count"] == 2
    assert apply([finding(20)], data2) == ([], 1, 1)


def test_key_uses_relative_posix_paths(tmp_path):
    absolute = Finding(str(tmp_path / "a" / "b.yaml"), 1, 1, "CTX101", "n", "error", "m")
    assert baseline.key(absolute, root=str(tmp_path))[1] == "a/b.yaml"
    assert baseline.key(Finding("-", 1, 1, "CTX101", "n", "error", "m"))[1] == "-"


def test_value_normalization_ignores_quoting_and_spacing():
    assert baseline.normalize('  "1Mi" ') == baseline.normalize("1Mi")
    a = text_reader({NAME: "x: '1Mi'\n"})(Finding(NAME, 1, 4, "CTX005", "n", "error", "m"))
    b = text_reader({NAME: "x:   1Mi   # c\n"})(Finding(NAME, 1, 6, "CTX005", "n", "error", "m"))
    assert baseline.normalize(a) == baseline.normalize(b) == "1Mi"


def test_prune_only_removes():
    data = create([finding(1), finding(2), finding(3, rule="CTX102")])
    pruned = prune(data, [finding(7), finding(8, rule="CTX103")])
    assert [(e["rule"], e["count"]) for e in pruned["entries"]] == [("CTX101", 1)]


def test_update_accepts_current_findings_and_keeps_notes():
    data = create([finding(1), finding(3, rule="CTX102")])
    data["entries"][0]["note"] = "tracked in OPS-1"
    updated = update(data, [finding(1), finding(2), finding(4, rule="CTX103")])
    assert [(e["rule"], e["count"], e.get("note")) for e in updated["entries"]] == [
        ("CTX101", 2, "tracked in OPS-1"), ("CTX103", 1, None)]


def test_write_is_sorted_stable_and_atomic(tmp_path, monkeypatch):
    target = tmp_path / ".ctxlint-baseline.json"
    data = create([finding(3, rule="CTX102"), finding(1)])
    write(str(target), data)
    first = target.read_text()
    assert first.endswith("\n") and load(str(target)) == json.loads(first)
    write(str(target), create([finding(1), finding(3, rule="CTX102")]))
    assert target.read_text() == first  # same findings, same bytes
    assert [p.name for p in tmp_path.iterdir()] == [target.name]  # no temp file left

    def crash(src, dst):
        raise OSError("disk full")
    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError):
        write(str(target), create([]))
    assert target.read_text() == first and [p.name for p in tmp_path.iterdir()] == [target.name]


@pytest.mark.parametrize("content, message", [
    ("{", "invalid JSON in baseline"),
    ('{"version": 1, "tool": "other", "entries": []}', "not a ctxlint baseline"),
    ('{"version": 2, "tool": "ctxlint", "entries": []}', "baseline version 2 is not supported"),
    ('{"version": 1, "tool": "ctxlint", "entries": [{"rule": "CTX101"}]}', "malformed baseline entries"),
    ('{"version": 1, "tool": "ctxlint", "entries": [{"rule": "A", "file": "f", "fingerprint": "x", "count": 0}]}',
     "malformed baseline entries"),
])
def test_load_rejects_bad_files(tmp_path, content, message):
    path = tmp_path / "b.json"
    path.write_text(content)
    with pytest.raises(BaselineError, match=message):
        load(str(path))


def test_load_missing_file(tmp_path):
    with pytest.raises(BaselineError, match="baseline file does not exist"):
        load(str(tmp_path / "nope.json"))
