"""A role with no declared KV pool whose pool cannot be derived either.

Why:
    Capacity checks need a pool for every role: declared (`kv_pool_tokens`),
    or derived from the model's architecture, the accelerators and the engine
    settings. When the model is not in the built-in catalog and no facts are
    given, or the accelerator or engine is unknown, ctxlint says so once and
    skips those roles' capacity checks rather than guessing. Add
    `spec.model.config` (a config.json), `spec.model.architecture`,
    `spec.custom_accelerators`, or declare the pool the engine logs at boot.

Example (bad):
    ```yaml
    model: {id: example/unreleased-model}
    serving:
      roles: [{role: unified, accelerators: {type: H100, count: 8}}]
    ```

Example (good):
    ```yaml
    model: {id: example/unreleased-model}
    serving:
      roles: [{role: unified, kv_pool_tokens: 900000, accelerators: {type: H100, count: 8}}]
    ```

Options:
    None.
"""
from __future__ import annotations

from typing import Iterator, Sequence

from ctxlint.findings import Diagnostic, Problem
from ctxlint.rules._common import from_diagnostics

ID = "CTX208"
NAME = "capacity-not-derivable"
SEVERITY = "info"
SCOPE = "input"
TAGS = ()
INPUTS = ("engine", "model", "roles[].kv_pool_tokens", "roles[].accelerators")
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}


def check(diagnostics: Sequence[Diagnostic], options) -> Iterator[Problem]:
    return from_diagnostics(diagnostics, NAME)
