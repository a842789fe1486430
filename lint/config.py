"""Configuration: discovery, validation with located errors, defaults, CLI overrides.

A config is `.ctxlint.yaml` / `.ctxlint.yml` or `[tool.ctxlint]` in `pyproject.toml`,
found by walking up from a start directory to the repository root (the first
directory holding `.git`) or the filesystem root; the closest file wins
(config_discovery.py). It is always merged over the defaults (a partial file never
silently drops a default), and `merge_cli` (config_merge.py) puts command-line flags on
top. Every effective key remembers where it came from (`default`, the config file's
path, or `cli`) for `ctxlint config show`.
"""
from __future__ import annotations

import copy
import os
from types import MappingProxyType
from typing import Any, Dict, FrozenSet, Iterable, List, Mapping, Optional, Tuple

from ctxlint.config_discovery import PYPROJECT, find_config, read_text
from ctxlint.config_source import ConfigError, Located, load_pyproject, load_yaml
from ctxlint.config_validate import full_schema, normalize, validate
from ctxlint.globs import gitignored, glob_match, relative_posix
from ctxlint.file_reader import DEFAULT_MAX_BYTES
from ctxlint.registry import all_rules, find, selected

from .records import field, record, replace

__all__ = ["CLI", "DEFAULT", "Config", "ConfigError", "apply_severity", "find_config", "full_schema",
           "is_excluded", "load_config", "parse_config", "show"]

DEFAULT, CLI = "default", "cli"

# File spelling -> default value. Rule options are added per rule in `_defaults()`.
DEFAULTS: Dict[str, Any] = {
    "select": [], "extend-select": [], "ignore": [], "per-file-ignores": {}, "severity": {},
    "fail-on": "error", "fail-if-empty": False, "exclude": [], "extend-exclude": [], "respect-gitignore": True,
    "require-suppression-reason": True, "disallow-suppressions": False,
    "max-file-size": DEFAULT_MAX_BYTES, "accelerators": {}, "models": {}, "default-accelerator": {},
    "models-lock": "", "jobs": "auto",
}


