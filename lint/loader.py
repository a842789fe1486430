"""Parse text once into positioned YAML/JSON documents (file_reader.py reads the file and tells its format).

Nothing here raises on bad input: unparsable text becomes `parse-error` diagnostics with a
location, and duplicate keys become `duplicate-key` diagnostics at the second key.
"""
from __future__ import annotations

import bisect
from typing import List, Tuple

import yaml

from ctxlint.findings import Diagnostic
from ctxlint.model import Source
from ctxlint.node_builder import Builder, TreeTooDeep, TreeTooLarge
from ctxlint.lines import has_other_breaks, line_starts, mark_line_col
from ctxlint.nodes import Node, Position
from ctxlint.templates import PLACEHOLDER_HINT, in_chart_templates, is_values_file, looks_like_go_template, \
    values_only_actions
from ctxlint.yaml_loaders import composer
from ctxlint.yaml_problems import PARSE_ERROR, check_portability, deep_mark, position_source, rendered_go_template, \
    jsonc_tool_file, syntax_hint, too_deep, valid_json

from .records import field, record

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
        # TypeScript's and dev containers' JSON with comments: their tools read it, and it holds no deployment
        return LoadedFile(display, text) if jsonc_tool_file(display) else loaded
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

