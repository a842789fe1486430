"""A small JSON Schema (draft 2020-12) checker that answers one question: is this valid?

Importing jsonschema costs 70-150 ms (attrs, referencing, rpds, format checkers), more
than the whole rest of a single-file check. Valid documents are the common case, so
ctxlint first asks this checker; only when it says "invalid" does the caller load
jsonschema, which then words the errors exactly as before. So this module never has
to produce a message, only the same verdict as jsonschema.

It knows exactly the keywords ctxlint's own schemas use (manifest, config with the
rules' option schemas). A schema with any other keyword raises `Unsupported` at
compile time and the caller uses jsonschema for everything, which is slower but never
wrong. Each keyword below mirrors jsonschema's own implementation (jsonschema/_keywords.py,
_types.py, _utils.equal), including its type rules: bool is neither integer nor number,
1.0 is an integer, `pattern` is an unanchored `re.search`.
"""
from __future__ import annotations

import numbers
import re
from typing import Any, Callable, Dict, List, Optional, Sequence

Check = Callable[[Any], bool]

# Keywords that never make an instance invalid.
ANNOTATIONS = frozenset(("title", "description", "$comment", "default", "examples", "deprecated",
                          "readOnly", "writeOnly"))
ROOT_ONLY = frozenset(("$schema", "$id"))


_KEYWORDS = {"$ref": "k_ref", **{name: "k_" + name for name in (
    "properties", "additionalProperties", "items", "oneOf", "type", "enum", "const", "required", "minimum",
    "maximum", "exclusiveMinimum", "minLength", "pattern", "minItems", "minProperties", "maxProperties")}}


class Unsupported(Exception):
    """The schema uses something this checker does not implement; use jsonschema."""


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Number) and not isinstance(value, bool)


def _is_integer(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())


TYPES: Dict[str, Check] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "number": _is_number,
    "integer": _is_integer,
}


def _valid(value: Any) -> bool:
    return True


def _invalid(value: Any) -> bool:
    return False


def compile_schema(schema: Any, skip_titles: Sequence[str] = ()) -> Check:
    """A function instance -> bool that agrees with jsonschema.Draft202012Validator.

    With `skip_titles`, a failed `pattern` or `minimum` in a subschema with one of these
    titles does not count (ctxlint.schema.validate drops those errors; a dedicated rule
    reports them), except inside oneOf, whose sub-errors jsonschema never reports alone.
    """
    return _Compiler(schema).compile(schema, tuple(skip_titles), root=True)


def resolve_ref(root: Any, ref: str) -> Any:
    """The subschema a local `$ref` (`#`, `#/$defs/name`, JSON-pointer escapes) names in `root`;
    Unsupported for any other reference."""
    if not ref.startswith("#") or "%" in ref or (ref != "#" and not ref.startswith("#/")):
        raise Unsupported(f"$ref {ref}")
    target = root
    for part in ref[2:].split("/") if ref != "#" else []:
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(target, dict) and part in target:
            target = target[part]
        elif isinstance(target, list) and part.isdigit() and int(part) < len(target):
            target = target[int(part)]
        else:
            raise Unsupported(f"$ref {ref}")
    return target


