"""ctxlint.schema_errors lists the errors jsonschema lists, in jsonschema's order and words, so
that an invalid native manifest is reported exactly as before without importing jsonschema."""
from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any, List

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st
from jsonschema.exceptions import relevance as jsonschema_relevance
from test_fastschema import FAST, MANIFEST, MANIFESTS, VALID, mutated, probe, values

import ctxlint.schema as schema_module
from ctxlint.adapters.native import matches
from ctxlint.fastschema import TYPES, Unsupported
from ctxlint.loader import parse_text
from ctxlint.schema import validate
from ctxlint.schema_errors import sorted_errors

REPO = Path(__file__).resolve().parents[1]
INVALID = [doc for doc in MANIFESTS if doc not in VALID]


def described(errors) -> List[tuple]:
    return [(e.validator, e.validator_value, list(e.absolute_path), e.message, repr(e.instance), e.schema)
            for e in errors]


def agree(schema: Any, instance: Any) -> None:
    expected = sorted(jsonschema.Draft202012Validator(schema).iter_errors(instance), key=jsonschema_relevance)
    assert described(sorted_errors(schema, instance)) == described(expected), instance


@pytest.mark.parametrize("index", range(len(MANIFESTS)))
def test_agrees_on_every_sample_manifest(index):
    agree(MANIFEST, MANIFESTS[index])


def test_the_samples_have_invalid_manifests_with_several_errors():
    # Otherwise the sample test above would prove little about the order.
    counts = [len(sorted_errors(MANIFEST, doc)) for doc in INVALID]
    assert len(counts) >= 3 and max(counts) >= 2


@FAST
@given(mutated())
def test_agrees_on_mutated_manifests(doc):
    agree(MANIFEST, doc)


@FAST
@given(values)
def test_agrees_on_arbitrary_data(value):
    agree(MANIFEST, value)


@pytest.mark.parametrize("schema, instance", [
    ({"type": ["integer", "string"], "minimum": 1, "title": "t"}, 0),
    ({"type": "object", "minProperties": 2, "maxProperties": 0}, {"a": 1}),
    ({"minItems": 2, "items": {"minLength": 2}}, ["a"]),
    ({"additionalProperties": False, "properties": {"a": {}}}, {"b": 1, "c": 2, "a": 0}),
    ({"additionalProperties": False}, {"b": 1}),
    ({"additionalProperties": {"type": "string", "maxProperties": 1}}, {"z": 1, "a": 2, "m": "x"}),
    ({"required": ["a", "b"], "properties": {"c": {"const": "x"}}, "exclusiveMinimum": 3}, {"c": "y"}),
    ({"exclusiveMinimum": 0, "maximum": 10, "type": "number"}, 0),
    ({"maximum": 10}, 11.5),
    ({"enum": ["a", "b"], "pattern": "^[0-9]+$"}, "c"),
    ({"$defs": {"n": {"title": "n", "minimum": 2}}, "properties": {"x": {"$ref": "#/$defs/n", "type": "integer"}}},
     {"x": 1.5}),
    # at one path, an error whose subschema's type the instance has comes first (maximum before minimum)
    ({"$defs": {"n": {"minimum": 2}}, "properties": {"x": {"$ref": "#/$defs/n", "type": "number", "maximum": 0}}},
     {"x": 1}),
])
def test_agrees_on_each_keyword(schema, instance):
    agree(schema, instance)


# Small schemas of the keywords mirrored, limits near the instances' sizes: every boundary is met.
limits = st.integers(0, 3)
keyword_schemas = st.recursive(st.fixed_dictionaries({}, optional={
    "type": st.one_of(st.sampled_from(sorted(TYPES)), st.lists(st.sampled_from(sorted(TYPES)), min_size=1, max_size=3)),
    "minimum": st.sampled_from([0, 1, 2.5]), "maximum": st.sampled_from([0, 1, 2.5]),
    "exclusiveMinimum": st.sampled_from([0, 1, 2.5]), "minLength": limits, "minItems": limits,
    "minProperties": limits, "maxProperties": limits, "pattern": st.sampled_from(["^[0-9]+$", "k", "^$"]),
    "enum": st.lists(st.sampled_from(["a", "b", "1", ""]), min_size=1, max_size=3), "const": st.sampled_from(["a", ""]),
    "required": st.lists(st.sampled_from(["a", "b", "x"]), max_size=2), "title": st.sampled_from(["t", "token count"]),
}), lambda inner: st.fixed_dictionaries({}, optional={
    "properties": st.dictionaries(st.sampled_from(["a", "b", "x"]), inner, max_size=2),
    "additionalProperties": st.one_of(st.booleans(), inner), "items": inner, "type": st.sampled_from(["object", "array"]),
}), max_leaves=5)


