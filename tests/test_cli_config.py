"""Config, suppressions and the baseline through the CLI, as a user runs them."""
from __future__ import annotations

import json

import pytest

from conftest import REPO
from helpers import run

BAD = (REPO / "samples/rules/CTX101-window-exceeds-kv-pool/bad.yaml").read_text()
MANIFEST = BAD.replace("   # [window-exceeds-kv-pool] one 262,144-token request cannot be held", "")
# Also an output limit leaving a tiny prompt budget: CTX106 (warning) at line 8.
WITH_OUTPUT = MANIFEST.replace("context_window: 262144\n", "context_window: 262144\n    max_output_tokens: 260000\n")


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """A deploy repo: a .git folder bounds config discovery, cwd is its root."""
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


def rules_of(out: str):
    return [line.split(" ")[1] for line in out.splitlines()]


def test_config_is_discovered_from_the_checked_path_upwards(repo):
    (repo / "deploy" / "prod").mkdir(parents=True)
    (repo / "deploy" / "prod" / "m.yaml").write_text(WITH_OUTPUT)
    assert rules_of(run(["check", "deploy/prod/m.yaml"]).out) == ["CTX106", "CTX101"]
    (repo / ".ctxlint.yaml").write_text("ignore: [CTX106]\n")
    result = run(["check", "deploy/prod/m.yaml"])
    assert rules_of(result.out) == ["CTX101"] and result.code == 1
    # --isolated reads no config; --config names one.
    assert rules_of(run(["check", "--isolated", "deploy/prod/m.yaml"]).out) == ["CTX106", "CTX101"]
    (repo / "other.yaml").write_text("select: [CTX106]\n")
    assert rules_of(run(["check", "--config", "other.yaml", "deploy/prod/m.yaml"]).out) == ["CTX106"]


def test_pyproject_table_and_fail_on_from_config(repo):
    (repo / "m.yaml").write_text(WITH_OUTPUT)
    (repo / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.ctxlint]\nselect = ["CTX106"]\n'
                                         'fail-on = "warning"\n')
    result = run(["check", "m.yaml"])
    assert rules_of(result.out) == ["CTX106"] and result.code == 1
    assert run(["check", "m.yaml", "--fail-on", "error"]).code == 0  # the flag beats the file


def test_select_extend_select_and_ignore_flags(repo):
    (repo / "m.yaml").write_text(WITH_OUTPUT)
    assert rules_of(run(["check", "m.yaml", "--select", "CTX101"]).out) == ["CTX101"]
    assert rules_of(run(["check", "m.yaml", "--select", "CTX101", "--extend-select", "prompt-budget-below-minimum"]
                        ).out) == ["CTX106", "CTX101"]
    assert rules_of(run(["check", "m.yaml", "--ignore", "CTX1"]).out) == []
    bad = run(["check", "m.yaml", "--select", "CTX10l"])
    assert bad.code == 2 and "unknown rule selector 'CTX10l'" in bad.err


def test_per_file_ignores_and_severity_overrides(repo):
    (repo / "staging").mkdir()
    (repo / "staging" / "m.yaml").write_text(WITH_OUTPUT)
    (repo / "m.yaml").write_text(WITH_OUTPUT)
    (repo / ".ctxlint.yaml").write_text("per-file-ignores:\n  'staging/*': [window-exceeds-kv-pool]\n"
                                        "severity:\n  CTX106: error\n")
    result = run(["check", "."])
    assert [(line.split(":")[0], line.split(" ")[1], line.split(" ")[2]) for line in result.out.splitlines()] == [
        ("m.yaml", "CTX106", "[error]"), ("m.yaml", "CTX101", "[error]"), ("staging/m.yaml", "CTX106", "[error]")]


def test_invalid_config_is_exit_2_with_its_location(repo):
    (repo / "m.yaml").write_text(MANIFEST)
    (repo / ".ctxlint.yaml").write_text("select: [CTX101]\nrules:\n  CTX106:\n    min_prompt_tokens: -5\n")
    result = run(["check", "m.yaml"])
    assert result.code == 2
    assert result.err.startswith("ctxlint: config error: ") and ".ctxlint.yaml:4:" in result.err
    assert "min_prompt_tokens" in result.err


def test_config_show_names_the_source_of_each_setting(repo):
    (repo / ".ctxlint.yaml").write_text("fail-on: warning\n")
    result = run(["config", "show"])
    assert result.code == 0
    assert "config file: " in result.out and ".ctxlint.yaml" in result.out
    rows = {line.split()[0]: line.split()[-1] for line in result.out.splitlines()[3:]}
    assert rows["fail-on"].endswith(".ctxlint.yaml") and rows["select"] == "default"
    data = json.loads(run(["config", "show", "--format", "json"]).out)
    assert {"key": "fail-on", "value": "warning", "source": str(repo / ".ctxlint.yaml")} in data["settings"]


