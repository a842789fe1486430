"""Config: discovery, defaults, located validation errors, selection, CLI overrides, excludes."""
from __future__ import annotations

import json
import os
from pathlib import Path

import jsonschema
import pytest

from conftest import REPO
from ctxlint import config as cfg, config_discovery
from ctxlint.config import ConfigError, is_excluded, load_config, parse_config
from ctxlint.config_discovery import find_config
from ctxlint.config_merge import merge_cli
from ctxlint.engine import lint_text
from ctxlint.findings import Finding


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def error_of(text: str, name: str = ".ctxlint.yaml") -> str:
    with pytest.raises(ConfigError) as info:
        parse_config(text, name)
    return str(info.value)


# --- discovery ------------------------------------------------------------------------------------

def test_walks_up_to_the_closest_file(tmp_path):
    (tmp_path / ".git").mkdir()
    top = write(tmp_path / ".ctxlint.yaml", "fail-on: warning\n")
    start = tmp_path / "a" / "b"
    start.mkdir(parents=True)
    assert find_config(str(start)) == str(top)
    closer = write(tmp_path / "a" / ".ctxlint.yml", "fail-on: info\n")
    assert find_config(str(start)) == str(closer)
    assert load_config(str(start)).fail_on == "info"


def test_stops_at_the_repository_root(tmp_path):
    write(tmp_path / ".ctxlint.yaml", "fail-on: warning\n")  # outside the repo: not read
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    (tmp_path / "repo" / "sub").mkdir()
    assert find_config(str(tmp_path / "repo" / "sub")) is None
    config = load_config(str(tmp_path / "repo" / "sub"))
    assert config.path is None and config.fail_on == "error"


def test_pyproject_needs_a_tool_ctxlint_table(tmp_path):
    (tmp_path / ".git").mkdir()
    outer = write(tmp_path / "pyproject.toml", "[tool.ctxlint]\nfail-on = \"warning\"\n")
    write(tmp_path / "pkg" / "pyproject.toml", "[project]\nname = \"x\"\n")  # no table: keep walking
    assert find_config(str(tmp_path / "pkg")) == str(outer)
    assert load_config(str(tmp_path / "pkg")).fail_on == "warning"


