"""YAML that ctxlint (libyaml) reads but other YAML readers reject.

Why:
    ctxlint parses with libyaml, as Kubernetes' Go parser and most tools do,
    and YAML 1.2 allows a tab as separation space. PyYAML's pure-Python
    scanner, and the tools built on it, stop at such a tab ("found character
    '\\t' that cannot start any token"). A config that loads in one pipeline
    and fails in the next is a deploy waiting to break, so ctxlint says where
    the two readers disagree. The values were still read and checked.

Example (bad):
    ```yaml
    spec:
      type: LoadBalancer<TAB>
    ```

Example (good):
    ```yaml
    spec:
      type: LoadBalancer
    ```

Options:
    None.
"""
from __future__ import annotations

from typing import Iterator, Sequence

from ctxlint.findings import Diagnostic, Problem
from ctxlint.rules._common import from_diagnostics

ID = "CTX009"
NAME = "nonportable-yaml"
SEVERITY = "warning"
SCOPE = "input"
TAGS = ()
INPUTS = ("file",)
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}


def check(diagnostics: Sequence[Diagnostic], options) -> Iterator[Problem]:
    return from_diagnostics(diagnostics, NAME)
