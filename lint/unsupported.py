"""Files named for a check that ctxlint has no reader for: said once (CTX011, info), not parse errors.

ctxlint reads YAML, JSON and shell scripts. A file named on the command line is read as YAML
whatever its name (an extensionless manifest is YAML), so a Dockerfile came out as CTX001 "invalid
YAML: did not find expected <document start>", an error that failed the run, and a Markdown note as
a YAML error or, when its prose happened to parse, as an empty pass. Now:

- a Dockerfile, by its name (`Dockerfile`, `Containerfile`, `Dockerfile.<x>`, `<x>.Dockerfile`) or
  by its text when that is no YAML mapping or list, is said to be one: its CMD/ENTRYPOINT starts the
  engine, but the command lives in the file that runs the image (compose, Kubernetes, a script);
- any other file whose name is not YAML's or JSON's and that is not YAML (a syntax error, or no
  mapping or list in it) is said to be a format ctxlint does not read.

A `.yaml`/`.yml`/`.json` file (or stdin without `--stdin-filename`) that does not parse stays a parse
error (CTX001): it is a deploy file gone wrong, and a gate must not pass it.
"""
from __future__ import annotations

import os
import re
from typing import Iterator, List, Optional, Tuple

from ctxlint.findings import Diagnostic
from ctxlint.lazyre import lazy_compile
from ctxlint.lines import split_lines
from ctxlint.model import Source
from ctxlint.nodes import SCALAR

UNSUPPORTED_FILE = "unsupported-file"
_YAML_NAMES = (".yaml", ".yml", ".json")
# docker build reads `Dockerfile` by default, podman/buildah `Containerfile` too (podman-build(1): "a file
# named either 'Containerfile' or 'Dockerfile'"); `-f` takes any name, and `Dockerfile.<x>`/`<x>.Dockerfile`
# name themselves one. A Dockerfile of another name is known by its text (`_is_dockerfile_text`).
_DOCKERFILE_NAME = lazy_compile(r"^(?:(?:docker|container)file(?:\.[^/]*)?|[^/]+\.(?:docker|container)file)$",
                                re.IGNORECASE)
# "A Dockerfile must begin with a FROM instruction. This may be after parser directives, comments, and globally
# scoped ARGs"; "The instruction is not case-sensitive"; only the last CMD and the last ENTRYPOINT take effect
# (https://docs.docker.com/reference/dockerfile/ "Format", "CMD", "ENTRYPOINT").
_INSTRUCTION = lazy_compile(r"([A-Za-z]+)(?:[ \t]+\S|(?=\[))")


def _instructions(text: str) -> Iterator[Tuple[int, str]]:
    r"""(1-based line, INSTRUCTION) of each instruction line: comments, blank lines and the lines a `\` continues
    skipped (lines as lines.py counts them, so CR and CRLF files read alike)."""
    continued = False
    for number, line in enumerate(split_lines(text), 1):
        stripped = line.strip(" \t")
        if not stripped or stripped.startswith("#"):
            continue
        if not continued:
            match = _INSTRUCTION.match(stripped)
            yield number, match.group(1).upper() if match else ""
        continued = stripped.endswith("\\")


def _is_dockerfile_text(text: str) -> bool:
    for _, word in _instructions(text):
        if word != "ARG":  # the first instruction past the global ARGs
            return word == "FROM"
    return False


def is_dockerfile_name(display: str) -> bool:
    name = os.path.basename(display)
    lowered = name.lower()
    return "file" in lowered and not lowered.endswith(_YAML_NAMES) and _DOCKERFILE_NAME.match(name) is not None


def dockerfile(display: str, text: str) -> Diagnostic:
    """CTX011 for a Dockerfile: which of its lines start the container, none of them checked."""
    last = {word: line for line, word in _instructions(text) if word in ("CMD", "ENTRYPOINT")}
    runs = " and ".join(f"{what} (line {line})" for what, line in sorted(last.items(), key=lambda kv: kv[1]))
    what = f"its {runs} {'are' if len(last) > 1 else 'is'}" if runs else "the command it starts is"
    return Diagnostic(UNSUPPORTED_FILE, (
        f"a Dockerfile, which ctxlint does not read: {what} not checked; check the file that runs the image "
        "instead (a compose file, a Kubernetes manifest or a launch script)"), Source(display, 1, 1))


def not_read(display: str, text: str, errors: List[Diagnostic]) -> Optional[Diagnostic]:
    """CTX011 for a parsed file that is no YAML ctxlint can read (a syntax error in `errors`, else no mapping
    or list in it), when it is a Dockerfile or its name is not YAML's or JSON's; None when it stays what
    parsing made of it."""
    if _is_dockerfile_text(text):
        return dockerfile(display, text)
    if display == "-" or display.lower().endswith(_YAML_NAMES):
        return None
    why = f"not YAML ({errors[0].message.replace('invalid YAML: ', '')})" if errors else \
        "no YAML mapping or list in it"
    at = errors[0].source if errors else Source(display, 1, 1)
    return Diagnostic(UNSUPPORTED_FILE, (
        f"not a format ctxlint reads: {why}, and not a shell script (no `#!` line naming a shell); it was not "
        "checked. ctxlint reads YAML and JSON deploy files and shell launch scripts"), at)


def scalars_only(roots: List) -> bool:
    return all(root.kind == SCALAR for root in roots)