@record(frozen=True)
class Config:
    select: Tuple[str, ...] = ()
    extend_select: Tuple[str, ...] = ()
    ignore: Tuple[str, ...] = ()
    per_file_ignores: Mapping[str, Tuple[str, ...]] = field(default_factory=dict)  # glob -> selectors
    severity: Mapping[str, str] = field(default_factory=dict)  # rule ID -> error|warning|info|off
    rule_options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # rule ID -> options
    fail_on: str = "error"
    fail_if_empty: bool = False  # a run that checks no file exits 1 (a mistyped path must not pass a gate)
    exclude: Tuple[str, ...] = ()
    extend_exclude: Tuple[str, ...] = ()
    respect_gitignore: bool = True
    require_suppression_reason: bool = True
    disallow_suppressions: bool = False
    max_file_size: int = DEFAULT_MAX_BYTES
    accelerators: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    models: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    default_accelerator: Mapping[str, str] = field(default_factory=dict)  # path glob -> device ("**": all)
    models_lock: str = ""  # the lock file path as configured ("" = .ctxlint-models.lock beside the config)
    jobs: Any = "auto"  # processes for `check`/`audit` (cli_settings.processes_for): a count, 0, or "auto"
    path: Optional[str] = None  # the config file read, None for defaults only
    root: str = "."  # globs are relative to this directory (the config file's, else the start)
    provenance: Mapping[str, str] = field(default_factory=dict)  # "fail-on" -> "default" | path | "cli"

    @property
    def effective_select(self) -> Tuple[str, ...]:
        """`select` plus `extend-select`; empty means every rule."""
        return (tuple(self.select) + tuple(self.extend_select)) if self.select else ()

    @property
    def effective_ignore(self) -> Tuple[str, ...]:
        """`ignore` plus every rule whose severity is `off`."""
        return tuple(self.ignore) + tuple(sorted(r for r, lvl in self.severity.items() if lvl == "off"))

    def enabled_rules(self) -> FrozenSet[str]:
        return frozenset(s.id for s in selected(self.effective_select, self.effective_ignore))

    def settings(self):
        """The engine's Settings for this config (selection, options, file size)."""
        from ctxlint.engine import Settings  # late: the engine will import this module
        from ctxlint.resolution.resolve import hf_cache_dirs

        return Settings(
            select=self.effective_select, ignore=self.effective_ignore,
            rule_options=_plain(self.rule_options), max_file_size=self.max_file_size,
            severity={rid: level for rid, level in self.severity.items() if level != "off"},
            per_file_ignores=tuple((glob, self._ignored_by(selectors))
                                   for glob, selectors in self.per_file_ignores.items()),
            exclude=tuple(self.exclude) + tuple(self.extend_exclude), root=self.root,
            respect_gitignore=self.respect_gitignore,
            require_suppression_reason=self.require_suppression_reason,
            disallow_suppressions=self.disallow_suppressions,
            accelerators=_plain(self.accelerators), models=_plain(self.models),
            models_lock=self.lock_models(), default_accelerators=tuple(self.default_accelerator.items()),
            hf_cache=hf_cache_dirs(), config_label=os.path.basename(self.path) if self.path else ".ctxlint.yaml")

    def lock_path(self) -> str:
        """Where the models lock file is (or would be written)."""
        from ctxlint.resolution.lockfile import LOCK_NAME
        return os.path.join(self.root, self.models_lock or LOCK_NAME)

    def lock_models(self) -> Mapping[str, Any]:
        """The lock file's models by id ({} when there is none); a broken file is a config error."""
        from ctxlint.resolution.lockfile import read_lock
        path = self.lock_path()
        if not os.path.isfile(path):
            if self.models_lock:
                raise ConfigError(f"models-lock: {path} does not exist (run `ctxlint models lock`)", self.path)
            return {}
        models, problem = read_lock(path)
        if problem:
            raise ConfigError(problem, path)
        return models

    @staticmethod
    def _ignored_by(selectors: Iterable[str]) -> FrozenSet[str]:
        # "ALL" has the lowest specificity, so what survives it is what the selectors do not name.
        kept = {s.id for s in selected(("ALL",), tuple(selectors))}
        return frozenset(s.id for s in all_rules() if s.id not in kept)

    def ignored_rules_for(self, path: str) -> FrozenSet[str]:
        """Rule IDs that `per-file-ignores` turns off for `path`."""
        rel = relative_posix(path, self.root) or path.replace(os.sep, "/")
        out: set = set()
        for pattern, selectors in self.per_file_ignores.items():
            if glob_match(pattern, rel):
                out |= self._ignored_by(selectors)
        return frozenset(out)



# --- loading --------------------------------------------------------------------------------------

def load_config(start: str = ".", path: Optional[str] = None, isolated: bool = False, finder: Any = None) -> Config:
    """The effective config: defaults, overlaid by the explicit or discovered file.

    `path` names the file (`--config`); `isolated` reads no file at all (`--isolated`); `finder`
    (a config_discovery.ConfigFinder) remembers the walk for the run's other directories.
    """
    if isolated:
        return _build({}, None, os.path.abspath(start), None)
    path = path or (finder.find(start) if finder is not None else find_config(start))
    if path is None:
        return _build({}, None, os.path.abspath(start), None)
    if not os.path.isfile(path):
        raise ConfigError(f"config file does not exist: {path}")
    return parse_config(read_text(path), path)


def parse_config(text: str, filename: str) -> Config:
    """Validate one config file's text; `filename` decides YAML or pyproject.toml."""
    if os.path.basename(filename) == PYPROJECT or filename.endswith(".toml"):
        located = load_pyproject(text, filename)
    else:
        located = load_yaml(text, filename)
    normalize(located.data)
    validate(located)
    return _build(located.data, filename, os.path.dirname(os.path.abspath(filename)), located)


# --- building -------------------------------------------------------------------------------------

def _defaults() -> Dict[str, Any]:
    data = copy.deepcopy(DEFAULTS)
    data["rules"] = {s.id: s.default_options() for s in all_rules()}
    return data


