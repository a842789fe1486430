"""ctxlint.fastschema gives jsonschema's verdict on ctxlint's own schemas, so that a valid
document never imports jsonschema and an invalid one is still worded by jsonschema."""
from __future__ import annotations

import copy
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, List

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctxlint.adapters.native import matches
from ctxlint.config_validate import full_schema
from ctxlint.fastschema import Unsupported, compile_schema
from ctxlint.file_reader import read_path
from ctxlint.schema import load_schema

REPO = Path(__file__).resolve().parents[1]
MANIFEST = load_schema("manifest.schema.json")
SKIP = ("token count",)
FAST = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def reported(schema: Any, instance: Any, skip=SKIP) -> bool:
    """jsonschema's verdict as ctxlint.schema.validate uses it: errors it reports, not skipped."""
    for error in jsonschema.Draft202012Validator(schema).iter_errors(instance):
        if not (error.schema.get("title") in skip and error.validator in ("pattern", "minimum")):
            return True
    return False


def agree(schema: Any, instance: Any) -> None:
    strict = jsonschema.Draft202012Validator(schema).is_valid(instance)
    assert compile_schema(schema)(instance) is strict, instance
    assert compile_schema(schema, SKIP)(instance) is (not reported(schema, instance)), instance


def sample_manifests() -> List[Any]:
    docs = []
    for path in sorted(REPO.glob("samples/**/*.yaml")):
        for doc in read_path(str(path)).documents:
            if matches(doc.root):
                docs.append(doc.root.plain())
    return docs


MANIFESTS = sample_manifests()
VALID = [doc for doc in MANIFESTS if jsonschema.Draft202012Validator(MANIFEST).is_valid(doc)]


def test_the_samples_have_valid_and_invalid_manifests():
    # Otherwise the corpus tests below would prove little.
    assert len(VALID) >= 20 and len(MANIFESTS) - len(VALID) >= 3


@pytest.mark.parametrize("index", range(len(MANIFESTS)))
def test_agrees_on_every_sample_manifest(index):
    agree(MANIFEST, MANIFESTS[index])


# --- mutations of valid manifests: replace, delete or add one value anywhere ---

def _paths(value: Any, prefix=()) -> List[tuple]:
    out = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            out += _paths(item, prefix + (key,))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            out += _paths(item, prefix + (i,))
    return out


token_like = st.sampled_from(["128k", "1Mi", "1_000", "1,024", "0", "-5", "1.5k", "12kb", "1k\n", "", "１２"])
enum_like = st.sampled_from(["vllm", "VLLM", "prefill", "decode", "unified", "none", "prefill-decode",
                             "ctxlint/v1", "ModelDeployment", "H100"])
scalars = st.one_of(st.none(), st.booleans(), st.integers(-3, 2**40), st.sampled_from([0.0, 1.0, 2.5, -1.0]),
                    st.floats(allow_nan=True, allow_infinity=True), token_like, enum_like, st.text(max_size=4))
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3),
    st.dictionaries(st.one_of(st.sampled_from(["role", "name", "type", "count", "memory_gib", "x"]),
                              st.text(max_size=3)), inner, max_size=3)), max_leaves=6)


@st.composite
def mutated(draw):
    doc = copy.deepcopy(draw(st.sampled_from(VALID)))
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(_paths(doc)))
        if not path:
            continue
        parent = doc
        for part in path[:-1]:
            parent = parent[part]
        action = draw(st.sampled_from(["replace", "delete", "add"]))
        if action == "replace":
            parent[path[-1]] = draw(values)
        elif action == "delete":
            del parent[path[-1]]
        elif isinstance(parent, dict):
            parent[draw(st.sampled_from(["extra", "role", "memory_bytes", "tensor"]))] = draw(values)
        else:
            parent.append(draw(values))
    return doc


@FAST
@given(mutated())
def test_agrees_on_mutated_manifests(doc):
    agree(MANIFEST, doc)


@FAST
@given(values)
def test_agrees_on_arbitrary_data(value):
    agree(MANIFEST, value)


# --- the config schema (with every rule's options schema plugged in) ---

