"""A setting the checks need comes from a value ctxlint cannot see.

Why:
    Deploy files often take the context length, the model or the parallel
    sizes from a variable: `--max-model-len=$(MAX_LEN)` with MAX_LEN read from
    a secret or config map, `${VAR}` from the host in compose, an env var the
    file does not set. ctxlint never guesses such a value, so the capacity
    checks that need it are skipped for that deployment. This note says which
    values were not known (once per deployment, at the first of them), so a
    clean run is not mistaken for a checked one. It also says when a declared
    KV pool (`--max-total-tokens`, `--num-gpu-blocks-override`) is held against
    the engine's default context, the limit of a model ctxlint cannot resolve:
    that pool is compared with nothing until the model resolves or the context
    length is stated. A server of an engine ctxlint recognises but does not
    model (Ollama: the `ollama/ollama` image, `ollama serve`) gets this note
    at its image or command, naming its OLLAMA_CONTEXT_LENGTH and
    OLLAMA_NUM_PARALLEL when stated: it is not checked, and counts as no
    deployment.

Example (bad):
    ```yaml
    args: ["--max-model-len=$(MAX_LEN)"]
    env:
      - name: MAX_LEN
        valueFrom: {configMapKeyRef: {name: llm, key: max-len}}
    ```

Example (good):
    ```yaml
    args: ["--max-model-len=$(MAX_LEN)"]
    env:
      - name: MAX_LEN
        value: "32768"
    ```

Options:
    None.
"""
from __future__ import annotations

from typing import Iterator, Sequence

from ctxlint.findings import Diagnostic, Problem
from ctxlint.rules._common import from_diagnostics

ID = "CTX008"
NAME = "unresolved-value"
SEVERITY = "info"
SCOPE = "input"
TAGS = ()
INPUTS = ("variables",)
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}


def check(diagnostics: Sequence[Diagnostic], options) -> Iterator[Problem]:
    return from_diagnostics(diagnostics, NAME)
