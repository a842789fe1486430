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


def test_a_file_named_alone_is_paired_with_its_siblings_and_only_it_is_reported(tmp_path, monkeypatch):
    # Issue 13, pre-commit sees only staged files: with only the decode half staged, the pair
    # rule (CTX108) never ran. Its sibling is read as context now: the pair is one deployment, so either half
    # named alone reports the pair's findings, in both files, as the directory's check does.
    _split(tmp_path)
    decode = tmp_path / "deploy" / "decode.yaml"
    decode.write_text(decode.read_text().replace("--context-length 1048576", "--context-length 524288"))
    monkeypatch.chdir(tmp_path)
    whole = run(["check", "deploy"])
    ctx108 = [line for line in whole.out.splitlines() if " CTX108 " in line]
    assert len(ctx108) == 1 and ctx108[0].startswith("deploy/decode.yaml:18:32: CTX108 [warning] decode context "
                                                     "length 524,288 differs from prefill 1,048,576")
    # the decode file's own findings: CTX108, and (Qwen3-235B-A22B-Instruct-2507 being catalogued, 262,144
    # trained positions) CTX109 and the decode's CTX208
    decode_lines = [line for line in whole.out.splitlines() if line.startswith("deploy/decode.yaml:")]
    assert [line.split(" ")[1] for line in decode_lines] == ["CTX208", "CTX108", "CTX109"]
    for args in (["deploy/decode.yaml"], ["deploy/decode.yaml", "--jobs", "2"],
                 ["--force-exclude", "deploy/decode.yaml"]):  # as the pre-commit hook runs it
        alone = run(["check", *args])
        assert (alone.code, alone.out) == (1, whole.out), args
        assert alone.err == "ctxlint: 5 errors, 1 warning, 1 info in 1 file, 1 deployment\n"
    assert run(["check", "deploy/prefill.yaml"]).out == whole.out


def test_a_refused_flag_of_the_other_half_is_reported_with_the_named_half(tmp_path, monkeypatch):
    # the decode half's refused flag (dropped in SGLang 0.5.20; the image is 0.5.21) names no deployment and sits
    # on the flag's line: the prefill half staged alone still reports it, as the directory's check does
    _split(tmp_path)
    decode = tmp_path / "deploy" / "decode.yaml"
    decode.write_text(decode.read_text().replace("--context-length 1048576", "--context-length 1048576 "
                                                 "--cuda-graph-max-bs 64"))
    monkeypatch.chdir(tmp_path)
    whole = run(["check", "deploy"]).out
    assert [line.split(" [")[0] for line in whole.splitlines() if " CTX301 " in line] == [
        "deploy/decode.yaml:18:40: CTX301"]
    assert run(["check", "deploy/prefill.yaml"]).out == whole


def test_siblings_are_read_only_for_an_unpaired_half_and_respect_excludes(tmp_path, monkeypatch):
    from ctxlint.engine import Settings

    _split(tmp_path)
    monkeypatch.chdir(tmp_path)
    decode = tmp_path / "deploy" / "decode.yaml"
    decode.write_text(decode.read_text().replace("--context-length 1048576", "--context-length 524288"))
    paired = lint_paths(["deploy/decode.yaml"])
    assert [dep.display_name for dep in paired.deployments] == ["qwen-prefill + qwen-decode"]
    assert paired.files == ["deploy/decode.yaml"]
    # an excluded sibling is not context, as a directory walk would not read it either
    excluded = lint_paths(["deploy/decode.yaml"], Settings(exclude=("deploy/prefill.yaml",), root=str(tmp_path)))
    assert [dep.display_name for dep in excluded.deployments] == ["qwen-decode"]
    # both halves named: nothing more is read
    both = lint_paths(["deploy/decode.yaml", "deploy/prefill.yaml"])
    assert len(both.deployments) == 1 and both.files == ["deploy/decode.yaml", "deploy/prefill.yaml"]


def test_the_audit_counts_a_pairs_findings_in_both_files(tmp_path, monkeypatch):
    # the pair is placed with its prefill half; a finding in the decode file is still the pair's, not one
    # "in files without a deployment"
    from ctxlint.audit import build_audit

    _split(tmp_path)
    decode = tmp_path / "deploy" / "decode.yaml"
    decode.write_text(decode.read_text().replace("--context-length 1048576", "--context-length 524288"))
    monkeypatch.chdir(tmp_path)
    audit = build_audit(lint_paths(["deploy"]))
    [row] = audit.rows
    assert [(f.rule, f.file) for f in row.findings] == [  # CTX208: the decode's cap is no pool
        ("CTX109", "deploy/decode.yaml"), ("CTX401", "deploy/prefill.yaml"), ("CTX102", "deploy/prefill.yaml"),
        ("CTX109", "deploy/prefill.yaml"), ("CTX201", "deploy/prefill.yaml"), ("CTX108", "deploy/decode.yaml"),
        ("CTX208", "deploy/decode.yaml")]
    assert audit.outside == ()


def test_role_settings_that_disagree_across_files_name_the_other_file(tmp_path, monkeypatch):
    # Sweep 33: CTX108 on the decode script said "differs from prefill 8,192 (line 47)", a line of the prefill
    # script, as if it were in the decode one. Another file's value is cited as file:line, the path as printed.
    kv = """ --kv-transfer-config '{"kv_connector": "NixlConnector", "kv_role": "kv_%s"}'\n"""
    (tmp_path / "pd").mkdir()
    (tmp_path / "pd/start_prefill.sh").write_text(
        "#!/bin/bash\nvllm serve meta-llama/Llama-3.2-3B-Instruct \\\n  --max-model-len 8192 \\\n" + kv % "producer")
    (tmp_path / "pd/start_decode.sh").write_text(
        "#!/bin/bash\n# decode\nvllm serve meta-llama/Llama-3.2-3B-Instruct \\\n  --max-model-len 4096 \\\n"
        + kv % "consumer")
    monkeypatch.chdir(tmp_path)
    assert run(["check", "pd", "--select", "CTX108"]).out == (
        "pd/start_decode.sh:4:19: CTX108 [warning] decode context length 4,096 differs from prefill 8,192 "
        "(pd/start_prefill.sh:3): a request can pass one side of the handoff and fail the other. Use the same "
        "context length on every prefill and decode role (role-settings-disagree)\n")