def test_a_pyproject_that_never_names_ctxlint_is_not_parsed(tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()
    write(tmp_path / "pyproject.toml", "[project]\nname = \"x\"\n[tool.ruff]\nline-length = 99\n")
    monkeypatch.setattr(config_discovery, "toml_module", lambda: pytest.fail("parsed a pyproject.toml without ctxlint"))
    assert find_config(str(tmp_path)) is None


def test_a_pyproject_naming_ctxlint_elsewhere_is_parsed_and_skipped(tmp_path):
    (tmp_path / ".git").mkdir()
    write(tmp_path / "pyproject.toml", "[project]\nname = \"ctxlint-configs\"\n")
    assert find_config(str(tmp_path)) is None
    write(tmp_path / "pyproject.toml", "[tool]\nctxlint = { fail-on = \"info\" }\n")  # inline table
    assert find_config(str(tmp_path)) == str(tmp_path / "pyproject.toml")


def test_yaml_beats_pyproject_in_the_same_directory(tmp_path):
    write(tmp_path / "pyproject.toml", "[tool.ctxlint]\nfail-on = \"warning\"\n")
    yaml_file = write(tmp_path / ".ctxlint.yaml", "fail-on: info\n")
    (tmp_path / ".git").mkdir()
    assert find_config(str(tmp_path)) == str(yaml_file)


def test_explicit_path_and_isolated(tmp_path):
    (tmp_path / ".git").mkdir()
    write(tmp_path / ".ctxlint.yaml", "fail-on: info\n")
    other = write(tmp_path / "ci.yaml", "fail-on: warning\n")
    assert load_config(str(tmp_path), path=str(other)).fail_on == "warning"
    assert load_config(str(tmp_path), isolated=True).fail_on == "error"
    with pytest.raises(ConfigError, match="config file does not exist"):
        load_config(str(tmp_path), path=str(tmp_path / "missing.yaml"))


# --- defaults and provenance ----------------------------------------------------------------------

def test_partial_config_is_merged_with_defaults():
    config = parse_config("rules:\n  CTX106: {min_prompt_tokens: 1000}\n", "conf/.ctxlint.yaml")
    assert config.rule_options["CTX106"] == {"min_prompt_tokens": 1000}
    assert config.fail_on == "error" and config.require_suppression_reason is True
    assert config.respect_gitignore is True and config.max_file_size == 20 * 1024 * 1024
    assert config.provenance["rules.CTX106.min_prompt_tokens"] == "conf/.ctxlint.yaml"
    assert config.provenance["fail-on"] == "default"
    rows = {key: (value, origin) for key, value, origin in cfg.show(config)}
    assert rows["rules.CTX106.min_prompt_tokens"] == (1000, "conf/.ctxlint.yaml")
    assert rows["fail-on"] == ("error", "default")


def test_rule_sections_by_name_carry_severity_and_options():
    config = parse_config("rules:\n  prompt-budget-below-minimum: {min_prompt_tokens: 10, severity: info}\n"
                          "severity: {CTX108: off}\n", "c.yaml")
    assert config.severity == {"CTX106": "info", "CTX108": "off"}
    assert "CTX108" not in config.enabled_rules() and "CTX106" in config.enabled_rules()


def test_empty_file_is_all_defaults():
    assert parse_config("", ".ctxlint.yaml").select == ()


def test_accelerators_and_models_are_plain_data():
    config = parse_config("accelerators:\n  MI999: {memory_gib: 256}\n"
                          "models:\n  acme/m: {num_layers: 61, num_kv_heads: 8, head_dim: 128}\n", "c.yaml")
    assert config.accelerators["MI999"]["memory_gib"] == 256
    assert config.models["acme/m"]["num_layers"] == 61


def test_shipped_schema_is_valid_draft_2020_12():
    schema = json.loads((REPO / "lint" / "data" / "config.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator.check_schema(cfg.full_schema())


# --- located errors -------------------------------------------------------------------------------

def test_unknown_key_with_did_you_mean():
    assert error_of("select: [CTX1]\nfail_on: warning\n") == \
        ".ctxlint.yaml:2:1: unknown key 'fail_on'; did you mean 'fail-on'?"


def test_bad_severity_value():
    assert error_of("severity:\n  CTX101: fatal\n") == \
        ".ctxlint.yaml:2:11: severity.CTX101: 'fatal' is not one of error, warning, info, off"


def test_rule_option_checked_by_the_rules_own_schema():
    assert error_of("rules: {CTX106: {min_prompt_tokens: -1}}\n") == \
        ".ctxlint.yaml:1:37: rules.CTX106.min_prompt_tokens: -1 is less than the minimum of 1"
    assert error_of("rules:\n  CTX106:\n    min_prompt_token: 5\n") == (
        ".ctxlint.yaml:3:5: rules.CTX106: unknown option 'min_prompt_token'; did you mean 'min_prompt_tokens'?")


def test_unknown_rule_section_and_severity_key():
    assert error_of("rules:\n  CTX1O1: {}\n") == ".ctxlint.yaml:2:3: rules: unknown rule 'CTX1O1'; did you mean 'CTX101'?"
    assert error_of("severity:\n  window-exceeds-kv-poll: info\n").startswith(
        ".ctxlint.yaml:2:3: severity: unknown rule 'window-exceeds-kv-poll'; did you mean 'window-exceeds-kv-pool'?")


def test_unknown_selector_located_at_the_item():
    message = error_of("ignore:\n  - CTX105\n  - CTX9\n")
    assert message.startswith(".ctxlint.yaml:3:5: ignore: unknown rule selector 'CTX9'")
    message = error_of("per-file-ignores:\n  'legacy/*.yaml': [duplicate-kee]\n")
    assert message.startswith(".ctxlint.yaml:2:21: per-file-ignores.legacy/*.yaml: unknown rule selector")
    assert "did you mean 'duplicate-key'?" in message


def test_wrong_types_and_yaml_problems():
    assert error_of("select: CTX1\n") == ".ctxlint.yaml:1:9: select: 'CTX1' is not of type 'array'"
    assert error_of("fail-on: error\nfail-on: info\n").startswith(".ctxlint.yaml:2:1: config: duplicate key 'fail-on'")
    assert error_of("select: [CTX1\n").startswith(".ctxlint.yaml:2:1: invalid YAML in config")
    assert error_of("- a\n") == ".ctxlint.yaml:1:1: the config must be a mapping of settings"
    assert error_of("rules: {CTX106: {}, prompt-budget-below-minimum: {}}\n").startswith(
        ".ctxlint.yaml:1:21: rules: rule CTX106 is configured twice")


def test_pyproject_errors_carry_lines():
    toml = "[project]\nname = 'x'\n\n[tool.ctxlint]\nselect = ['CTX1']\n\n[tool.ctxlint.rules.CTX106]\nmin_prompt_tokens = -1\n"
    assert error_of(toml, "pyproject.toml") == \
        "pyproject.toml:8:1: rules.CTX106.min_prompt_tokens: -1 is less than the minimum of 1"
    assert error_of("[tool.ctxlint]\nselct = []\n", "pyproject.toml") == \
        "pyproject.toml:2:1: unknown key 'selct'; did you mean 'select'?"
    assert error_of("[tool.ctxlint]\nselect = [\n", "pyproject.toml").startswith("pyproject.toml:3:1: invalid TOML")


def test_accelerator_needs_one_memory_field():
    assert error_of("accelerators:\n  X1: {memory_gib: 80, memory_bytes: 1}\n") == \
        ".ctxlint.yaml:2:7: accelerators.X1: give exactly one of memory_gib or memory_bytes"


# --- selection, per-file ignores, severities, CLI -------------------------------------------------

def test_select_extend_select_ignore():
    config = parse_config("select: [CTX0]\nextend-select: [CTX101]\nignore: [duplicate-key]\n", "c.yaml")
    enabled = config.enabled_rules()
    assert "CTX101" in enabled and "CTX001" in enabled
    assert "CTX003" not in enabled and "CTX102" not in enabled
    assert parse_config("extend-select: [CTX101]\n", "c.yaml").effective_select == ()  # still every rule


def test_per_file_ignores(tmp_path):
    config = parse_config("per-file-ignores:\n  'legacy/**': [CTX1]\n  '*.json': [duplicate-key]\n",
                          str(tmp_path / ".ctxlint.yaml"))
    legacy = config.ignored_rules_for(str(tmp_path / "legacy" / "a" / "x.yaml"))
    assert "CTX101" in legacy and "CTX109" in legacy and "CTX003" not in legacy
    assert config.ignored_rules_for(str(tmp_path / "deep" / "x.json")) == {"CTX003"}
    assert config.ignored_rules_for(str(tmp_path / "x.yaml")) == frozenset()


def test_settings_carry_rule_options_into_the_engine():
    manifest = (REPO / "samples/rules/CTX106-prompt-budget-below-minimum/bad.yaml").read_text()
    assert any(f.rule == "CTX106" for f in lint_text(manifest).findings)
    relaxed = parse_config("rules: {CTX106: {min_prompt_tokens: 1}}\nignore: [CTX1]\nextend-select: []\n", "c")
    assert not lint_text(manifest, settings=relaxed.settings()).findings


def test_merge_cli_beats_config():
    config = parse_config("select: [CTX1]\nignore: [CTX105]\nfail-on: warning\n", "c.yaml")
    merged = merge_cli(config, fail_on="info", ignore=["CTX106"], exclude=None)
    assert merged.fail_on == "info" and merged.provenance["fail-on"] == "cli"
    assert merged.ignore == ("CTX105", "CTX106") and merged.select == ("CTX1",)
    assert merged.provenance["select"] == "c.yaml"
    # A CLI select starts a new selection, as in ruff: the config's ignore no longer applies.
    reselected = merge_cli(config, select=["CTX105"])
    assert reselected.enabled_rules() == {"CTX105"} and reselected.provenance["ignore"] == "cli"
    with pytest.raises(ConfigError, match="unknown rule selector 'CTX9'"):
        merge_cli(config, ignore=["CTX9"])
    with pytest.raises(TypeError):
        merge_cli(config, colour=True)
    assert merge_cli(config, severity={"CTX101": "warning"}).severity["CTX101"] == "warning"


def test_apply_severity_overrides_and_off():
    config = parse_config("severity: {CTX101: warning, CTX102: off}\n", "c.yaml")
    findings = [Finding("f", 1, 1, rule, "n", "error", "m") for rule in ("CTX101", "CTX102", "CTX103")]
    out = cfg.apply_severity(findings, config)
    assert [(f.rule, f.severity) for f in out] == [("CTX101", "warning"), ("CTX103", "error")]


# --- excludes -------------------------------------------------------------------------------------

def test_exclude_and_extend_exclude(tmp_path):
    config = parse_config("exclude: [vendor, 'charts/*/templates/**']\nextend-exclude: ['*.generated.yaml']\n"
                          "respect-gitignore: false\n", str(tmp_path / ".ctxlint.yaml"))
    assert is_excluded(str(tmp_path / "vendor" / "x.yaml"), config)
    assert is_excluded(str(tmp_path / "a" / "vendor" / "x.yaml"), config)  # no '/': any depth
    assert is_excluded(str(tmp_path / "charts" / "c" / "templates" / "d" / "x.yaml"), config)
    assert is_excluded(str(tmp_path / "deep" / "x.generated.yaml"), config)
    assert not is_excluded(str(tmp_path / "charts" / "c" / "values.yaml"), config)
    assert not is_excluded("-", config)


def test_gitignore_respected_by_default(tmp_path):
    (tmp_path / ".git").mkdir()
    write(tmp_path / ".gitignore", "# build output\n/rendered/\n*.tmp.yaml\n!keep.tmp.yaml\nout/\n")
    write(tmp_path / "sub" / ".gitignore", "local.yaml\n")
    for rel in ("rendered/a.yaml", "x/y.tmp.yaml", "keep.tmp.yaml", "sub/local.yaml", "local.yaml",
                "x/out/z.yaml", "x/rendered/a.yaml"):
        write(tmp_path / rel, "a: 1\n")
    config = load_config(str(tmp_path))
    excluded = {rel for rel in ("rendered/a.yaml", "x/y.tmp.yaml", "keep.tmp.yaml", "sub/local.yaml",
                                "local.yaml", "x/out/z.yaml", "x/rendered/a.yaml")
                if is_excluded(str(tmp_path / rel), config)}
    assert excluded == {"rendered/a.yaml", "x/y.tmp.yaml", "sub/local.yaml", "x/out/z.yaml"}
    assert not is_excluded(str(tmp_path / "rendered" / "a.yaml"), merge_cli(config, respect_gitignore=False))


def test_config_error_without_location():
    error = ConfigError("boom")
    assert str(error) == "boom" and error.file is None and os.fspath("x")
