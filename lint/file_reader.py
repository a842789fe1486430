"""Read a file (or stdin): its bytes within the size limit, which format it is, and its text.

Nothing here raises on bad input: unreadable, binary, oversized and mis-encoded files become
`parse-error` diagnostics with a location; YAML and JSON text goes on to loader.parse_text.

A shell script (`*.sh`, `*.bash`, or a file of another name whose first line is a shell
shebang) is never parsed as YAML: it is kept as text, `shell=True`, for the shell-script
adapter. Most scripts in a repository start no engine, so nothing about one is ever a
finding here: a file with a NUL byte in its first line (binary: bash refuses it, _script) or over
the size limit holds no launcher, and bytes that are not UTF-8 (a Latin-1 comment) are read as
U+FFFD, one character each, keeping every position. A systemd unit and a serving.properties
are kept as text the same way.
"""
from __future__ import annotations

import codecs
import os
import stat
from typing import Callable, Optional

from ctxlint.file_bytes import BOMS, read_regular, sniff_bomless
from ctxlint.findings import Diagnostic
from ctxlint.model import Source
from ctxlint.lines import line_col
from ctxlint.loader import HELM_TEMPLATE, LoadedFile, parse_text
from ctxlint.unsupported import dockerfile, is_dockerfile_name, is_modelfile_name, modelfile, not_read, scalars_only
from ctxlint.yaml_problems import PARSE_ERROR

DEFAULT_MAX_BYTES = 20 * 1024 * 1024


def read_path(path: str, display: Optional[str] = None, max_bytes: int = DEFAULT_MAX_BYTES,
              seen: Optional[Callable[[str, bytes], None]] = None) -> LoadedFile:
    """Read and parse one file from disk; `seen(path, bytes)` is shown what a regular file within the limit holds
    (the run's index of files, adapters/run_classes.py)."""
    display = display or path
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            what = "a directory" if stat.S_ISDIR(info.st_mode) else "not a regular file"
            return _failed(display, f"cannot read {display}: {what}")
        size = info.st_size
        if size > max_bytes:
            if display.lower().endswith(SHELL_SUFFIXES):  # an installer with its payload, not a launcher
                return LoadedFile(display, shell=True)
            return _failed(display, f"file is {size:,} bytes, over the {max_bytes:,}-byte limit "
                                    "(raise it with --max-file-size)")
        data = read_regular(path, size, max_bytes)
    except OSError as exc:
        return _failed(display, f"cannot read {display}: {exc.strerror or exc}")
    if seen is not None:
        seen(path, data)
    return parse_bytes(data, display, max_bytes)


def parse_bytes(data: bytes, display: str, max_bytes: int = DEFAULT_MAX_BYTES) -> LoadedFile:
    """Decode and parse bytes read from a file or stdin."""
    if len(data) > max_bytes:
        return _failed(display, f"input is over the {max_bytes:,}-byte limit (raise it with --max-file-size)")
    if is_shell_script(display, data):
        return _script(data, display)
    if display.lower().endswith(UNIT_SUFFIXES):
        return _unit(data, display)
    if os.path.basename(display) in PROPERTIES_NAMES:
        return _properties(data, display)
    text = _decode(data, display)
    if isinstance(text, LoadedFile) and b"\x00" not in data and is_dockerfile_name(display):
        # a Dockerfile is text, as a script is: bytes that are not UTF-8 read as U+FFFD (read_dockerfile too)
        text = data.removeprefix(codecs.BOM_UTF8).decode("utf-8", errors="replace")
    if isinstance(text, LoadedFile):
        return text
    if is_dockerfile_name(display):  # never YAML: said once, not as a parse error
        return LoadedFile(display, text, diagnostics=[dockerfile(display, text)])
    if is_modelfile_name(display):  # Ollama's: never YAML either
        return LoadedFile(display, text, diagnostics=[modelfile(display, text)])
    loaded = parse_text(text, display)
    # a file that is no YAML mapping or list: a Dockerfile, or a format ctxlint does not read (by its name)
    errors = [d for d in loaded.diagnostics if d.kind == PARSE_ERROR]
    if (errors or scalars_only([d.root for d in loaded.documents])) and \
            not any(d.kind == HELM_TEMPLATE for d in loaded.diagnostics):
        other = not_read(display, text, errors)
        if other is not None:
            return LoadedFile(display, text, diagnostics=[other])
    return loaded


# Slurm batch scripts too (`serve_vllm.slurm`, `job.sbatch`): sbatch refuses a script without a `#!` line,
# so these names are always shell scripts (SchedMD/slurm@c44aba82:src/sbatch/sbatch.c
# _get_script_buffer: "This does not look like a batch script" without has_shebang). `*.zsh` launchers are read
# as the POSIX subset they use (assignments, `export`, `${VAR:-default}`, `exec`, `&`), which zsh runs alike.
SHELL_SUFFIXES = (".sh", ".bash", ".zsh", ".slurm", ".sbatch")
# systemd service units (`vllm.service`): systemd reads a unit by its name's suffix (man/systemd.service.xml)
UNIT_SUFFIXES = (".service",)
YAML_SUFFIXES = (".yaml", ".yml", ".json")
# DJL Serving (AWS LMI) reads a model's settings from the file of this name in its model directory
# (deepjavalibrary/djl-serving@d21927c4a692335fba62a87cc430a5fc00c5f790:wlm/.../wlm/ModelInfo.java)
PROPERTIES_NAMES = ("serving.properties",)