def test_config_show_includes_command_line_settings(repo):
    (repo / ".ctxlint.yaml").write_text("fail-on: warning\nignore: [CTX205]\n")
    result = run(["config", "show", "--format", "json", "--select", "CTX1", "--extend-select", "CTX201",
                  "--fail-on", "info", "--fail-if-empty", "--no-suppressions", "--max-file-size", "100"])
    assert result.code == 0
    settings = {row["key"]: (row["value"], row["source"]) for row in json.loads(result.out)["settings"]}
    assert {key: settings[key] for key in ("select", "extend-select", "ignore", "fail-on", "fail-if-empty",
                                           "disallow-suppressions", "max-file-size", "respect-gitignore")} == {
        "select": (["CTX1"], "cli"), "extend-select": (["CTX201"], "cli"), "ignore": ([], "cli"),
        "fail-on": ("info", "cli"), "fail-if-empty": (True, "cli"), "disallow-suppressions": (True, "cli"),
        "max-file-size": (100, "cli"), "respect-gitignore": (True, "default")}
    # without flags, the file's values and their source
    settings = {row["key"]: (row["value"], row["source"])
                for row in json.loads(run(["config", "show", "--format", "json"]).out)["settings"]}
    assert settings["fail-on"] == ("warning", str(repo / ".ctxlint.yaml"))
    bad = run(["config", "show", "--select", "CTX1O1"])
    assert bad.code == 2 and "unknown rule selector 'CTX1O1'; did you mean 'CTX101'?" in bad.err


def test_excludes_apply_to_walked_files_and_with_force_exclude_to_named_ones(repo):
    (repo / "vendor").mkdir()
    (repo / "vendor" / "m.yaml").write_text(MANIFEST)
    (repo / ".ctxlint.yaml").write_text("exclude: [vendor]\n")
    assert run(["check", "."]).code == 0
    assert run(["check", "vendor/m.yaml"]).code == 1  # named explicitly: checked (as ruff does)
    assert run(["check", "--force-exclude", "vendor/m.yaml"]).code == 0  # what pre-commit uses


# --- suppressions ---------------------------------------------------------------------------------

POOL = "        kv_pool_tokens: 76640"


def test_suppression_with_reason_hides_the_finding_and_json_keeps_it(repo):
    (repo / "m.yaml").write_text(MANIFEST.replace(POOL, POOL + "  # ctxlint: ignore[CTX101] -- gateway caps at 64k"))
    result = run(["check", "m.yaml"])
    assert result.code == 0 and result.out == ""
    data = json.loads(run(["check", "m.yaml", "--format", "json"]).out)
    assert data["findings"] == []
    assert [(s["rule"], s["justification"]) for s in data["suppressed"]] == [("CTX101", "gateway caps at 64k")]
    sarif = json.loads(run(["check", "m.yaml", "--format", "sarif"]).out)
    results = sarif["runs"][0]["results"]
    assert [r["suppressions"][0]["justification"] for r in results] == ["gateway caps at 64k"]


def test_suppression_without_reason_is_reported_and_suppresses_nothing(repo):
    (repo / "m.yaml").write_text(MANIFEST.replace(POOL, "        # ctxlint: ignore[CTX101]\n" + POOL))
    result = run(["check", "m.yaml"])
    assert rules_of(result.out) == ["CTX006", "CTX101"] and result.code == 1
    assert "has no reason" in result.out
    (repo / ".ctxlint.yaml").write_text("require-suppression-reason: false\n")
    assert run(["check", "m.yaml"]).out == ""


def test_unused_suppression_is_reported_even_when_only_ctx007_is_selected(repo):
    text = MANIFEST.replace("76640", "300000").replace(POOL.replace("76640", "300000"),
                                                       POOL.replace("76640", "300000") + "  # ctxlint: ignore[CTX101] -- old")
    (repo / "m.yaml").write_text(text)
    assert rules_of(run(["check", "m.yaml"]).out) == ["CTX007"]
    assert rules_of(run(["check", "m.yaml", "--select", "CTX007"]).out) == ["CTX007"]
    assert rules_of(run(["check", "m.yaml", "--ignore", "CTX007"]).out) == []