CONFIG = {"select": ["CTX1", "window-exceeds-kv-pool"], "ignore": ["CTX3"], "fail-on": "warning",
          "severity": {"CTX101": "warning"}, "rules": {"CTX106": {"min_prompt_tokens": 1000, "severity": "off"}},
          "per-file-ignores": {"a/*.yaml": ["CTX2"]}, "max-file-size": 1000, "respect-gitignore": True,
          "accelerators": {"X1": {"memory_gib": 80}, "X2": {"memory_bytes": 10**9}},
          "models": {"m": {"num_layers": 4, "dtype": "bf16"}}}


@FAST
@given(st.data())
def test_agrees_on_mutated_configs(data):
    schema, config = full_schema(), copy.deepcopy(CONFIG)
    path = data.draw(st.sampled_from([p for p in _paths(config) if p]))
    parent = config
    for part in path[:-1]:
        parent = parent[part]
    parent[path[-1]] = data.draw(values)
    if data.draw(st.booleans()) and isinstance(parent, dict):
        parent[data.draw(st.sampled_from(["memory_gib", "memory_bytes", "severity", "bogus"]))] = 64
    strict = jsonschema.Draft202012Validator(schema).is_valid(config)
    assert compile_schema(schema)(config) is strict


def test_the_example_config_is_valid():
    assert compile_schema(full_schema())(CONFIG) is True


# --- jsonschema's type rules, which Python's would get wrong ---

@pytest.mark.parametrize("schema, instance, valid", [
    ({"type": "integer"}, True, False),        # bool is not an integer...
    ({"type": "number"}, False, False),        # ...nor a number
    ({"type": "integer"}, 1.0, True),          # but 1.0 is an integer
    ({"type": "integer"}, math.inf, False),
    ({"type": "number", "exclusiveMinimum": 0}, math.nan, True),  # nan <= 0 is False
    ({"exclusiveMinimum": 0}, 0, False),
    ({"exclusiveMinimum": 0}, 0.001, True),
    ({"minimum": 1}, 1, True),
    ({"minimum": 1}, 0.5, False),
    ({"minimum": 1}, True, True),              # minimum ignores non-numbers (True is not 1)
    ({"minimum": 1}, "0", True),
    ({"maximum": 10}, 10, True),
    ({"maximum": 10}, 10.5, False),
    ({"maximum": 10}, True, True),             # maximum ignores non-numbers
    ({"maximum": 10}, math.inf, False),
    ({"pattern": "^[0-9]+$"}, "12\n", True),   # re.search: $ matches before a final newline
    ({"pattern": "[0-9]"}, "a1b", True),       # unanchored
    ({"enum": ["a"]}, ["a"], False),
    ({"const": "a"}, "a", True),
    ({"minLength": 1}, "", False),
    ({"minLength": 1}, 5, True),
    ({"oneOf": [{"required": ["a"]}, {"required": ["b"]}]}, {"a": 1, "b": 2}, False),
    ({"oneOf": [{"required": ["a"]}, {"required": ["b"]}]}, {}, False),
    ({"oneOf": [{"required": ["a"]}, {"required": ["b"]}]}, {"b": 1}, True),
    ({"additionalProperties": False, "properties": {"a": {}}}, {"a": 1, 1: 2}, False),
    ({"additionalProperties": {"type": "string"}}, {"a": "x", "b": 1}, False),
    ({"items": {"type": "string"}, "minItems": 1}, [], False),
    ({"maxProperties": 1, "minProperties": 1}, {"a": 1, "b": 2}, False),
])
def test_type_rules_match_jsonschema(schema, instance, valid):
    assert jsonschema.Draft202012Validator(schema).is_valid(instance) is valid
    assert compile_schema(schema)(instance) is valid



