"""Each file's settings from the config closest to it: ruff's hierarchical discovery.

A run over several projects (`ctxlint audit repoA repoB`, a tree whose teams each keep a
`.ctxlint.yaml`) checks every file under the config closest to its directory, walking up to the
repository root as `find_config` does; the command line's flags go on top of every one of them,
as on the run's own. The closest file wins whole: it is merged over the defaults, never over a
farther config, and a file with none in its chain gets the defaults. `--config` and `--isolated`
make one config for all, so the CLI builds no tree then.

A directory has one closest config, so the files the engine checks together (one directory's,
with their sibling context) never mix two. The run's config (the first path's) is reused as is
for every directory that finds the same file: a tree with one config runs exactly as before.
It is apart from config.py because it is the run's cache over directories, not a config.
"""
from __future__ import annotations

import os
from typing import Any, Dict, Mapping, Optional, Tuple

from ctxlint.config import Config, load_config
from ctxlint.config_discovery import ConfigFinder
from ctxlint.config_merge import merge_cli

from .records import replace


class SettingsTree:
    """`tree(path)` -> the engine Settings for that file ("-": stdin's); raises ConfigError on a bad config."""

    def __init__(self, run: Config, run_settings: Any, finder: ConfigFinder, overrides: Mapping[str, Any],
                 start: str, stdin_dir: str, changes: Mapping[str, Any]) -> None:
        """`run`, `run_settings`: the first path's config with the flags on top, and its Settings with
        `changes` applied (force_exclude, ...), which every other config's Settings get too."""
        self._finder, self._overrides, self._start, self._changes = finder, dict(overrides), start, dict(changes)
        self._stdin_dir = os.path.abspath(stdin_dir)
        self._run = run.path
        self._by_config: Dict[Optional[str], Tuple[Config, Any]] = {run.path: (run, run_settings)}
        self._by_dir: Dict[str, Tuple[Config, Any]] = {}

    def __call__(self, path: str) -> Any:
        return self.config_of(path)[1]

    def fail_on(self, path: str) -> str:
        """The fail-on of the config the file was checked under (the flag's when given: it is merged into every
        one); the run's for a file the run did not check (a finding in a mounted file of another directory)."""
        found = self._by_dir.get(self._stdin_dir if path == "-" else os.path.dirname(os.path.abspath(path)))
        return (found or self._by_config[self._run])[0].fail_on

    def config_of(self, path: str) -> Tuple[Config, Any]:
        directory = self._stdin_dir if path == "-" else os.path.dirname(os.path.abspath(path))
        found = self._by_dir.get(directory)
        if found is None:
            found = self._by_dir[directory] = self._load(self._finder.find(directory))
        return found

    def _load(self, config_path: Optional[str]) -> Tuple[Config, Any]:
        found = self._by_config.get(config_path)
        if found is None:
            # no config in the chain: the defaults, rooted as the run's would be without one
            config = merge_cli(load_config(self._start, config_path, isolated=config_path is None), **self._overrides)
            found = self._by_config[config_path] = (config, replace(config.settings(), **self._changes))
        return found
