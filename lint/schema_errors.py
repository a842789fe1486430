"""The errors jsonschema reports for an invalid document, without importing jsonschema.

ctxlint.fastschema tells a valid document from an invalid one. An invalid native manifest
still needed jsonschema to word its errors: 55-60 ms of imports (attrs, referencing, rpds,
idna, importlib.resources), most of a one-file pre-commit run on a manifest with a typo.
Here each keyword that ctxlint's manifest schema uses yields the error jsonschema 4.x's own
function yields (jsonschema/_keywords.py: same order, message, instance, subschema and path),
and `relevance` orders them as jsonschema.exceptions.relevance does. A schema with any other
keyword raises fastschema.Unsupported and the caller asks jsonschema.
"""
from __future__ import annotations

import re
from typing import Any, Iterator, List, Tuple

from ctxlint.fastschema import ANNOTATIONS, ROOT_ONLY, TYPES, Unsupported, resolve_ref

_WEAK = frozenset(("anyOf", "oneOf"))  # jsonschema.exceptions.WEAK_MATCHES (STRONG_MATCHES is empty)
_KEYWORDS = {"$ref": "k_ref", **{name: "k_" + name for name in (
    "properties", "additionalProperties", "items", "type", "enum", "const", "required", "minimum", "maximum",
    "exclusiveMinimum", "minLength", "pattern", "minItems", "minProperties", "maxProperties")}}


class SchemaError:
    """What ctxlint.schema reads of a jsonschema ValidationError."""

    __slots__ = ("validator", "validator_value", "instance", "absolute_path", "schema", "message")

    def __init__(self, validator: str, value: Any, instance: Any, path: Tuple, schema: dict, message: str) -> None:
        self.validator, self.validator_value, self.instance = validator, value, instance
        self.absolute_path, self.schema, self.message = path, schema, message

    def matches_type(self) -> bool:
        """jsonschema's ValidationError._matches_type: the instance has a type its subschema allows."""
        expected = self.schema.get("type")
        if expected is None:
            return False
        return any(TYPES[name](self.instance) for name in ([expected] if isinstance(expected, str) else expected))


def relevance(error: SchemaError) -> tuple:
    """jsonschema.exceptions.relevance: deeper first, then by path, then the keyword's weight. A path
    compares its parts as jsonschema does; parts of different types (a mapping's int and str keys,
    where jsonschema's sort raises TypeError) are told apart by type first."""
    path = error.absolute_path
    return (-len(path), tuple((type(part) is str, part) for part in path),
            error.validator not in _WEAK, False, not error.matches_type())


def sorted_errors(root: dict, instance: Any) -> List[SchemaError]:
    """Every error of `instance` against the schema `root`, most relevant first (as ctxlint.schema sorts
    jsonschema's). Raises Unsupported for a schema this module does not mirror."""
    return sorted(_Walk(root).errors(root, instance, ()), key=relevance)