def _build(data: Mapping[str, Any], source: Optional[str], root: str, located: Optional[Located]) -> Config:
    origin = source or DEFAULT
    effective = _defaults()
    provenance = {key: DEFAULT for key in DEFAULTS}
    provenance.update({f"rules.{rid}.{opt}": DEFAULT for rid, opts in effective["rules"].items() for opt in opts})
    for key, value in data.items():
        if key == "rules":
            for rule, options in value.items():
                rid = find(rule).id  # type: ignore[union-attr]
                for opt, val in options.items():
                    if opt == "severity":
                        effective["severity"][rid] = val
                        provenance[f"severity.{rid}"] = origin
                    else:
                        effective["rules"][rid][opt] = val
                        provenance[f"rules.{rid}.{opt}"] = origin
        elif key == "severity":
            for rule, level in value.items():
                rid = find(rule).id  # type: ignore[union-attr]
                effective["severity"][rid] = level
                provenance[f"severity.{rid}"] = origin
        else:
            effective[key] = value
            provenance[key] = origin
    return Config(
        select=tuple(effective["select"]), extend_select=tuple(effective["extend-select"]),
        ignore=tuple(effective["ignore"]),
        per_file_ignores=_frozen({g: tuple(s) for g, s in effective["per-file-ignores"].items()}),
        severity=_frozen(effective["severity"]), rule_options=_frozen(effective["rules"]),
        fail_on=effective["fail-on"], fail_if_empty=effective["fail-if-empty"],
        exclude=tuple(effective["exclude"]),
        extend_exclude=tuple(effective["extend-exclude"]), respect_gitignore=effective["respect-gitignore"],
        require_suppression_reason=effective["require-suppression-reason"],
        disallow_suppressions=effective["disallow-suppressions"], max_file_size=effective["max-file-size"],
        accelerators=_frozen(effective["accelerators"]), models=_frozen(effective["models"]),
        default_accelerator=_frozen(_device_globs(effective["default-accelerator"])),
        models_lock=effective["models-lock"], jobs=effective["jobs"], path=source, root=root,
        provenance=MappingProxyType(dict(sorted(provenance.items()))))


def _device_globs(value: Any) -> Dict[str, str]:
    """`default-accelerator`: one device for every path, or path glob -> device."""
    if isinstance(value, str):
        return {"**": value}
    return dict(value or {})


def _frozen(value: Any) -> Any:
    if isinstance(value, Mapping):
        return MappingProxyType({k: _frozen(v) for k, v in value.items()})
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    return value


# --- excludes, show, severity --------------------------------------------------------------------

def is_excluded(path: str, config: Config) -> bool:
    """Is `path` excluded by `exclude`/`extend-exclude` or, if respected, a .gitignore?"""
    if path == "-":
        return False
    rel = relative_posix(path, config.root)
    target = rel if rel is not None else os.path.basename(path)
    if any(glob_match(p, target) for p in tuple(config.exclude) + tuple(config.extend_exclude)):
        return True
    return bool(config.respect_gitignore and gitignored(path))


def show(config: Config) -> List[Tuple[str, Any, str]]:
    """Rows (key, effective value, source) for `ctxlint config show`, sorted by key."""
    rows: Dict[str, Tuple[Any, str]] = {}
    for key in DEFAULTS:
        if key == "severity":
            continue
        value = getattr(config, key.replace("-", "_"))
        rows[key] = (_plain(value), config.provenance.get(key, DEFAULT))
    for rid, level in config.severity.items():
        rows[f"severity.{rid}"] = (level, config.provenance.get(f"severity.{rid}", DEFAULT))
    for rid, options in config.rule_options.items():
        for opt, value in options.items():
            rows[f"rules.{rid}.{opt}"] = (_plain(value), config.provenance.get(f"rules.{rid}.{opt}", DEFAULT))
    return [(key, value, origin) for key, (value, origin) in sorted(rows.items())]


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


def apply_severity(findings: Iterable[Any], config: Config) -> List[Any]:
    """Findings with per-rule severity overrides applied; `off` rules are dropped."""
    out = []
    for finding in findings:
        level = config.severity.get(finding.rule)
        if level == "off":
            continue
        out.append(replace(finding, severity=level) if level else finding)
    return out