class _Compiler:
    def __init__(self, root: Any) -> None:
        self.root = root
        self.refs: Dict[Any, List[Check]] = {}

    def compile(self, schema: Any, skip: tuple, root: bool = False) -> Check:
        if schema is True:
            return _valid
        if schema is False:
            return _invalid
        if not isinstance(schema, dict):
            raise Unsupported(f"schema {schema!r}")
        skipping = bool(skip) and schema.get("title") in skip
        checks: List[Check] = []
        for key, value in schema.items():
            if key in ANNOTATIONS or key == "$defs" or (root and key in ROOT_ONLY):
                continue
            if skipping and key in ("pattern", "minimum"):
                continue
            method = _KEYWORDS.get(key)
            if method is None:  # jsonschema ignores unknown words; we cannot know whether it is one

                raise Unsupported(key)
            check = getattr(self, method)(value, schema, skip)
            if check is not None:
                checks.append(check)
        if not checks:
            return _valid
        if len(checks) == 1:
            return checks[0]
        checks_t = tuple(checks)
        return lambda v: all(check(v) for check in checks_t)

    # --- applicators ------------------------------------------------------------------------

    def k_ref(self, ref: str, schema: dict, skip: tuple) -> Check:
        key = (ref, skip)
        if key not in self.refs:
            cell: List[Check] = []
            self.refs[key] = cell  # before compiling: a recursive schema refers to itself
            cell.append(self.compile(resolve_ref(self.root, ref), skip))
        cell = self.refs[key]
        return lambda v: cell[0](v)

    def k_properties(self, props: dict, schema: dict, skip: tuple) -> Check:
        compiled = tuple((name, self.compile(sub, skip)) for name, sub in props.items())

        def check(v: Any) -> bool:
            if not isinstance(v, dict):
                return True
            for name, sub in compiled:
                if name in v and not sub(v[name]):
                    return False
            return True
        return check

    def k_additionalProperties(self, extra: Any, schema: dict, skip: tuple) -> Optional[Check]:
        if "patternProperties" in schema:
            raise Unsupported("patternProperties")
        known = frozenset(schema.get("properties", {}))
        if extra is True or extra == {}:
            return None
        if extra is False:
            return lambda v: not isinstance(v, dict) or all(k in known for k in v)
        sub = self.compile(extra, skip)
        return lambda v: not isinstance(v, dict) or all(sub(item) for k, item in v.items() if k not in known)

    def k_items(self, items: Any, schema: dict, skip: tuple) -> Check:
        if "prefixItems" in schema:
            raise Unsupported("prefixItems")
        sub = self.compile(items, skip)
        return lambda v: not isinstance(v, list) or all(sub(item) for item in v)

    def k_oneOf(self, options: list, schema: dict, skip: tuple) -> Check:
        subs = tuple(self.compile(option, ()) for option in options)  # sub-errors only as context
        return lambda v: sum(1 for sub in subs if sub(v)) == 1

    # --- assertions ---------------------------------------------------------------------------

    def k_type(self, types: Any, schema: dict, skip: tuple) -> Check:
        names = [types] if isinstance(types, str) else list(types)
        if not all(name in TYPES for name in names):
            raise Unsupported(f"type {types!r}")
        preds = tuple(TYPES[name] for name in names)
        if len(preds) == 1:
            return preds[0]
        return lambda v: any(pred(v) for pred in preds)

    def k_enum(self, choices: list, schema: dict, skip: tuple) -> Check:
        # jsonschema's equal(): a string equals only an equal string. Other choices would
        # need its bool/int and container rules, which no ctxlint schema needs.
        if not all(isinstance(c, str) for c in choices):
            raise Unsupported("enum with non-string choices")
        allowed = frozenset(choices)
        return lambda v: isinstance(v, str) and v in allowed

    def k_const(self, const: Any, schema: dict, skip: tuple) -> Check:
        if not isinstance(const, str):
            raise Unsupported("const with a non-string value")
        return lambda v: isinstance(v, str) and v == const

    def k_required(self, names: list, schema: dict, skip: tuple) -> Check:
        names_t = tuple(names)
        return lambda v: not isinstance(v, dict) or all(name in v for name in names_t)

    def k_minimum(self, low: Any, schema: dict, skip: tuple) -> Check:
        return lambda v: not _is_number(v) or not v < low

    def k_maximum(self, high: Any, schema: dict, skip: tuple) -> Check:
        return lambda v: not _is_number(v) or not v > high

    def k_exclusiveMinimum(self, low: Any, schema: dict, skip: tuple) -> Check:
        return lambda v: not _is_number(v) or not v <= low

    def k_minLength(self, least: int, schema: dict, skip: tuple) -> Check:
        return lambda v: not isinstance(v, str) or len(v) >= least

    def k_pattern(self, pattern: str, schema: dict, skip: tuple) -> Check:
        search = re.compile(pattern).search
        return lambda v: not isinstance(v, str) or search(v) is not None

    def k_minItems(self, least: int, schema: dict, skip: tuple) -> Check:
        return lambda v: not isinstance(v, list) or len(v) >= least

    def k_minProperties(self, least: int, schema: dict, skip: tuple) -> Check:
        return lambda v: not isinstance(v, dict) or len(v) >= least

    def k_maxProperties(self, most: int, schema: dict, skip: tuple) -> Check:
        return lambda v: not isinstance(v, dict) or len(v) <= most
