"""A file named for a check is not a format ctxlint reads (a Dockerfile, a note): it was not checked.

Why:
    ctxlint reads YAML and JSON deploy files and shell launch scripts. A
    file named on the command line is read as YAML whatever its name, so a
    Dockerfile (`ctxlint check Dockerfile`) was reported as invalid YAML, an
    error that failed the run, though nothing in it is wrong. A Dockerfile's
    CMD or ENTRYPOINT may start the engine, but the command line a
    deployment runs is in the file that runs the image (a compose `command`,
    a Kubernetes container's `args`, a `docker run` in a launch script, which
    may replace it), and that file is the one to check. So a Dockerfile (by
    its name, or by its text: FROM as its first instruction) gets this note,
    naming the CMD/ENTRYPOINT lines not checked, and so does any other file
    whose name is not YAML's or JSON's and that holds no YAML mapping or list
    (Markdown, a text note), instead of a parse error or a silent pass. A
    `.yaml`, `.yml` or `.json` file that does not parse is still CTX001: a
    deploy file gone wrong must not pass a gate. An Ollama Modelfile (its
    name, or Ollama's own commands: FROM with PARAMETER, SYSTEM, TEMPLATE,
    ...) is said to be one, not a Dockerfile: Ollama is no engine ctxlint
    models, so its `num_ctx` is not checked (the note points at it). A Git
    LFS pointer (`version https://git-lfs.github.com/spec/v1`, an `oid` and
    a `size`), whatever its name, is said to be one: the file's content is
    stored in LFS and not in the checkout, so there is nothing to check yet.

Example (bad):
    ```yaml
    # [unsupported-file] a Dockerfile given to `ctxlint check`
    FROM vllm/vllm-openai:v0.10.1
    CMD ["--model", "Qwen/Qwen3-8B", "--max-model-len", "32768"]
    ```

Example (good):
    ```yaml
    # the compose file that runs the image, with the command it runs
    services:
      vllm:
        image: vllm/vllm-openai:v0.10.1
        command: ["--model", "Qwen/Qwen3-8B", "--max-model-len", "32768"]
    ```

Options:
    None.
"""
from __future__ import annotations

from typing import Iterator, Sequence

from ctxlint.findings import Diagnostic, Problem
from ctxlint.rules._common import from_diagnostics

ID = "CTX011"
NAME = "unsupported-file"
SEVERITY = "info"
SCOPE = "input"
TAGS = ()
INPUTS = ("file",)
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}


def check(diagnostics: Sequence[Diagnostic], options) -> Iterator[Problem]:
    return from_diagnostics(diagnostics, NAME)