@FAST
@given(keyword_schemas, values)
def test_agrees_on_each_keyword_at_its_limits(schema, instance):
    agree(schema, instance)


@pytest.mark.parametrize("schema", [
    {"oneOf": [{}]}, {"anyOf": [{}]}, {"format": "uri"}, {"$ref": "other.json#/x"}, {"enum": [1]},
    {"properties": {"a": {"$id": "x"}}}, {"patternProperties": {"^a": {}}, "additionalProperties": False},
    {"items": False}, {"properties": {"a": False}}, {"ref": "#/x"},
])
def test_a_schema_it_does_not_mirror_is_refused(schema):
    with pytest.raises(Unsupported):
        sorted_errors(schema, {"a": [1]})


def test_a_ref_cycle_is_refused_not_followed():
    with pytest.raises(Unsupported):
        sorted_errors({"$defs": {"x": {"$ref": "#/$defs/x"}}, "$ref": "#/$defs/x"}, 1)


# --- what users see: ctxlint.schema.validate's diagnostics, as jsonschema's errors gave them ---

def diagnostics(text: str) -> List[tuple]:
    return [(d.kind, d.message, d.source.line, d.source.col, d.source.path)
            for doc in parse_text(text, "m.yaml").documents if matches(doc.root)
            for d in validate(doc.root, "manifest.schema.json", "m.yaml")]


def jsonschema_diagnostics(text: str) -> List[tuple]:
    """diagnostics() as before this module: the errors listed by jsonschema itself."""
    def refuse(schema, instance):
        raise Unsupported("the oracle")
    real, schema_module.sorted_errors = schema_module.sorted_errors, refuse
    try:
        return diagnostics(text)
    finally:
        schema_module.sorted_errors = real


def test_sample_diagnostics_are_the_ones_jsonschema_gave():
    texts = [p.read_text(encoding="utf-8") for p in sorted(REPO.glob("samples/**/*.yaml"))
             if "ModelDeployment" in p.read_text(encoding="utf-8")]
    ours = [diagnostics(text) for text in texts]
    assert ours == [jsonschema_diagnostics(text) for text in texts]
    assert sum(1 for found in ours if found) >= 2


@FAST
@given(mutated())
def test_mutated_manifest_diagnostics_are_the_ones_jsonschema_gave(doc):
    text = json.dumps(doc, indent=1)  # JSON is YAML: every value at a line and column of its own
    assert diagnostics(text) == jsonschema_diagnostics(text)


def test_mixed_key_types_are_ordered_not_a_crash():
    # jsonschema's own sort compares the paths' parts and raised TypeError on an int key beside a str one
    # (ctxlint reported an internal error). A mapping's int keys now sort before its str keys.
    text = ("apiVersion: ctxlint/v1\nkind: ModelDeployment\nmetadata:\n  name: x\n  labels:\n"
            "    b: [c]\n    1: [a]\nspec:\n  model: {id: foo}\n  advertised: {context_window: 8192}\n"
            "  serving: {roles: [{role: unified}]}\n")
    assert diagnostics(text) == [
        ("schema-violation", "metadata.labels[1]: expected a string or a number or a boolean, got a list",
         7, 8, "metadata.labels[1]"),
        ("schema-violation", "metadata.labels.b: expected a string or a number or a boolean, got a list",
         6, 8, "metadata.labels.b"),
    ]


def test_an_invalid_manifest_is_worded_without_importing_jsonschema():
    assert probe("check", "samples/rules/CTX002-schema-violation/bad.yaml") == "jsonschema not loaded"


def test_instances_are_not_changed():
    doc = copy.deepcopy(INVALID[0])
    sorted_errors(MANIFEST, doc)
    assert doc == INVALID[0]
