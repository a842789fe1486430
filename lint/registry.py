"""The rule table, built from `ctxlint.rules.ALL`, and rule selection.

Selectors are codes, code prefixes (`CTX1`) or rule names; as in flake8 and ruff,
the most specific selector wins, so `--select CTX1 --ignore CTX105` keeps every
CTX1xx rule but CTX105.
"""
from __future__ import annotations

from functools import lru_cache
from types import MappingProxyType, ModuleType
from typing import Any, Dict, Iterable, Mapping, Optional, Sequence, Tuple

from ctxlint.findings import SEVERITIES
from ctxlint.lazyre import lazy_compile

from .records import record

ID_FORMAT = lazy_compile(r"^CTX[0-9]{3}$")
NAME_FORMAT = lazy_compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")
SCOPES = ("input", "deployment", "stack", "probe")  # stack: routes joined to engines; probe: `ctxlint probe`


class SelectorError(ValueError):
    """A --select/--ignore entry that matches no rule."""


@record(frozen=True)
class RuleSpec:
    id: str
    name: str
    severity: str
    scope: str
    tags: Tuple[str, ...]
    options_schema: Mapping[str, Any]
    module: ModuleType
    inputs: Tuple[str, ...] = ()  # what the rule reads, in the words of ctxlint.reporters.rule_pages.INPUTS

    @property
    def summary(self) -> str:
        return (self.module.__doc__ or "").strip().splitlines()[0]

    @property
    def doc(self) -> str:
        return (self.module.__doc__ or "").strip()

    def default_options(self) -> Dict[str, Any]:
        props = self.options_schema.get("properties", {})
        return {key: spec["default"] for key, spec in props.items() if "default" in spec}


def _spec(module: ModuleType) -> RuleSpec:
    spec = RuleSpec(module.ID, module.NAME, module.SEVERITY, module.SCOPE, tuple(module.TAGS),
                    MappingProxyType(dict(module.OPTIONS)), module, tuple(module.INPUTS))
    if not ID_FORMAT.match(spec.id) or not NAME_FORMAT.match(spec.name):
        raise ValueError(f"rule {module.__name__}: bad ID {spec.id!r} or name {spec.name!r}")
    if spec.severity not in SEVERITIES or spec.scope not in SCOPES:
        raise ValueError(f"rule {spec.id}: bad severity {spec.severity!r} or scope {spec.scope!r}")
    return spec


@lru_cache(maxsize=None)
def all_rules() -> Tuple[RuleSpec, ...]:
    from ctxlint.rules import ALL

    specs = tuple(_spec(m) for m in ALL)
    ids = [s.id for s in specs]
    names = [s.name for s in specs]
    if len(set(ids)) != len(ids) or len(set(names)) != len(names):
        raise ValueError("duplicate rule ID or name in ctxlint.rules.ALL")
    return tuple(sorted(specs, key=lambda s: s.id))


def find(code_or_name: str) -> Optional[RuleSpec]:
    key = code_or_name.strip()
    for spec in all_rules():
        if key.upper() == spec.id or key.lower() == spec.name:
            return spec
    return None


def suggest(text: str, limit: int = 3) -> Tuple[RuleSpec, ...]:
    """Rules a mistyped ID or name probably meant: close spellings, then names containing it."""
    import difflib  # only a mistyped rule pays for it

    key = text.strip()
    by_id = {s.id: s for s in all_rules()}
    by_name = {s.name: s for s in all_rules()}
    upper = key.upper()
    if upper.startswith("CTX"):  # the letter O typed for a zero
        upper = "CTX" + upper[3:].replace("O", "0")
    if upper in by_id:
        return (by_id[upper],)
    close = difflib.get_close_matches(upper, list(by_id), n=limit, cutoff=0.75) + \
        difflib.get_close_matches(key.lower(), list(by_name), n=limit, cutoff=0.6)
    found = [by_id.get(c) or by_name[c] for c in close]
    if len(key) >= 3:
        found += [s for s in all_rules() if key.lower() in s.name]
    unique = {s.id: s for s in found}  # RuleSpec holds a mapping, so it is not hashable
    return tuple(unique.values())[:limit]


def _specificity(selector: str, spec: RuleSpec) -> int:
    """How specifically `selector` names `spec`: 0 = not at all."""
    sel = selector.strip()
    if sel.lower() == spec.name or sel.upper() == spec.id:
        return 100
    if sel.upper() == "ALL":
        return 1
    if sel and spec.id.startswith(sel.upper()):
        return 1 + len(sel)
    return 0


def check_selectors(selectors: Iterable[str]) -> None:
    for sel in selectors:
        if not any(_specificity(sel, spec) for spec in all_rules()):
            import difflib

            choices = [s.id for s in all_rules()] + [s.name for s in all_rules()]
            close = difflib.get_close_matches(sel, choices, n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            raise SelectorError(f"unknown rule selector '{sel}'{hint} (see `ctxlint rules`)")


def selected(select: Sequence[str] = (), ignore: Sequence[str] = ()) -> Tuple[RuleSpec, ...]:
    """The rules enabled by `select` (default: all) minus `ignore`, most specific wins."""
    return _selected(tuple(select), tuple(ignore))  # asked once per file: remembered


@lru_cache(maxsize=64)
def _selected(select: Tuple[str, ...], ignore: Tuple[str, ...]) -> Tuple[RuleSpec, ...]:
    check_selectors(list(select) + list(ignore))
    chosen = []
    for spec in all_rules():
        best_select = max((_specificity(s, spec) for s in select), default=1 if not select else 0)
        best_ignore = max((_specificity(s, spec) for s in ignore), default=0)
        if best_select > best_ignore:  # at equal specificity, ignore wins
            chosen.append(spec)
    return tuple(chosen)
