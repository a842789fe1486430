"""Validation of a config file's data: the JSON Schema (with every rule's own options
schema plugged in under `rules.<ID or name>`) and the checks a schema cannot
express (rule selectors, rule names as keys). Errors point at the offending key
or value.
"""
from __future__ import annotations

import copy
import json
import os
from functools import lru_cache
from typing import Any, Dict, Iterable, List, Sequence

from ctxlint.config_source import ConfigError, Located
from ctxlint.fastschema import Unsupported, compile_schema
from ctxlint.registry import SelectorError, all_rules, check_selectors, find

SCHEMA_FILE = os.path.join(os.path.dirname(__file__), "data", "config.schema.json")


def normalize(data: Dict[str, Any]) -> None:
    # YAML 1.1 reads an unquoted `off` as false; in a severity slot it can only mean "off".
    levels = [data.get("severity")] + [o for o in (data.get("rules") or {}).values() if isinstance(o, dict)]
    for mapping in levels:
        if isinstance(mapping, dict):
            keys = mapping.keys() if mapping is data.get("severity") else ["severity"]
            for key in keys:
                if mapping.get(key) is False:
                    mapping[key] = "off"


# --- validation -----------------------------------------------------------------------------------

@lru_cache(maxsize=1)
def _base_schema() -> Dict[str, Any]:
    with open(SCHEMA_FILE, encoding="utf-8") as fh:
        return json.load(fh)


def full_schema() -> Dict[str, Any]:
    """The shipped schema with each rule's own OPTIONS schema under rules.<ID> and rules.<name>."""
    schema = copy.deepcopy(_base_schema())
    props = {}
    for spec in all_rules():
        rule_schema = copy.deepcopy(dict(spec.options_schema))
        rule_schema.setdefault("properties", {})["severity"] = {"$ref": "#/$defs/level"}
        props[spec.id] = props[spec.name] = rule_schema
    schema["properties"]["rules"] = {"description": schema["properties"]["rules"]["description"], "type": "object",
                                     "properties": props, "additionalProperties": False}
    return schema


def validate(located: Located) -> None:
    schema = full_schema()
    if not _fast_valid(schema, located.data):  # jsonschema only to word the error
        import jsonschema

        validator = jsonschema.Draft202012Validator(schema)
        errors = sorted(validator.iter_errors(located.data), key=lambda e: located.position(list(e.absolute_path)))
        if errors:
            raise _schema_error(errors[0], located)
    data = located.data
    for key in ("select", "extend-select", "ignore"):
        for i, selector in enumerate(data.get(key, [])):
            _check_selector(selector, located, [key, i])
    for glob, selectors in data.get("per-file-ignores", {}).items():
        for i, selector in enumerate(selectors):
            _check_selector(selector, located, ["per-file-ignores", glob, i])
    for rule in data.get("severity", {}):
        if find(rule) is None:
            raise ConfigError(f"severity: unknown rule '{rule}'{_suggest(rule, _rule_keys())}",
                              located.file, *located.position(["severity", rule], key=True))
    seen: Dict[str, str] = {}
    for section in ("severity", "rules"):
        for rule in data.get(section, {}):
            rid = find(rule).id  # type: ignore[union-attr] - validated above / by the schema
            if seen.get(rid) == section:
                raise ConfigError(f"{section}: rule {rid} is configured twice (by code and by name)",
                                  located.file, *located.position([section, rule], key=True))
            seen[rid] = section


def _fast_valid(schema: Dict[str, Any], data: Any) -> bool:
    try:
        return compile_schema(schema)(data)
    except Unsupported:  # e.g. a rule's options schema with a keyword fastschema lacks
        return False


def _check_selector(selector: str, located: Located, where: List[Any]) -> None:
    try:
        check_selectors([selector])
    except SelectorError as exc:
        raise ConfigError(f"{_dotted(where[:-1])}: {exc}", located.file, *located.position(where)) from None


def _rule_keys() -> List[str]:
    return [s.id for s in all_rules()] + [s.name for s in all_rules()]


def _suggest(word: str, choices: Iterable[str]) -> str:
    import difflib  # only a misspelt key pays for it

    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f"; did you mean '{close[0]}'?" if close else ""


def _dotted(parts: Sequence[Any]) -> str:
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _schema_error(error: Any, located: Located) -> ConfigError:
    where = list(error.absolute_path)
    prefix = f"{_dotted(where)}: " if where else ""
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        allowed = set(error.schema.get("properties", {}))
        unknown = [k for k in error.instance if k not in allowed][0]
        what = "rule" if where == ["rules"] else ("option" if where[:1] == ["rules"] else "key")
        choices = _rule_keys() if what == "rule" else sorted(allowed)
        hint = _suggest(unknown, choices)
        if what == "option" and not hint:
            hint = f"; {_dotted(where)} accepts {', '.join(sorted(allowed)) or 'no options'}"
        return ConfigError(f"{prefix}unknown {what} '{unknown}'{hint}", located.file,
                           *located.position(where + [unknown], key=True))
    if error.validator == "enum":
        message = f"{error.instance!r} is not one of {', '.join(map(str, error.validator_value))}"
    elif error.validator == "oneOf" and where[:1] == ["accelerators"]:
        message = "give exactly one of memory_gib or memory_bytes"
    elif error.validator == "oneOf" and where == ["jobs"]:
        message = f"{error.instance!r} is neither a number of processes (0 or more) nor 'auto'"
    else:
        message = error.message
    return ConfigError(prefix + message, located.file, *located.position(where))


