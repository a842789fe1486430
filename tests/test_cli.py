"""The command line: exit codes, formats, selection, stdin, usage errors."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from ctxlint import __version__
from helpers import run

INCIDENT = "samples/incident/deployment.yaml"
FIXED = "samples/incident-fixed/deployment.yaml"


def test_version():
    result = run(["--version"])
    assert result.code == 0 and result.out.strip() == f"ctxlint, version {__version__}"


def test_python_dash_m_runs_the_cli(in_repo):
    proc = subprocess.run([sys.executable, "-m", "ctxlint", "check", INCIDENT],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 1
    assert proc.stdout.count("\n") == 3 and "Traceback" not in proc.stderr


def test_exit_codes_follow_fail_on(in_repo):
    assert run(["check", INCIDENT]).code == 1
    assert run(["check", INCIDENT, "--fail-on", "never"]).code == 0
    assert run(["check", FIXED, "--fail-on", "info"]).code == 0
    warn_only = "samples/rules/CTX106-prompt-budget-below-minimum/bad.yaml"
    assert run(["check", warn_only]).code == 0
    assert run(["check", warn_only, "--fail-on", "warning"]).code == 1


def test_select_and_ignore_by_code_prefix_and_name(in_repo):
    assert [l.split()[1] for l in run(["check", INCIDENT, "--select", "CTX101"]).out.splitlines()] == ["CTX101"]
    assert [l.split()[1] for l in run(["check", INCIDENT, "--ignore", "overlong-prompts-reach-prefill,CTX4"]).out.splitlines()] == ["CTX101"]
    assert run(["check", INCIDENT, "--select", "CTX0"]).out == ""
    both = run(["check", INCIDENT, "--select", "CTX1", "--ignore", "CTX101,CTX102"])
    assert both.out == "" and both.code == 0
    # the more specific selector wins
    assert "CTX101" in run(["check", INCIDENT, "--ignore", "CTX1", "--select", "CTX101"]).out


def test_unknown_selector_is_a_usage_error(in_repo):
    result = run(["check", INCIDENT, "--select", "CTX1O1"])
    assert result.code == 2
    assert "unknown rule selector 'CTX1O1'; did you mean 'CTX101'?" in result.err


def test_missing_path_is_a_usage_error(in_repo):
    result = run(["check", "no/such/file.yaml"])
    assert result.code == 2 and "path does not exist: no/such/file.yaml" in result.err


def test_bad_option_value_is_a_usage_error(in_repo):
    assert run(["check", INCIDENT, "--fail-on", "fatal"]).code == 2
    assert run(["check", INCIDENT, "--format", "xml"]).code == 2


def test_json_contract(in_repo):
    result = run(["check", INCIDENT, "--format", "json"])
    assert result.code == 1
    data = json.loads(result.out)
    assert data["version"] == 1
    assert data["summary"] == {"files": 1, "deployments": 1, "errors": 3, "warnings": 0, "infos": 0}
    first = data["findings"][0]
    assert {"rule", "name", "severity", "message", "file", "line", "column", "path", "deployment"} <= set(first)
    assert (first["rule"], first["line"], first["column"], first["path"], first["deployment"]) == (
        "CTX102", 13, 21, "spec.advertised.context_window", "coder-moe-prod")
    assert (data["findings"][1]["rule"], data["findings"][1]["path"]) == ("CTX401", "spec.engine.version")
    second = data["findings"][2]
    assert (second["rule"], second["path"]) == ("CTX101", "spec.serving.roles[0].kv_pool_tokens")


def test_stdin_with_filename(in_repo):
    with open(INCIDENT, "rb") as handle:
        data = handle.read()
    result = run(["check", "-", "--stdin-filename", "deploy/prod.yaml"], stdin=data)
    assert result.code == 1
    assert result.out.splitlines()[0].startswith("deploy/prod.yaml:13:21: CTX102")


def test_empty_stdin_is_clean(in_repo):
    result = run(["check", "-"], stdin=b"")
    assert result.code == 0 and "no findings in 1 file, 0 deployments" in result.err


def test_directory_is_walked_recursively_and_sorted(in_repo):
    result = run(["check", "samples/rules", "--select", "CTX001,CTX003"])
    files = [line.split(":")[0] for line in result.out.splitlines()]
    assert files == ["samples/rules/CTX001-parse-error/bad.yaml", "samples/rules/CTX003-duplicate-key/bad.yaml"]


def test_summary_goes_to_stderr_not_stdout(in_repo):
    result = run(["check", INCIDENT])
    assert "ctxlint: 3 errors in 1 file, 1 deployment" in result.err
    assert "ctxlint:" not in result.out


def test_rules_table_lists_every_rule():
    result = run(["rules"])
    assert result.code == 0
    assert "CTX101  window-exceeds-kv-pool" in result.out
    assert "error (security)" in result.out
    from ctxlint.rules import ALL

    assert len(json.loads(run(["rules", "--format", "json"]).out)) == len(ALL)


@pytest.mark.parametrize("key", ["CTX102", "ctx102", "overlong-prompts-reach-prefill"])
def test_explain_by_id_or_name(key):
    result = run(["explain", key])
    assert result.code == 0
    assert result.out.startswith("CTX102 overlong-prompts-reach-prefill [error]")
    assert "### Example (bad)" in result.out


def test_explain_unknown_rule():
    result = run(["explain", "CTX999"])
    assert result.code == 2
    assert result.err.endswith("Error: unknown rule 'CTX999' (`ctxlint rules` lists every rule)\n")


@pytest.mark.parametrize("typed, meant", [
    ("CTX2O1", "CTX201 (context-exceeds-kv-pool)"),
    ("ctx11", "CTX101 (window-exceeds-kv-pool) or CTX011 (unsupported-file)"),
    ("idle", "CTX205 (idle-accelerators)"),
    ("kv-pool", "CTX101 (window-exceeds-kv-pool) or CTX201 (context-exceeds-kv-pool) or "
                "CTX602 (route-window-exceeds-kv-pool)"),
    ("window-exceeds-kv-pol", "CTX101 (window-exceeds-kv-pool) or CTX602 (route-window-exceeds-kv-pool) or "
                              "CTX201 (context-exceeds-kv-pool)"),
])
def test_explain_suggests_the_rule_a_typo_meant(typed, meant):
    result = run(["explain", typed])
    assert result.code == 2
    assert result.err.endswith(f"Error: unknown rule '{typed}'; did you mean {meant}? "
                               "(`ctxlint rules` lists every rule)\n")


def test_schema_command_prints_the_shipped_schema():
    result = run(["schema"])
    schema = json.loads(result.out)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert "kv_pool_tokens" in schema["properties"]["spec"]["properties"]["serving"]["properties"]["roles"]["items"]["properties"]


def test_several_formats_in_one_run(in_repo, tmp_path):
    sarif = tmp_path / "ctxlint.sarif"
    result = run(["check", INCIDENT, "--format", "sarif", "--output", str(sarif), "--format", "text"])
    assert result.code == 1
    assert [line.split(" ")[1] for line in result.out.splitlines()] == ["CTX102", "CTX401", "CTX101"]
    data = json.loads(sarif.read_text(encoding="utf-8"))
    regions = [r["locations"][0]["physicalLocation"]["region"] for r in data["runs"][0]["results"]]
    assert [(r["startLine"], r["startColumn"]) for r in regions] == [(13, 21), (17, 14), (24, 25)]
    assert not list(tmp_path.glob(".ctxlint-*"))  # the temporary file was renamed, not left behind


def test_github_format_is_the_default_under_actions(in_repo, monkeypatch, tmp_path):
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result = run(["check", INCIDENT])
    assert result.out.startswith("::error file=samples/incident/deployment.yaml,line=13,")
    assert "CTX101" in summary.read_text(encoding="utf-8")


def test_more_outputs_than_formats_is_a_usage_error(in_repo, tmp_path):
    result = run(["check", INCIDENT, "--format", "json", "--output", str(tmp_path / "a"),
                  "--output", str(tmp_path / "b")])
    assert result.code == 2 and "more --output files than --format options" in result.err
    assert not (tmp_path / "a").exists()


@pytest.mark.parametrize("args, named", [
    (["--format", "json", "--format", "sarif"], "json and sarif"),
    (["--format", "json", "--output", "-", "--format", "text"], "json and text"),
])
def test_two_formats_on_stdout_is_a_usage_error(in_repo, args, named):
    # Issue 13 item 5: two documents were written to stdout back to back.
    result = run(["check", INCIDENT, *args])
    assert (result.code, result.out) == (2, "")
    assert result.err.endswith(f"Error: --format {named} would both write to stdout: "
                               "give all but one an --output FILE\n")


def _uris(sarif: str):
    run_ = json.loads(sarif)["runs"][0]
    locations = [r["locations"][0]["physicalLocation"]["artifactLocation"] for r in run_["results"]]
    return run_["originalUriBaseIds"]["%SRCROOT%"]["uri"], locations


def test_sarif_uris_are_relative_to_the_repository_root(tmp_path, monkeypatch):
    # Issue 13 item 8: run from a subdirectory, the URI was `../deploy/a.yaml`, which code
    # scanning cannot resolve against the repository.
    from conftest import REPO

    (tmp_path / ".git").mkdir()
    (tmp_path / "deploy").mkdir()
    (tmp_path / "tools").mkdir()
    (tmp_path / "deploy" / "a.yaml").write_text((REPO / INCIDENT).read_text())
    monkeypatch.chdir(tmp_path / "tools")
    root, locations = _uris(run(["check", "../deploy", "--format", "sarif"]).out)
    assert root == (tmp_path.resolve().as_uri() + "/")
    assert {loc["uri"] for loc in locations} == {"deploy/a.yaml"}
    assert {loc["uriBaseId"] for loc in locations} == {"%SRCROOT%"}
    root, locations = _uris(run(["check", "../deploy", "--format", "sarif", "--sarif-root", ".."]).out)
    assert {loc["uri"] for loc in locations} == {"deploy/a.yaml"}
    root, locations = _uris(run(["check", "../deploy", "--format", "sarif", "--sarif-root", "../deploy"]).out)
    assert (root, {loc["uri"] for loc in locations}) == ((tmp_path / "deploy").resolve().as_uri() + "/", {"a.yaml"})


def test_sarif_file_outside_the_root_gets_an_absolute_uri(tmp_path, monkeypatch):
    from conftest import REPO

    (tmp_path / "a.yaml").write_text((REPO / INCIDENT).read_text())
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    _, locations = _uris(run(["check", "../a.yaml", "--format", "sarif", "--sarif-root", "."]).out)
    assert {loc["uri"] for loc in locations} == {(tmp_path / "a.yaml").resolve().as_uri()}
    assert all("uriBaseId" not in loc for loc in locations)


def test_an_empty_directory_warns_and_fails_with_fail_if_empty(tmp_path):
    # Issue 13 item 10: `check emptydir` passed a gate silently ("no findings in 0 files").
    empty = tmp_path / "empty"
    empty.mkdir()
    result = run(["check", "--isolated", str(empty)])
    assert (result.code, result.out) == (0, "")
    assert result.err == ("ctxlint: no findings in 0 files, 0 deployments\n"
                          f"ctxlint: warning: no file to check in {empty}; --fail-if-empty makes this exit 1\n")
    result = run(["check", "--isolated", "--fail-if-empty", str(empty)])
    assert result.code == 1 and result.err.endswith(f"ctxlint: warning: no file to check in {empty}\n")


def test_fail_if_empty_from_the_config_and_overridden_on_the_command_line(tmp_path):
    (tmp_path / ".ctxlint.yaml").write_text("fail-if-empty: true\nextend-exclude: ['*.yaml']\n")
    (tmp_path / "a.yaml").write_text("a: 1\n")
    result = run(["check", str(tmp_path)])
    assert result.code == 1
    assert result.err.endswith(f"ctxlint: warning: no file to check in {tmp_path} (1 excluded)\n")
    assert run(["check", "--no-fail-if-empty", str(tmp_path)]).code == 0


def test_more_outputs_than_the_default_format_is_a_usage_error(in_repo, tmp_path):
    result = run(["check", INCIDENT, "-o", str(tmp_path / "a"), "-o", str(tmp_path / "b")])
    assert result.code == 2 and result.err.endswith("Error: more --output files than --format options\n")
    assert list(tmp_path.iterdir()) == []


def test_github_and_gitlab_paths_are_relative_to_the_repository_root_too(tmp_path, monkeypatch):
    from conftest import REPO

    (tmp_path / ".git").mkdir()
    (tmp_path / "deploy").mkdir()
    (tmp_path / "tools").mkdir()
    (tmp_path / "deploy" / "a.yaml").write_text((REPO / INCIDENT).read_text())
    (tmp_path / "linked").symlink_to(tmp_path / "deploy")  # a symlinked folder inside the repository stays there
    monkeypatch.chdir(tmp_path / "tools")
    github = run(["check", "../deploy", "--format", "github"]).out.splitlines()
    assert [line.split(",")[0] for line in github] == ["::error file=deploy/a.yaml"] * 3
    gitlab = json.loads(run(["check", "../linked", "--format", "gitlab"]).out)
    assert {entry["location"]["path"] for entry in gitlab} == {"linked/a.yaml"}
