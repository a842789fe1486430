"""docs/config.schema.json, the published schema of .ctxlint.yaml, says what ctxlint accepts:
configs ctxlint loads validate against it (as an editor reads them, with draft-07), and
configs ctxlint refuses fail it, except for the checks a schema cannot express.
"""
from __future__ import annotations

import json
import re
import sys

import jsonschema
import pytest
import yaml

from conftest import REPO
from ctxlint.config import ConfigError, DEFAULTS, parse_config
from ctxlint.config_validate import normalize
from ctxlint.registry import all_rules
from ctxlint.reporters.rule_pages import config_example

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - 3.9/3.10
    import tomli as tomllib

SCHEMA_FILE = REPO / "docs" / "config.schema.json"
MODELINE = "# yaml-language-server: $schema="


@pytest.fixture(scope="module")
def editor():
    """The published schema as yaml-language-server uses it: a draft-07 validator."""
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    jsonschema.Draft7Validator.check_schema(schema)
    return jsonschema.Draft7Validator(schema)


def editor_errors(validator, text: str):
    data = yaml.safe_load(text) or {}
    normalize(data)  # YAML 1.1 reads an unquoted `off` as false; editors (YAML 1.2) read "off"
    return sorted(e.message for e in validator.iter_errors(data))


def readme_config() -> str:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Configuration, suppressions, baseline"):]
    return re.search(r"```yaml\n(.*?)```", section, re.S).group(1)


def test_schema_names_every_setting_with_a_description(editor):
    props = editor.schema["properties"]
    assert set(props) == set(DEFAULTS) | {"rules"}
    assert [key for key, spec in props.items() if not spec.get("description")] == []
    assert set(props["rules"]["properties"]) == {s.id for s in all_rules()} | {s.name for s in all_rules()}


def test_readme_config_is_valid_for_ctxlint_and_the_editor(editor):
    text = readme_config()
    assert text.startswith(MODELINE) and "docs/config.schema.json" in text.splitlines()[0]
    parse_config(text, ".ctxlint.yaml")
    assert editor_errors(editor, text) == []


@pytest.mark.parametrize("spec", all_rules(), ids=lambda s: s.id)
def test_rule_page_config_examples_are_valid_for_the_editor(editor, spec):
    assert editor_errors(editor, config_example(spec)) == []


def test_pyproject_table_validates_too(editor):
    text = "[tool.ctxlint]\nselect = ['CTX1']\nfail-on = 'warning'\n[tool.ctxlint.rules.CTX106]\nmin_prompt_tokens = 8192\n"
    parse_config(text, "pyproject.toml")
    assert list(editor.iter_errors(tomllib.loads(text)["tool"]["ctxlint"])) == []


REFUSED = [  # config, what the editor says
    ("fail_on: warning\n", ["Additional properties are not allowed ('fail_on' was unexpected)"]),
    ("severity:\n  CTX101: fatal\n", ["'fatal' is not one of ['error', 'warning', 'info', 'off']"]),
    ("rules: {CTX106: {min_prompt_tokens: -1}}\n", ["-1 is less than the minimum of 1"]),
    ("rules:\n  CTX106:\n    min_prompt_token: 5\n",
     ["Additional properties are not allowed ('min_prompt_token' was unexpected)"]),
    ("rules:\n  CTX1O1: {}\n", ["Additional properties are not allowed ('CTX1O1' was unexpected)"]),
    ("select: CTX1\n", ["'CTX1' is not of type 'array'"]),
    ("fail-on: sometimes\n", ["'sometimes' is not one of ['error', 'warning', 'info', 'never']"]),
    ("max-file-size: 0\n", ["0 is less than the minimum of 1"]),
    ("accelerators:\n  X1: {memory_gib: 80, memory_bytes: 1}\n",
     ["{'memory_gib': 80, 'memory_bytes': 1} is valid under each of {'required': ['memory_bytes']}, "
      "{'required': ['memory_gib']}"]),
    ("default-accelerator: 3\n", ["3 is not valid under any of the given schemas"]),
]


@pytest.mark.parametrize("text,messages", REFUSED, ids=[t.split(":")[0] for t, _ in REFUSED])
def test_configs_ctxlint_refuses_fail_the_schema(editor, text, messages):
    with pytest.raises(ConfigError):
        parse_config(text, ".ctxlint.yaml")
    assert editor_errors(editor, text) == messages


def test_what_only_ctxlint_can_refuse(editor):
    # Selectors are matched by prefix and case-insensitively, and two spellings of one rule
    # clash only when both are keys: the schema lets these through, ctxlint does not.
    for text in ("ignore: [CTX9]\n", "rules: {CTX106: {}, prompt-budget-below-minimum: {}}\n"):
        with pytest.raises(ConfigError):
            parse_config(text, ".ctxlint.yaml")
        assert editor_errors(editor, text) == []