def is_shell_script(display: str, data: bytes) -> bool:
    """A `*.sh`/`*.bash` name, or (any other name but YAML's and JSON's: a file named on the command
    line, or stdin) a first line `#!/bin/bash`, `#!/usr/bin/env sh`, ... naming a shell."""
    name = display.lower()
    if name.endswith(SHELL_SUFFIXES):
        return True
    if not data.startswith(b"#!") or name.endswith(YAML_SUFFIXES):
        return False
    from ctxlint.engines.tokens import SHELLS  # only a file with a shebang pays for the import

    words = data[2:data.find(b"\n") if b"\n" in data else len(data)].decode("latin-1").split()
    if words and words[0].rsplit("/", 1)[-1] == "env":  # `#!/usr/bin/env -S bash -e`
        words = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
    return bool(words) and words[0].rsplit("/", 1)[-1] in SHELLS


def _script(data: bytes, display: str) -> LoadedFile:
    """A script as text. bash refuses a file with a NUL byte in the first line of its first 80 bytes, or in its first
    two lines when the first is a `#!` line ("cannot execute binary file", exit 126: bash 5.2.15, checked here,
    `#!/bin/bash`, then `L=40<NUL>96` is refused; its shell.c samples 80 bytes for general.c's check_binary_file,
    which counts two lines after `#!`): such a file is a binary (the kernel may still run an ELF named `.sh`), no
    launcher ctxlint reads, skipped without a finding. bash runs any other, reading past each NUL byte as if it were
    not there (`echo two<NUL>three` prints `twothree`; dash 0.5.12 too): a self-extracting installer's script before
    its payload, or a stray NUL. So a NUL after those lines is dropped, as bash drops it (a column after one on its
    line is then one to the left of the byte's), and the script is read."""
    sample = data[:80]
    lines = sample.split(b"\n", 2 if sample.startswith(b"#!") else 1)
    if b"\x00" in b"".join(lines[:2 if sample.startswith(b"#!") else 1]):
        return LoadedFile(display, shell=True)
    data = data.replace(b"\x00", b"")
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8):]
    return LoadedFile(display, data.decode("utf-8", errors="replace"), shell=True)


def _unit(data: bytes, display: str) -> LoadedFile:
    """A systemd unit as text (never YAML). Bytes that are not UTF-8 read as U+FFFD, one character each; a NUL
    byte makes it no unit systemd reads (CTX001), said once."""
    if b"\x00" in data:
        return LoadedFile(display, shell=True, unit=True, diagnostics=[Diagnostic(
            PARSE_ERROR, "binary file (contains NUL bytes); expected a systemd unit's text", Source(display, 1, 1))])
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8):]
    return LoadedFile(display, data.decode("utf-8", errors="replace"), shell=True, unit=True)


def _properties(data: bytes, display: str) -> LoadedFile:
    """A serving.properties as text (never YAML): bytes that are not UTF-8 read as U+FFFD, one character each, and a
    NUL byte makes it no properties file (CTX001). A UTF-8 byte-order mark is kept: DJL reads it as key text."""
    if b"\x00" in data:
        return LoadedFile(display, shell=True, properties=True, diagnostics=[Diagnostic(
            PARSE_ERROR, "binary file (contains NUL bytes); expected a serving.properties text",
            Source(display, 1, 1))])
    return LoadedFile(display, data.decode("utf-8", errors="replace"), shell=True, properties=True)


def _decode(data: bytes, display: str):
    for bom, encoding in BOMS:
        if data.startswith(bom):
            try:
                return data[len(bom):].decode(encoding)
            except UnicodeDecodeError as exc:
                return _failed(display, f"not valid {encoding} text: {exc.reason} at byte {exc.start:,}")
    encoding = sniff_bomless(data)
    if encoding:
        try:
            return data.decode(encoding)
        except UnicodeDecodeError as exc:
            return _failed(display, f"not valid {encoding} text (no byte-order mark): {exc.reason} "
                                    f"at byte {exc.start:,}")
    if b"\x00" in data[:8192]:  # said as the text the name promises, as a unit's and a serving.properties' are
        expected = "a Dockerfile's text" if is_dockerfile_name(display) else "an Ollama Modelfile's text" \
            if is_modelfile_name(display) else "YAML or JSON text"
        return _failed(display, f"binary file (contains NUL bytes); expected {expected}")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = data[:exc.start].decode("utf-8")  # valid: the first bad byte is where it stops
        line, col = line_col(before, len(before))
        return _failed(display, f"not valid UTF-8: byte 0x{data[exc.start]:02x} at line {line}, "
                                f"column {col}; save the file as UTF-8", line, col)


def _failed(display: str, message: str, line: int = 1, col: int = 1) -> LoadedFile:
    return LoadedFile(display, diagnostics=[Diagnostic(PARSE_ERROR, message, Source(display, line, col))])
