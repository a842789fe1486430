"""A file that cannot be read or parsed as YAML or JSON.

Why:
    A gate that cannot read a file must not pass it. Peer tools print nothing and
    exit 0 on unparsable YAML; ctxlint reports the file, line and column where
    parsing stopped, and every deployment in that file goes unchecked until it
    is fixed. Also reported: unreadable, binary, oversized and mis-encoded files,
    and documents too deeply nested or alias-expanded to read safely; and in a
    shell script (or a container's `sh -c` string), a quote, `${`, `$(` or
    backquote that never ends before an engine command: the shell reads on to
    the end for its match and stops with a syntax error, so that engine never
    starts, and ctxlint cannot read it either. When an unquoted template
    placeholder (`{{X}}`, `{{{X}}}`, `{{#if X}}`, `{% if %}`) stands on the line
    where parsing stopped or the line before, the message names it: the file
    is a template, to be rendered before it is checked.

Example (bad):
    ```yaml
    spec:
      advertised:
        context_window: 131072
       max_output_tokens: 8192     # indentation does not match any level
    ```

Example (good):
    ```yaml
    spec:
      advertised:
        context_window: 131072
        max_output_tokens: 8192
    ```

Options:
    None.
"""
from __future__ import annotations

from typing import Iterator, Sequence

from ctxlint.findings import Diagnostic, Problem
from ctxlint.rules._common import from_diagnostics

ID = "CTX001"
NAME = "parse-error"
SEVERITY = "error"
SCOPE = "input"
TAGS = ()
INPUTS = ("file",)
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}


def check(diagnostics: Sequence[Diagnostic], options) -> Iterator[Problem]:
    return from_diagnostics(diagnostics, NAME)
