"""`check` flags that users of ruff expect: --statistics, -q/--quiet, --exit-zero, -o."""
from __future__ import annotations

import json

from helpers import run

INCIDENT = "samples/incident/deployment.yaml"
SUMMARY = "ctxlint: 3 errors in 1 file, 1 deployment\n"


def test_statistics_counts_findings_per_rule_most_first(in_repo):
    result = run(["check", "samples/incident", "samples/rules/CTX101-window-exceeds-kv-pool", "--statistics"])
    assert result.code == 1
    assert result.out == ("2  CTX101  [error]    window-exceeds-kv-pool\n"
                          "1  CTX102  [error]    overlong-prompts-reach-prefill\n"
                          "1  CTX401  [error]    known-engine-defect\n")


def test_statistics_as_json_and_reports_to_files_unchanged(in_repo, tmp_path):
    target = tmp_path / "r.json"
    result = run(["check", INCIDENT, "--format", "json", "-o", str(target), "--format", "json", "--statistics"])
    assert json.loads(result.out) == [
        {"code": "CTX101", "name": "window-exceeds-kv-pool", "severity": "error", "count": 1},
        {"code": "CTX102", "name": "overlong-prompts-reach-prefill", "severity": "error", "count": 1},
        {"code": "CTX401", "name": "known-engine-defect", "severity": "error", "count": 1}]
    assert len(json.loads(target.read_text())["findings"]) == 3


def test_statistics_of_a_clean_run_is_empty(in_repo):
    result = run(["check", "samples/incident-fixed", "--statistics"])
    assert (result.code, result.out) == (0, "")


def test_statistics_refuses_a_stdout_format_without_a_statistics_form(in_repo):
    result = run(["check", INCIDENT, "--format", "sarif", "--statistics"])
    assert result.code == 2 and result.err.endswith(
        "Error: --statistics replaces the report on stdout, and --format sarif has no statistics form: write it to a "
        "file with --output, or use --format text or json\n")


def test_quiet_prints_the_findings_only(in_repo, tmp_path):
    loud, quiet = run(["check", INCIDENT]), run(["check", INCIDENT, "-q"])
    assert loud.err == SUMMARY and quiet.err == ""
    assert quiet.out == loud.out and quiet.code == loud.code == 1
    assert run(["check", INCIDENT, "--quiet", "--baseline", str(tmp_path / "none.json")]).code == 2
    empty = tmp_path / "empty"
    empty.mkdir()
    # a warning is not chatter: --quiet keeps it
    assert run(["check", "--isolated", "-q", str(empty)]).err == (
        f"ctxlint: warning: no file to check in {empty}; --fail-if-empty makes this exit 1\n")


def test_exit_zero_reports_but_passes(in_repo, tmp_path):
    result = run(["check", INCIDENT, "--exit-zero"])
    assert result.code == 0 and len(result.out.splitlines()) == 3 and result.err == SUMMARY
    assert run(["check", "no/such/path", "--exit-zero"]).code == 2  # usage errors still fail
    empty = tmp_path / "empty"
    empty.mkdir()
    assert run(["check", "--isolated", "--fail-if-empty", "--exit-zero", str(empty)]).code == 0


def test_o_is_short_for_output(in_repo, tmp_path):
    result = run(["check", INCIDENT, "--format", "json", "-o", str(tmp_path / "r.json")])
    assert result.out == "" and len(json.loads((tmp_path / "r.json").read_text())["findings"]) == 3
    result = run(["audit", INCIDENT, "--format", "json", "-o", str(tmp_path / "a.json")])
    assert result.out == "" and json.loads((tmp_path / "a.json").read_text())["totals"]["deployments"] == 1


def test_statistics_under_github_actions_prints_the_text_form(in_repo, monkeypatch):
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    result = run(["check", INCIDENT, "--statistics"])
    assert result.code == 1 and result.out.splitlines()[0] == "1  CTX101  [error]    window-exceeds-kv-pool"
