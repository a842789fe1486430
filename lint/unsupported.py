"""Files named for a check that ctxlint has no reader for: said once (CTX011, info), not parse errors.

ctxlint reads YAML, JSON and shell scripts. A file named on the command line is read as YAML
whatever its name (an extensionless manifest is YAML), so a Dockerfile came out as CTX001 "invalid
YAML: did not find expected <document start>", an error that failed the run, and a Markdown note as
a YAML error or, when its prose happened to parse, as an empty pass. Now:

- a Dockerfile, by its name (`Dockerfile`, `Containerfile`, `Dockerfile.<x>`, `<x>.Dockerfile`) or
  by its text when that is no YAML mapping or list, is said to be one: its CMD/ENTRYPOINT starts the
  engine, but the command lives in the file that runs the image (compose, Kubernetes, a script);
- an Ollama Modelfile, by its name (`Modelfile`, `Modelfile.<x>`, `<x>.Modelfile`) or by its text (Ollama's own
  commands only, a FROM and one no Dockerfile has: PARAMETER, SYSTEM, TEMPLATE, ...), is said to be one: Ollama
  is no engine ctxlint models, so its `num_ctx` is not checked (a Modelfile's FROM made it a "Dockerfile");
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


# Ollama's Modelfile: the commands its parser takes (case-insensitive), a FROM among them, each value to the line's
# end unless it opens a `"""` or `"` quote, which runs on to its close; `#` starts a comment only where a command
# could (ollama/ollama@5dbb81b72c4b61b737e4970db711f7718e4efcc6:parser/parser.go isValidCommand, ParseFile,
# unquote). PARAMETER values are a map by name: the last num_ctx wins (Modelfile.CreateRequest).
_MODELFILE_NAME = lazy_compile(r"^(?:modelfile(?:\.[^/]*)?|[^/]+\.modelfile)$", re.IGNORECASE)
_MODELFILE_ONLY = frozenset(("license", "template", "system", "adapter", "renderer", "parser", "parameter",
                             "message", "requires"))
_COMMAND = lazy_compile(r"([A-Za-z]+)[ \t]+(\S.*)$")


def _modelfile_commands(text: str) -> Iterator[Tuple[int, str, str, int]]:
    """(1-based line, command in lower case, its value as typed, the value's 1-based column) of each command; a
    line that is none is ("", "")."""
    lines = split_lines(text)
    i = 0
    while i < len(lines):
        number, line = i + 1, lines[i]
        i += 1
        stripped = line.lstrip(" \t")
        if not stripped.strip() or stripped.startswith("#"):
            continue
        match = _COMMAND.match(stripped.rstrip())
        if match is None:
            yield number, "", "", 0
            continue
        value = match.group(2)
        quote = '"""' if value.startswith('"""') else '"' if value.startswith('"') else ""
        while quote and (len(value) < 2 * len(quote) or not value.rstrip().endswith(quote)) and i < len(lines):
            value, i = f"{value}\n{lines[i]}", i + 1  # a quoted value runs on to its closing quote
        yield number, match.group(1).lower(), value, len(line) - len(stripped) + match.start(2) + 1


def is_modelfile_name(display: str) -> bool:
    name = os.path.basename(display)
    return "modelfile" in name.lower() and _MODELFILE_NAME.match(name) is not None


def _is_modelfile_text(text: str) -> bool:
    names = {name for _, name, _, _ in _modelfile_commands(text)}
    return "from" in names and bool(names & _MODELFILE_ONLY) and names <= _MODELFILE_ONLY | {"from"}


def modelfile(display: str, text: str) -> Diagnostic:
    """CTX011 for an Ollama Modelfile, at its num_ctx when it sets one."""
    num_ctx = None
    for line, name, value, col in _modelfile_commands(text):
        key, _, rest = value.partition(" ")
        if name == "parameter" and key == "num_ctx" and rest.strip():
            num_ctx = (rest.strip(), line, col + len(value) - len(rest.lstrip(" \t")))
    said = f"its num_ctx {num_ctx[0]} (line {num_ctx[1]}) is not checked" if num_ctx else "nothing in it is checked"
    return Diagnostic(UNSUPPORTED_FILE, (
        f"an Ollama Modelfile, which ctxlint does not read: Ollama is not an engine ctxlint models, so {said}"),
        Source(display, num_ctx[1], num_ctx[2]) if num_ctx else Source(display, 1, 1))


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
    if is_modelfile_name(display) or _is_modelfile_text(text):  # its FROM would make it a Dockerfile
        return modelfile(display, text)
    if _is_dockerfile_text(text):
        return dockerfile(display, text)
    if text.startswith(_LFS_VERSIONS):
        return _lfs_pointer(display, text)
    if display == "-" or display.lower().endswith(_YAML_NAMES):
        return None
    why = f"not YAML ({errors[0].message.replace('invalid YAML: ', '')})" if errors else \
        "no YAML mapping or list in it"
    at = errors[0].source if errors else Source(display, 1, 1)
    return Diagnostic(UNSUPPORTED_FILE, (
        f"not a format ctxlint reads: {why}, and not a shell script (no `#!` line naming a shell); it was not "
        "checked. ctxlint reads YAML and JSON deploy files and shell launch scripts"), at)


# A Git LFS pointer stands in a checkout for a file stored in LFS (one not fetched, or an archive of the repository):
# "The first key is _always_ `version`", `https://git-lfs.github.com/spec/v1`, or `https://hawser.github.com/spec/v1`
# in pointers of the pre-release tool (git-lfs/git-lfs@02b89e38:docs/spec.md "The Pointer"). As a `.json` file it
# was a CTX001 error and as a `.yaml` one a scalar; it is neither: its content is elsewhere. A checkout with CRLF line
# ends (core.autocrlf) gives a pointer CRLF too: its size line ends `\r` before the newline.
_LFS_VERSIONS = ("version https://git-lfs.github.com/spec/", "version https://hawser.github.com/spec/")
_LFS_SIZE = lazy_compile(r"^size ([0-9]+)\r?$", re.MULTILINE)


def _lfs_pointer(display: str, text: str) -> Diagnostic:
    size = _LFS_SIZE.search(text)
    what = f"its {int(size.group(1)):,} bytes are" if size else "its content is"
    return Diagnostic(UNSUPPORTED_FILE, (
        f"a Git LFS pointer, not the file: {what} stored in Git LFS and not in this checkout, so it was not "
        "checked; fetch it (`git lfs pull`) and check again"), Source(display, 1, 1))


def scalars_only(roots: List) -> bool:
    return all(root.kind == SCALAR for root in roots)
