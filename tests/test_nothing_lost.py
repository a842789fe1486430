"""ctxlint never modifies what it reads, and a failed run leaves no partial output files.

Inputs (the samples tree and some corpus files, copied to tmp) are hashed before and
after every command in `_runs` (check in every format, with --output, baseline create/update/prune,
check --baseline, audit --output); a new command that writes files is one more entry there.
"""
from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path
from typing import Dict, List

import pytest

from conftest import REPO, SHARED
from helpers import run

FORMATS = ["text", "concise", "full", "json", "sarif", "github", "junit", "gitlab", "markdown"]


def _tree(tmp_path: Path) -> Path:
    root = tmp_path / "in"
    shutil.copytree(REPO / "samples", root / "samples")
    corpus = SHARED / "corpus" / "real"
    if corpus.is_dir():
        for path in sorted(corpus.rglob("*.yaml"))[:40]:
            target = root / "corpus" / path.relative_to(corpus)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
    return root


def _snapshot(root: Path) -> Dict[str, tuple]:
    """Content hash, mode and mtime of every file and directory under root."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            st = path.lstat()
            digest = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "dir"
            out[str(path.relative_to(root))] = (digest, st.st_mode, st.st_mtime_ns)
    return out


def _runs(out: Path) -> List[List[str]]:
    runs = [["check", "{in}"]]
    runs += [["check", "{in}", "--format", fmt] for fmt in FORMATS]
    runs.append(["check", "{in}", *[arg for fmt in FORMATS for arg in ("--format", fmt)],
                 *[arg for fmt in FORMATS for arg in ("--output", str(out / f"report.{fmt}"))]])
    runs.append(["check", "{in}/samples/incident/deployment.yaml", "--select", "CTX1", "--fail-on", "never"])
    # The baseline is written outside the inputs, maintained, then used by a check.
    baseline = str(out / "baseline.json")
    runs += [["baseline", "create", "{in}", "--baseline", baseline],
             ["baseline", "update", "{in}", "--baseline", baseline],
             ["baseline", "prune", "{in}", "--baseline", baseline],
             ["check", "{in}", "--baseline", baseline],
             ["audit", "{in}", "--output", str(out / "audit.txt")]]
    return runs


def test_inputs_are_never_modified(tmp_path):
    root = _tree(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    before = _snapshot(root)
    for args in _runs(out):
        result = run([a.replace("{in}", str(root)) for a in args])
        assert result.code in (0, 1), (args, result.err)
        assert _snapshot(root) == before, args
    assert sorted(p.name for p in out.iterdir() if p.name.startswith("report.")) == \
        sorted(f"report.{fmt}" for fmt in FORMATS)
    assert not [p for p in out.iterdir() if p.name.startswith(".ctxlint-")]  # no temp files left
    assert (out / "baseline.json").is_file() and (out / "audit.txt").is_file()


def test_failing_run_leaves_no_partial_output(tmp_path, monkeypatch):
    import ctxlint.reporters as reporters

    def half_then_fail(report, stream, ctx=None):
        stream.write('{"partial": ')
        raise RuntimeError("reporter failed half way")

    monkeypatch.setitem(reporters.REPORTERS, "json", half_then_fail)
    target = tmp_path / "report.json"
    with pytest.raises(RuntimeError):
        run(["check", str(REPO / "samples" / "incident"), "--format", "json", "--output", str(target)])
    assert os.listdir(tmp_path) == []


def test_failing_run_keeps_the_previous_report(tmp_path, monkeypatch):
    import ctxlint.reporters as reporters

    target = tmp_path / "report.sarif"
    target.write_text("previous report\n")
    monkeypatch.setitem(reporters.REPORTERS, "sarif", lambda *a, **k: (_ for _ in ()).throw(OSError("disk full")))
    result = run(["check", str(REPO / "samples" / "incident"), "--format", "sarif", "--output", str(target)])
    assert (result.code, result.err) == (2, f"ctxlint: cannot write {target}: disk full\n")
    assert target.read_text() == "previous report\n"
    assert os.listdir(tmp_path) == ["report.sarif"]


def test_usage_error_writes_no_output(tmp_path):
    target = tmp_path / "report.json"
    result = run(["check", str(tmp_path / "missing.yaml"), "--format", "json", "--output", str(target)])
    assert result.code == 2 and not target.exists()
