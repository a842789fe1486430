"""Read a file (or stdin) and parse it once into positioned YAML/JSON documents.

Nothing here raises on bad input: unreadable, binary, oversized, mis-encoded and
unparsable files become `parse-error` diagnostics with a location, and duplicate
keys become `duplicate-key` diagnostics at the second key.

A shell script (`*.sh`, `*.bash`, or a file of another name whose first line is a shell
shebang) is never parsed as YAML: it is kept as text, `shell=True`, for the shell-script
adapter. Most scripts in a repository start no engine, so nothing about one is ever a
finding here: a file with a NUL byte (binary, or an installer with its payload) or over the
size limit holds no launcher, and bytes that are not UTF-8 (a Latin-1 comment) are read as
U+FFFD, one character each, keeping every position.
"""
from __future__ import annotations

import bisect
import codecs
import os
import stat
from typing import Callable, List, Optional, Tuple

import yaml

from ctxlint.file_bytes import BOMS, read_regular, sniff_bomless
from ctxlint.findings import Diagnostic
from ctxlint.model import Source
from ctxlint.node_builder import Builder, TreeTooDeep, TreeTooLarge
from ctxlint.lines import has_other_breaks, line_col, line_starts, mark_line_col
from ctxlint.nodes import Node, Position
from ctxlint.templates import PLACEHOLDER_HINT, in_chart_templates, is_values_file, looks_like_go_template, \
    values_only_actions
from ctxlint.unsupported import dockerfile, is_dockerfile_name, is_modelfile_name, modelfile, not_read, scalars_only
from ctxlint.yaml_loaders import composer
from ctxlint.yaml_problems import PARSE_ERROR, check_portability, deep_mark, position_source, rendered_go_template, \
    syntax_hint, too_deep, valid_json

from .records import field, record

DEFAULT_MAX_BYTES = 20 * 1024 * 1024
DUPLICATE_KEY = "duplicate-key"
HELM_TEMPLATE = "helm-template"


@record
class Document:
    index: int  # 0-based position among the file's `---` documents
    root: Node


@record
class LoadedFile:
    path: str  # as displayed in findings
    text: str = ""
    documents: List[Document] = field(default_factory=list)
    diagnostics: List[Diagnostic] = field(default_factory=list)
    shell: bool = False  # a shell script: `text` only, no documents (adapters/shell_script.py)
    unit: bool = False  # a systemd unit (adapters/systemd_unit.py): `text` only, like a script, so shell is set too
    properties: bool = False  # DJL Serving's serving.properties (adapters/lmi_properties.py): text, shell set too


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
    if b"\x00" in data:  # binary, or a self-extracting installer's payload: no launcher, nothing to check
        return LoadedFile(display, shell=True)
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



def parse_text(text: str, display: str) -> LoadedFile:
    """Parse YAML (JSON is read as YAML, with JSON's number rules)."""
    template = looks_like_go_template(text, display)
    if template is not None and in_chart_templates(display):  # a chart's: not YAML until rendered
        return _chart_template(display, text, template)
    loaded = _parse_yaml(text, display)
    # A Compose file or manifest with an action only inside a string value is read (the action is an unknown
    # value there); one whose actions make its structure is a chart template: said once, not parse errors
    if template is not None and (any(d.kind == PARSE_ERROR for d in loaded.diagnostics) or not values_only_actions(
            text, [d.root for d in loaded.documents])):
        return _chart_template(display, text, template)
    return loaded


def _chart_template(display: str, text: str, template: Tuple[int, int]) -> LoadedFile:
    return LoadedFile(display, text, diagnostics=[Diagnostic(
        HELM_TEMPLATE, "a Helm chart template: its values are only known after rendering, so it was not "
        "checked; lint the rendered chart instead: helm template <release> <chart> | ctxlint check -",
        Source(display, *template))])