# `type: object` with properties, additionalProperties and required is one check (_Compiler._object): each of the
# four keywords' answers, in every combination, against jsonschema's
OBJECT_SCHEMAS = [
    {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}}},
    {"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": False},
    {"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": {"type": "string"}},
    {"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": True, "required": ["a"]},
    {"type": "object", "additionalProperties": {}, "required": ["a", "b"]},
    {"type": "object", "additionalProperties": {"minimum": 2}},
    {"type": "object", "required": [], "properties": {"a": False, "b": True}},
    {"type": "object", "properties": {"n": {"type": "object", "properties": {"x": {"const": "y"}},
                                            "additionalProperties": False, "required": ["x"]}}},
]
OBJECT_INSTANCES = [{}, {"a": 1}, {"a": "1"}, {"b": "x"}, {"a": 1, "b": "x"}, {"a": 1, "c": "x"}, {"a": 1, "c": 5},
                    {"c": 1}, {1: 2}, {"a": True}, {"a": 1.0, "b": "x", "c": "z"}, {"n": {"x": "y"}},
                    {"n": {"x": "y", "z": 1}}, {"n": {}}, {"n": 1}, [], [1], "a", 1, None, True]


@pytest.mark.parametrize("schema", OBJECT_SCHEMAS)
def test_objects_are_checked_as_jsonschema_checks_them(schema):
    for instance in OBJECT_INSTANCES:
        assert compile_schema(schema)(instance) is jsonschema.Draft202012Validator(schema).is_valid(instance), \
            (schema, instance)

def test_skipped_titles_only_drop_pattern_and_minimum():
    schema = {"properties": {"n": {"$ref": "#/$defs/t"}}, "$defs": {"t": {
        "title": "token count", "type": ["integer", "string"], "minimum": 1, "pattern": "^[0-9]+k?$"}}}
    check = compile_schema(schema, SKIP)
    assert check({"n": 0}) and check({"n": "12kb"})  # a dedicated rule reports these
    assert not check({"n": 1.5})                       # a type error is still reported
    assert not compile_schema(schema)({"n": 0})


@pytest.mark.parametrize("schema", [
    {"anyOf": [{}]}, {"$ref": "other.json#/x"}, {"format": "uri"}, {"properties": {"a": {"exclusiveMaximum": 3}}},
    {"enum": [1, 2]}, {"patternProperties": {"^a": {}}, "additionalProperties": False},
    {"properties": {"a": {"$id": "x"}}},
])
def test_an_unknown_keyword_is_refused_not_guessed(schema):
    with pytest.raises(Unsupported):
        compile_schema(schema)


def test_recursive_refs_compile():
    schema = {"$defs": {"tree": {"type": "object", "additionalProperties": {"$ref": "#/$defs/tree"}}},
              "$ref": "#/$defs/tree"}
    check = compile_schema(schema)
    assert check({"a": {"b": {}}}) and not check({"a": {"b": 1}})


# --- the point of it all: no jsonschema import for a valid document ---

PROBE = ("import os, sys, runpy\n"
         "def report():\n"
         "    print('jsonschema loaded' if 'jsonschema' in sys.modules else 'jsonschema not loaded')\n"
         "    sys.stdout.flush()\n"
         "real_exit = os._exit\n"
         "os._exit = lambda code: (report(), real_exit(code))  # a plain check ends with os._exit\n"
         "sys.argv = ['ctxlint'] + sys.argv[1:]\n"
         "try:\n    runpy.run_module('ctxlint', run_name='__main__')\n"
         "except SystemExit:\n    pass\n"
         "report()")


def probe(*args: str, cwd: Path = REPO) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CTXLINT")}
    out = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, cwd=cwd, env=env)
    return out.stdout.strip().splitlines()[-1]


def test_checking_a_valid_native_manifest_does_not_import_jsonschema():
    assert probe("check", "samples/incident/deployment.yaml") == "jsonschema not loaded"


def test_a_valid_config_file_does_not_import_jsonschema(tmp_path):
    (tmp_path / ".ctxlint.yaml").write_text("fail-on: warning\nrules:\n  CTX106: {min_prompt_tokens: 1000}\n")
    (tmp_path / "d.yaml").write_bytes((REPO / "samples/incident/deployment.yaml").read_bytes())
    assert probe("check", "d.yaml", cwd=tmp_path) == "jsonschema not loaded"