def test_no_suppressions_flag_restores_every_finding(repo):
    (repo / "m.yaml").write_text(MANIFEST.replace(POOL, POOL + "  # ctxlint: ignore[CTX101] -- reviewed"))
    assert run(["check", "m.yaml"]).code == 0
    result = run(["check", "m.yaml", "--no-suppressions"])
    assert rules_of(result.out) == ["CTX101"] and result.code == 1


def test_file_level_and_annotation_suppressions(repo):
    (repo / "a.yaml").write_text("# ctxlint: file-ignore[window-exceeds-kv-pool] -- lab cluster\n" + MANIFEST)
    annotated = MANIFEST.replace("  name: chat-long\n", "  name: chat-long\n  annotations:\n"
                                 "    ctxlint.io/ignore.CTX101: \"capped by the router\"\n")
    (repo / "b.yaml").write_text(annotated)
    assert run(["check", "a.yaml", "b.yaml"]).out == ""


# --- baseline -------------------------------------------------------------------------------------

def test_baseline_hides_known_findings_but_not_new_ones(repo):
    (repo / "m.yaml").write_text(MANIFEST)
    created = run(["baseline", "create", "."])
    assert created.code == 0 and "1 finding accepted" in created.err
    entries = json.loads((repo / ".ctxlint-baseline.json").read_text())["entries"]
    assert [(e["rule"], e["file"], e["count"]) for e in entries] == [("CTX101", "m.yaml", 1)]
    assert run(["baseline", "create", "."]).code == 2  # never overwritten by accident
    # Lines moved above the finding: still known.
    (repo / "m.yaml").write_text("# moved\n\n" + MANIFEST)
    result = run(["check", ".", "--baseline", ".ctxlint-baseline.json"])
    assert result.code == 0 and result.out == ""
    assert "1 known finding hidden" in result.err
    # A second deployment with the same problem is new, even with an identical key.
    (repo / "n.yaml").write_text(MANIFEST)
    result = run(["check", ".", "--baseline", ".ctxlint-baseline.json"])
    assert result.code == 1 and result.out.startswith("n.yaml:13:25: CTX101")


def test_baseline_reports_fixed_findings_and_prune_drops_them(repo):
    (repo / "m.yaml").write_text(MANIFEST)
    run(["baseline", "create", "."])
    (repo / "m.yaml").write_text(MANIFEST.replace("76640", "300000"))
    result = run(["check", ".", "--baseline", ".ctxlint-baseline.json"])
    assert result.code == 0 and "1 baselined finding fixed since" in result.err
    assert run(["baseline", "prune", "."]).code == 0
    assert json.loads((repo / ".ctxlint-baseline.json").read_text())["entries"] == []


def test_baseline_update_accepts_new_findings(repo):
    (repo / "m.yaml").write_text(MANIFEST)
    run(["baseline", "create", "."])
    (repo / "n.yaml").write_text(MANIFEST)
    assert run(["baseline", "update", "."]).code == 0
    assert run(["check", ".", "--baseline", ".ctxlint-baseline.json"]).code == 0


def test_a_broken_baseline_is_a_usage_error(repo):
    (repo / "m.yaml").write_text(MANIFEST)
    (repo / "b.json").write_text("{not json")
    result = run(["check", ".", "--baseline", "b.json"])
    assert result.code == 2 and "b.json:1:2: invalid JSON in baseline" in result.err
    missing = run(["check", ".", "--baseline", "nope.json"])
    assert missing.code == 2 and "ctxlint baseline create" in missing.err


def test_models_and_accelerators_from_the_config_feed_the_capacity_physics(repo):
    manifest = """apiVersion: ctxlint/v1
kind: ModelDeployment
metadata: {name: acme}
spec:
  model: {id: acme/llm-34b}
  engine: {name: vllm}
  advertised: {context_window: 1048576}
  serving:
    roles:
      - role: unified
        accelerators: {type: my-gpu-96g, count: 1}
"""
    (repo / "m.yaml").write_text(manifest)
    isolated = run(["check", "m.yaml", "--isolated"])
    assert rules_of(isolated.out) == ["CTX208"] and "not in the built-in catalog" in isolated.out
    (repo / ".ctxlint.yaml").write_text(
        "accelerators: {my-gpu-96g: {memory_gib: 96}}\n"
        "models:\n  acme/llm-34b: {num_layers: 48, num_kv_heads: 8, head_dim: 128, num_attention_heads: 64,"
        " total_params_b: 34}\n")
    result = run(["check", "m.yaml"])
    assert "CTX101" in rules_of(result.out) and "derived for acme/llm-34b on 1x my-gpu-96g" in result.out