def _parse_yaml(text: str, display: str) -> LoadedFile:
    loaded = LoadedFile(display, text)
    is_json = display.lower().endswith(".json")

    # libyaml ends lines at NEL, LINE SEPARATOR and PARAGRAPH SEPARATOR too: in a text that holds one,
    # every position is counted again as lines.py counts (each document's nodes once it is built)
    starts = line_starts(text) if has_other_breaks(text) else None

    def duplicate(first: Node, second: Node, path: str) -> None:  # called while a document is built
        first_line, place = first.line, second.source(display)
        if starts is not None:
            first_line = _position(starts, first.start_index).line + 1
            begin, end = _position(starts, second.start_index), _position(starts, second.end_index)
            place = Source(display, begin.line + 1, begin.column + 1, place.path, end.line + 1, end.column + 1)
        loaded.diagnostics.append(Diagnostic(
            DUPLICATE_KEY,
            f"duplicate key '{second.value}' (first at line {first_line}); YAML keeps only the "
            f"last value, so line {first_line} is silently ignored: remove one of them", place))

    if is_json and not valid_json(text, loaded):
        return loaded
    source = text
    if is_json and ("\\ud" in text or "\\uD" in text):  # maybe a surrogate pair YAML refuses (json_escapes.py)
        from ctxlint.json_escapes import yaml_readable
        source = yaml_readable(text)
    builder = Builder(json_numbers=is_json, on_duplicate=duplicate)

    def complex_key(node: yaml.Node, path: str) -> None:
        # `key: {{PLACEHOLDER}}` parses as a mapping whose key is a mapping: YAML allows it,
        # but Kubernetes, Go and Python readers refuse such a key.
        written = text[node.start_mark.index:node.end_mark.index]
        hint = f" It looks like a template placeholder: {PLACEHOLDER_HINT}" if written.startswith("{") else ""
        loaded.diagnostics.append(Diagnostic(
            PARSE_ERROR, f"invalid YAML for deployment tools: a {'mapping' if node.id == 'mapping' else 'list'} "
                         f"used as a mapping key ({written[:40]}); Kubernetes and most YAML readers reject "
                         f"the file.{hint}",
            Source(display, *mark_line_col(text, node.start_mark), path)))

    builder.on_complex_key = complex_key
    index = 0
    aliases = "*" in text and "&" in text  # an alias needs both: `&name` anchors, `*name` refers
    try:
        for composed in yaml.compose_all(source, Loader=composer()):
            if composed is not None:
                root = builder.build_document(composed, aliases)
                if starts is not None:
                    _renumber(root, starts)
                loaded.documents.append(Document(index, root))
            index += 1
        if "\t" in text and not is_json:
            check_portability(text, display, loaded)
    except TreeTooDeep as exc:
        loaded.diagnostics.append(too_deep(display, text, index, exc.mark))
    except yaml.MarkedYAMLError as exc:
        if "maximum nesting depth" in str(exc.problem):  # libyaml >= 0.2.6 has a limit of its own
            loaded.diagnostics.append(too_deep(display, text, index, deep_mark(text)))
            return loaded
        # a values file is YAML as written (Helm never renders it): its syntax error stays one
        rendered = None if is_values_file(display) else rendered_go_template(text)
        if rendered is not None:
            loaded.diagnostics.append(Diagnostic(
                HELM_TEMPLATE, "a Go template (actions such as `{{ if }}` and `{{ .Field }}`, none of them Helm's): "
                "it is YAML only once the operator that owns it renders it, so it was not checked; ctxlint reads "
                "such a file when its actions sit inside YAML values (KServe's are then values KServe fills in)",
                Source(display, *rendered)))
            return loaded
        line, col = mark_line_col(text, exc.problem_mark or exc.context_mark)
        what = " ".join(x for x in (exc.context, exc.problem) if x) or "invalid syntax"
        hint = syntax_hint(text, line)
        loaded.diagnostics.append(Diagnostic(
            PARSE_ERROR, f"invalid {'JSON' if is_json else 'YAML'}: {what}{hint}",
            Source(display, line, col, f"document[{index}]")))
    except yaml.YAMLError as exc:  # e.g. a reader error on a control character
        mark = getattr(exc, "position", None)
        loaded.diagnostics.append(Diagnostic(
            PARSE_ERROR, f"invalid YAML: {str(exc).splitlines()[0]}",  # not PyYAML's 'in "<unicode string>"'
            position_source(display, text, mark)))
    except TreeTooLarge:
        loaded.diagnostics.append(Diagnostic(
            PARSE_ERROR, f"document {index} expands to more nodes than ctxlint reads "
                         "(an alias bomb?); it was not checked", Source(display, 1, 1)))
    except RecursionError:  # PyYAML's pure-Python composer recurses; its parser does not
        loaded.diagnostics.append(too_deep(display, text, index, deep_mark(text)))
    return loaded


def _renumber(root: Node, starts: List[int]) -> None:
    """Every node of a document at its position as lines.py counts (`starts`: line_starts of the text):
    libyaml ended lines at the text's NEL, LINE SEPARATOR or PARAGRAPH SEPARATOR too, so each one in a
    quoted value shifted every later finding's line."""
    for node in root.walk():
        for each in [node, *node.keys.values()]:
            each.start, each.end = _position(starts, each.start_index), _position(starts, each.end_index)


def _position(starts: List[int], index: int) -> Position:
    line = bisect.bisect_right(starts, index) - 1
    return Position(index, line, index - starts[line])


def _failed(display: str, message: str, line: int = 1, col: int = 1) -> LoadedFile:
    return LoadedFile(display, diagnostics=[Diagnostic(PARSE_ERROR, message, Source(display, line, col))])
