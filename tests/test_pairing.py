"""Prefill and decode workloads in sibling files are checked as one disaggregated deployment."""
from __future__ import annotations

import json

from conftest import REPO
from ctxlint.engine import lint_paths
from helpers import run

PAIR = (REPO / "samples/kubernetes/sglang-prefill-decode/deployment.yaml").read_text()
PREFILL, DECODE = PAIR.split("\n---\n")


def _split(tmp_path, prefill_dir="deploy", decode_dir="deploy"):
    (tmp_path / prefill_dir).mkdir(exist_ok=True)
    (tmp_path / decode_dir).mkdir(exist_ok=True)
    (tmp_path / prefill_dir / "prefill.yaml").write_text(PREFILL + "\n")
    (tmp_path / decode_dir / "decode.yaml").write_text(DECODE)


def test_halves_in_sibling_files_are_one_deployment(tmp_path, monkeypatch):
    _split(tmp_path)
    monkeypatch.chdir(tmp_path)
    report = lint_paths(["deploy"])
    (dep,) = report.deployments
    assert dep.disaggregated and dep.disaggregation.value == "prefill-decode"
    assert [(r.kind, r.source.file) for r in dep.roles] == [("prefill", "deploy/prefill.yaml"),
                                                             ("decode", "deploy/decode.yaml")]
    assert dep.display_name == "qwen-prefill + qwen-decode"
    result = run(["check", "deploy"])
    assert result.code == 1 and "1 deployment" in result.err
    ctx102 = [line for line in result.out.splitlines() if " CTX102 " in line]
    assert ctx102 and ctx102[0].startswith("deploy/prefill.yaml:20:32: CTX102 [error] security:")


def test_pairing_does_not_depend_on_jobs(tmp_path, monkeypatch):
    _split(tmp_path)
    for i in range(40):  # a directory larger than a worker chunk stays whole (the pair is 40 files apart)
        (tmp_path / "deploy" / f"other-{i:02}.yaml").write_text("kind: ConfigMap\n")
    for i in range(40):  # and other directories, so that --jobs 2 really splits the work
        (tmp_path / f"team-{i:02}").mkdir()
        (tmp_path / f"team-{i:02}" / "prefill.yaml").write_text(PREFILL + "\n")
    monkeypatch.chdir(tmp_path)
    one = run(["check", ".", "--format", "json"])
    two = run(["check", ".", "--format", "json", "--jobs", "2"])
    assert one.out == two.out and json.loads(one.out)["summary"]["deployments"] == 41


def test_halves_in_different_directories_stay_apart(tmp_path, monkeypatch):
    _split(tmp_path, "prefill", "decode")
    monkeypatch.chdir(tmp_path)
    report = lint_paths(["."])
    assert sorted(dep.display_name for dep in report.deployments) == ["qwen-decode", "qwen-prefill"]


def test_other_models_are_not_paired(tmp_path, monkeypatch):
    _split(tmp_path)
    other = (tmp_path / "deploy" / "decode.yaml").read_text().replace("Qwen3-235B-A22B", "Qwen3-30B-A3B")
    (tmp_path / "deploy" / "decode.yaml").write_text(other)
    monkeypatch.chdir(tmp_path)
    assert len(lint_paths(["deploy"]).deployments) == 2
