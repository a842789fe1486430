"""Command-line flags over a config: `merge_cli`, the layer `ctxlint check` and `config show` put on top.

As in ruff, `--select` starts a new selection layer, `--ignore`, `--extend-select` and `--extend-exclude`
add to the file's, and every key a flag sets records `cli` as its origin. It is apart from config.py,
which reads and builds the file's config, because it runs only when a command line gives flags
(the CLI imports it when it builds its settings).
"""
from __future__ import annotations

from types import MappingProxyType
from typing import Any, Dict

from ctxlint.config import CLI, Config
from ctxlint.config_source import ConfigError
from ctxlint.registry import SelectorError, check_selectors, find

from .records import replace

_CLI_TUPLES = ("select", "extend_select", "ignore", "exclude", "extend_exclude")
_CLI_SCALARS = ("fail_on", "fail_if_empty", "respect_gitignore", "require_suppression_reason", "disallow_suppressions",
                "max_file_size")


def merge_cli(config: Config, **overrides: Any) -> Config:
    """Apply command-line flags over `config`; None means "flag not given".

    As in ruff, `select` from the CLI starts a new selection layer: it replaces the
    config's select, extend-select and ignore; `ignore`, `extend_select` and
    `extend_exclude` from the CLI add to the config's. `severity` maps rule -> level.
    """
    unknown = set(overrides) - set(_CLI_TUPLES) - set(_CLI_SCALARS) - {"severity"}
    if unknown:
        raise TypeError(f"merge_cli: unknown override(s) {sorted(unknown)}")
    changes: Dict[str, Any] = {}
    provenance = dict(config.provenance)
    given = {k: v for k, v in overrides.items() if v is not None}
    for key in ("select", "extend_select", "ignore"):
        if key in given:
            try:
                check_selectors(given[key])
            except SelectorError as exc:
                raise ConfigError(str(exc), CLI) from None
    if "select" in given:
        changes.update(select=tuple(given["select"]), extend_select=(), ignore=())
        provenance.update({"select": CLI, "extend-select": CLI, "ignore": CLI})
    for key in ("extend_select", "ignore", "extend_exclude"):
        if key in given:
            changes[key] = tuple(changes.get(key, getattr(config, key))) + tuple(given[key])
            provenance[key.replace("_", "-")] = CLI
    if "exclude" in given:
        changes["exclude"] = tuple(given["exclude"])
        provenance["exclude"] = CLI
    for key in _CLI_SCALARS:
        if key in given:
            changes[key] = given[key]
            provenance[key.replace("_", "-")] = CLI
    if "severity" in given:
        levels = dict(config.severity)
        for rule, level in given["severity"].items():
            spec = find(rule)
            if spec is None or level not in ("error", "warning", "info", "off"):
                raise ConfigError(f"invalid severity override {rule}={level}", CLI)
            levels[spec.id] = level
            provenance[f"severity.{spec.id}"] = CLI
        changes["severity"] = MappingProxyType(levels)
    return replace(config, provenance=MappingProxyType(dict(sorted(provenance.items()))), **changes)
