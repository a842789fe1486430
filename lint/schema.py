"""JSON Schema validation that reports at the offending node, with did-you-mean.

A valid document is recognised by ctxlint.fastschema and an invalid one's errors are
listed by ctxlint.schema_errors, both without importing jsonschema (55-150 ms of imports,
more than the rest of a single-file check); jsonschema is loaded only for a schema those
two do not mirror.
"""
from __future__ import annotations

import json
import os
from functools import lru_cache
from typing import Any, Dict, Iterator, List, Optional

from ctxlint.fastschema import Check, Unsupported, compile_schema
from ctxlint.findings import Diagnostic
from ctxlint.nodes import MAP, SEQ, Node, path_of
from ctxlint.schema_errors import sorted_errors

SCHEMA_VIOLATION, UNKNOWN_FIELD = "schema-violation", "unknown-field"
_TYPE_WORDS = {"integer": "an integer", "string": "a string", "number": "a number", "object": "a mapping",
               "array": "a list", "boolean": "a boolean", "null": "null"}


@lru_cache(maxsize=None)
def load_schema(name: str) -> Dict[str, Any]:
    # A plain file read: importlib.resources pulls in tempfile, shutil and random (~10-20 ms of
    # imports on every check), and ctxlint's package data is always on disk.
    with open(os.path.join(os.path.dirname(__file__), "data", name), encoding="utf-8") as handle:
        text = handle.read()
    return json.loads(text)


@lru_cache(maxsize=None)
def _fast_check(name: str, skip_titles: tuple) -> Optional[Check]:
    try:
        return compile_schema(load_schema(name), skip_titles)
    except Unsupported:
        return None  # a keyword fastschema does not know: jsonschema decides


@lru_cache(maxsize=None)
def _validator(name: str):
    import jsonschema  # deferred: see module docstring

    return jsonschema.Draft202012Validator(load_schema(name))


def validate(root: Node, schema_name: str, file: str, skip_titles=("token count",)) -> List[Diagnostic]:
    """Validate a document; one diagnostic per offending node, best match first.

    Errors inside subschemas titled in `skip_titles` are left to a dedicated rule
    (token counts get their own, clearer, messages).
    """
    instance = root.plain()
    fast = _fast_check(schema_name, tuple(skip_titles))
    if fast is not None and fast(instance):
        return []  # what jsonschema would say, without importing it
    out: List[Diagnostic] = []
    seen = set()
    for error in _errors(schema_name, instance):
        if error.schema.get("title") in skip_titles and error.validator in ("pattern", "minimum"):
            continue
        for diag in _diagnose(error, root, file):
            key = (diag.kind, diag.source.path, diag.source.line, diag.source.col)
            if key not in seen:
                seen.add(key)
                out.append(diag)
    return out


def _errors(schema_name: str, instance: Any) -> list:
    """jsonschema's errors, most relevant first (as jsonschema.exceptions.relevance sorts them)."""
    try:
        return sorted_errors(load_schema(schema_name), instance)
    except Unsupported:
        from jsonschema.exceptions import relevance

        return sorted(_validator(schema_name).iter_errors(instance), key=relevance)


def _node_at(root: Node, parts) -> Node:
    node = root
    for part in parts:
        child = None
        if node.kind == MAP:
            child = node.value.get(part)
        elif node.kind == SEQ and isinstance(part, int) and part < len(node.value):
            child = node.value[part]
        if child is None:
            break
        node = child
    return node


def _diagnose(error, root: Node, file: str) -> Iterator[Diagnostic]:
    parts = list(error.absolute_path)
    node = _node_at(root, parts)
    where = path_of(parts) or "document"
    instance, validator = error.instance, error.validator
    if validator == "additionalProperties" and isinstance(instance, dict):
        known = sorted(error.schema.get("properties", {}))
        for key in instance:
            if key in error.schema.get("properties", {}):
                continue
            key_node = node.keys.get(key, node) if node.kind == MAP else node
            yield Diagnostic(UNKNOWN_FIELD, f"unknown field '{key}' in {where}{_did_you_mean(str(key), known)}"
                                            f" (known: {', '.join(known)})",
                             key_node.source(file))
        return
    if validator == "required":
        missing = error.message.split("'")[1] if "'" in error.message else error.message
        message = f"{where}: required field '{missing}' is missing"
    elif validator == "enum":
        choices = [str(c) for c in error.validator_value]
        if isinstance(instance, (dict, list)):  # "['vllm'] is not one of ...; did you mean 'vllm'?" misleads
            message = f"{where}: expected one of {', '.join(choices)}, got {_describe(instance)}"
        else:
            message = (f"{where}: {instance!r} is not one of {', '.join(choices)}"
                       f"{_did_you_mean(str(instance), choices)}")
    elif validator == "const":
        message = f"{where}: expected {error.validator_value!r}, got {instance!r}"
    elif validator == "type":
        wanted = error.validator_value if isinstance(error.validator_value, list) else [error.validator_value]
        words = " or ".join(_TYPE_WORDS.get(w, w) for w in wanted)
        message = f"{where}: expected {words}, got {_describe(instance)}"
    else:
        message = f"{where}: {error.message}"
    yield Diagnostic(SCHEMA_VIOLATION, message, node.source(file))


def _describe(value: Any) -> str:
    if value is None:
        return "null (an empty value)"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()} (YAML 1.1 reads yes/no/on/off as booleans)"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    kind = {int: "an integer", float: "a float", str: "a string"}.get(type(value), type(value).__name__)
    return f"{kind} {value!r}"


def _did_you_mean(word: str, choices: List[str]) -> str:
    lowered = {c.lower(): c for c in choices}
    if word.lower() in lowered:
        return f"; did you mean '{lowered[word.lower()]}'?"
    import difflib  # only a misspelt key pays for it

    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    if not close:
        close = [lowered[c] for c in difflib.get_close_matches(word.lower(), list(lowered), n=1, cutoff=0.6)]
    return f"; did you mean '{close[0]}'?" if close else ""