class _Walk:
    def __init__(self, root: dict) -> None:
        self.root = root
        self.depth = 0

    def errors(self, schema: Any, instance: Any, path: Tuple) -> Iterator[SchemaError]:
        """jsonschema's iter_errors/descend: the schema's keywords in their written order."""
        if schema is True:
            return
        if not isinstance(schema, dict):
            raise Unsupported(f"schema {schema!r}")
        self.depth += 1
        if self.depth > 200:  # a $ref that never consumes the instance: jsonschema would recurse forever
            raise Unsupported("$ref cycle")
        for key, value in schema.items():
            if key in ANNOTATIONS or key == "$defs" or (schema is self.root and key in ROOT_ONLY):
                continue
            method = _KEYWORDS.get(key)
            if method is None:  # oneOf and the rest: jsonschema words those
                raise Unsupported(key)
            keyword = getattr(self, method)
            for found in keyword(value, instance, schema, path):
                yield found if type(found) is SchemaError else SchemaError(key, value, instance, path, schema, found)
        self.depth -= 1

    # --- applicators: errors of subschemas, at deeper paths ---

    def k_ref(self, ref: str, instance: Any, schema: dict, path: Tuple) -> Iterator:
        yield from self.errors(resolve_ref(self.root, ref), instance, path)

    def k_properties(self, props: dict, instance: Any, schema: dict, path: Tuple) -> Iterator:
        if isinstance(instance, dict):
            for name, sub in props.items():
                if name in instance:
                    yield from self.errors(sub, instance[name], path + (name,))

    def k_additionalProperties(self, extra: Any, instance: Any, schema: dict, path: Tuple) -> Iterator:
        if "patternProperties" in schema:
            raise Unsupported("patternProperties")
        if not isinstance(instance, dict):
            return
        known = schema.get("properties", {})
        extras = [key for key in instance if key not in known]
        if isinstance(extra, dict):
            # jsonschema walks a set of the extra keys; the sort by path makes the order moot
            for key in extras:
                yield from self.errors(extra, instance[key], path + (key,))
        elif not extra and extras:
            names = sorted(extras, key=str)
            yield (f"Additional properties are not allowed ({', '.join(repr(name) for name in names)} "
                   f"{'was' if len(names) == 1 else 'were'} unexpected)")

    def k_items(self, items: Any, instance: Any, schema: dict, path: Tuple) -> Iterator:
        if "prefixItems" in schema or items is False:
            raise Unsupported("prefixItems")
        if isinstance(instance, list):
            for index, item in enumerate(instance):
                yield from self.errors(items, item, path + (index,))

    # --- assertions: at most one message each, at this path ---

    def k_type(self, types: Any, instance: Any, schema: dict, path: Tuple) -> Iterator[str]:
        names = [types] if isinstance(types, str) else types
        if not all(name in TYPES for name in names):
            raise Unsupported(f"type {types!r}")
        if not any(TYPES[name](instance) for name in names):
            yield f"{instance!r} is not of type {', '.join(repr(name) for name in names)}"

    def k_enum(self, choices: list, instance: Any, schema: dict, path: Tuple) -> Iterator[str]:
        if not all(isinstance(choice, str) for choice in choices):  # jsonschema's equal() for strings only
            raise Unsupported("enum with non-string choices")
        if not (isinstance(instance, str) and instance in choices):
            yield f"{instance!r} is not one of {choices!r}"

    def k_const(self, const: Any, instance: Any, schema: dict, path: Tuple) -> Iterator[str]:
        if not isinstance(const, str):
            raise Unsupported("const with a non-string value")
        if not (isinstance(instance, str) and instance == const):
            yield f"{const!r} was expected"

    def k_required(self, names: list, instance: Any, schema: dict, path: Tuple) -> Iterator[str]:
        if isinstance(instance, dict):
            yield from (f"{name!r} is a required property" for name in names if name not in instance)

    def k_minimum(self, low: Any, instance: Any, schema: dict, path: Tuple) -> Iterator[str]:
        if TYPES["number"](instance) and instance < low:
            yield f"{instance!r} is less than the minimum of {low!r}"

    def k_maximum(self, high: Any, instance: Any, schema: dict, path: Tuple) -> Iterator[str]:
        if TYPES["number"](instance) and instance > high:
            yield f"{instance!r} is greater than the maximum of {high!r}"

    def k_exclusiveMinimum(self, low: Any, instance: Any, schema: dict, path: Tuple) -> Iterator[str]:
        if TYPES["number"](instance) and instance <= low:
            yield f"{instance!r} is less than or equal to the minimum of {low!r}"

    def k_minLength(self, least: int, instance: Any, schema: dict, path: Tuple) -> Iterator[str]:
        if isinstance(instance, str) and len(instance) < least:
            yield f"{instance!r} {'should be non-empty' if least == 1 else 'is too short'}"

    def k_pattern(self, pattern: str, instance: Any, schema: dict, path: Tuple) -> Iterator[str]:
        if isinstance(instance, str) and not re.search(pattern, instance):
            yield f"{instance!r} does not match {pattern!r}"

    def k_minItems(self, least: int, instance: Any, schema: dict, path: Tuple) -> Iterator[str]:
        if isinstance(instance, list) and len(instance) < least:
            yield f"{instance!r} {'should be non-empty' if least == 1 else 'is too short'}"

    def k_minProperties(self, least: int, instance: Any, schema: dict, path: Tuple) -> Iterator[str]:
        if isinstance(instance, dict) and len(instance) < least:
            yield f"{instance!r} {'should be non-empty' if least == 1 else 'does not have enough properties'}"

    def k_maxProperties(self, most: int, instance: Any, schema: dict, path: Tuple) -> Iterator[str]:
        if isinstance(instance, dict) and len(instance) > most:
            yield f"{instance!r} {'is expected to be empty' if most == 0 else 'has too many properties'}"
