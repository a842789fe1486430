"""Recognise Helm chart templates, which ctxlint cannot check before rendering, and other Go templates.

A chart's `templates/*.yaml` are Go templates (`{{ .Values.x }}`,
`{{- if ... }}`, `{{ include "name" . }}`, `{{ toYaml ... | nindent 8 }}`):
their values are only known after `helm template`, and most are not even
valid YAML. What makes a text Helm's is what only Helm gives a template:
its objects (`.Values`, `.Release`, `.Chart`, ...), its and sprig's
functions (`include`, `tpl`, `toYaml`, `required`, `nindent`, ...), named
templates (`define`, `template`), comments and `$x :=` variables. Across
the 2,874 chart templates with actions in the mirrored repositories, every
one has such a marker (only `_*.tpl` helper files of `define`s and
comments have nothing else, and those count too).

Go's own actions alone (`{{ if }}`, `{{ end }}`, `{{ .Spec.Model.Name }}`,
`{{ or .X 1 }}`) are not Helm: KServe renders them itself in its
ServingRuntimes and LLMInferenceServiceConfigs (with text/template and its
own few functions, no sprig), and such a file is read as YAML, the KServe
adapter taking the actions as values KServe fills in. When such a Go
template is not valid YAML as written, `blank_go_actions` lets the loader
tell a file that is YAML once its actions are rendered (an info, CTX010)
from a real syntax error (CTX001).

Other brace syntaxes are neither and are left alone: envsubst placeholders
(`{{HF_TOKEN}}`) and Jinja chat templates (`{{- bos_token }}`,
`{{ message['content'] }}`) inside ConfigMaps.

A values file (`values.yaml`, `values-prod.yaml`, `x.values.yaml`) is never
rendered by Helm itself: its `{{ ... }}` strings are for charts that pass
them through `tpl`, so it is read as plain YAML. Actions in YAML comments
(`# num-shard: {{ .Values.gpus }}`) do not count.

A template action is not a chart template by itself. A Compose file or Kubernetes manifest outside a
chart's `templates/` folder that is valid YAML with every action inside a string value (`command: ["--model-id",
"{{ .Values.model.name }}"]`) is read by its adapter (`values_only_actions`), each such action an unknown
value; only a file under `templates/`, or one whose actions make its structure (between keys, a mapping
key, a value that is not a string), stays a chart template.

Any other template is YAML only once rendered too, and where a placeholder breaks the syntax
(`{{{PREFIX}}}/instance-family: g6e`, `{{#if X}}` on a line of its own), the CTX001 names it
(`placeholder_near`) so the reader renders the file first instead of hunting for a YAML mistake.
"""
from __future__ import annotations

import bisect
import os
import re
from typing import Iterator, List, Optional, Tuple

from ctxlint.lazyre import lazy_compile
from ctxlint.lines import line_bounds, line_col, split_lines
from ctxlint.nodes import MAP, SCALAR, Node

# the body is stripped by the callers: a `\s*` on both sides of a lazy body retries every blank of a long
# run once per character it extends over (quadratic on `{{ .` and 30,000 spaces)
_ACTION = lazy_compile(r"\{\{-?(.*?)-?\}\}", re.S)
_STRINGS = lazy_compile(r"\"(?:[^\"\\]|\\.)*\"|`[^`]*`")
# Helm's own functions (not sprig's, which Taskfile and other Go templates have too: `{{default "x" .E}}`),
# where a Go call starts: the action's head or a `(` group, and followed by a space, never by `(` (GitHub
# Actions' `fromJson(...)`, Jinja's `tojson(indent=4)`; after `|` a Jinja filter of the same name looks alike).
_HELM_FUNCTIONS = lazy_compile(
    r"(?:^|(?<![\w)\]])\()\s*(?:include|tpl|toYaml|toToml|fromYaml|fromYamlArray|required|lookup|define|template|"
    r"block)\b(?!\()")
_HELM_OBJECTS = lazy_compile(r"(?<![\w.])\$?\.(?:Values|Release|Chart|Capabilities|Files|Template|Subcharts)\b")
# A variable printed (`{{ $name }}`, `{{ $root.x }}`) or set. Not a bare `$` (the root data, which a chart never
# prints whole) nor `$.field` of a field Helm's root has none of (_HELM_OBJECTS names Helm's): those are Kubeflow
# Pipelines' placeholders in a compiled pipeline's command lines, `{{$}}` its executor input and
# `{{$.pipeline_job_name}}` (kubeflow/pipelines@0656c3d5bf2ad950ec9fad8eaeea14547489bfbf:sdk/python/kfp/dsl/
# placeholders.py and kfp/dsl/__init__.py PIPELINE_TASK_EXECUTOR_INPUT_PLACEHOLDER, PIPELINE_JOB_NAME_PLACEHOLDER).
_HELM_VARIABLE = lazy_compile(r"^\$\w[\w.]*\s*(?:\}|$)|\$\w*\s*:?=")
# Go's control keywords and a field or variable reference: a text/template action, whoever renders it.
_GO_ACTION = lazy_compile(r"^(?:(?:if|else|end|range|with|break|continue)\b|[.$(])")
_COMMENT = lazy_compile(r"(^|\s)#")
# A template placeholder: mustache/handlebars `{{X}}`, `{{{X}}}`, `{{#if X}}`, Jinja `{% if %}`, GitHub
# Actions' `${{ x }}` (unclosed on its line: up to the line's end), Terraform's template directives `%{ if x ~}`
# (templatefile; a line of its own in awslabs/data-on-eks@a546a1905d017a93a11fb44d17d08d286f7bfb44:
# infra/terraform/helm-values/aws-for-fluentbit.yaml, where libyaml reads `%` as a YAML directive). libyaml reads
# `{` as a flow mapping, so an unquoted one breaks the syntax where it stands or on the line after (a block tag on
# its own line).
_PLACEHOLDER = lazy_compile(r"\$?\{\{\{?.*?\}\}\}?|\$?\{\{.*|\{%.*?%\}|\{%.*|%\{.*?\}|%\{.*")
# A quoted placeholder is a YAML string that breaks nothing: not one to blame. A quote opens a scalar only
# where one starts (`don't` is no quote); an unclosed one runs to the line's end (a string over several
# lines), so every match succeeds where it starts and a long line costs its length, not its square.
_QUOTED = lazy_compile(r"(?:^|(?<=[\s\[{,]))(?:\"(?:[^\"\\]|\\.)*\"?|'(?:[^']|'')*'?)")
PLACEHOLDER_HINT = "render the template first (envsubst, `helm template ... | ctxlint check -`) and check the output."


def _is_helm(body: str) -> bool:
    """An action only Helm renders: a chart object, a Helm/sprig function, a named template, a variable
    or a comment (not Go's control actions alone, nor another brace syntax)."""
    if body.startswith("/*"):  # a comment, whatever it says
        return True
    bare = _STRINGS.sub('""', body)  # `"-default"` names no function
    if "[" in bare or "'" in bare:  # Jinja's `message['content']`: Go has neither subscripts nor such strings
        return False
    return bool(_HELM_OBJECTS.search(bare) or _HELM_FUNCTIONS.search(bare) or _HELM_VARIABLE.search(bare))


def is_values_file(name: str) -> bool:
    return re.search(r"(^|[._-])values([._-][\w.-]*)?\.ya?ml$", os.path.basename(name or "").lower()) is not None


def _actions(text: str) -> Iterator[re.Match]:
    """Every `{{ ... }}` action outside a YAML comment (GitHub Actions' `${{ ... }}` is none)."""
    end, comment = -1, -1  # the current line's end and where its comment starts (-1: none), found once a line:
    for match in _ACTION.finditer(text):  # a long line of many actions costs its length once, not per action
        start = match.start()
        if start and text[start - 1] == "$":
            continue
        if start >= end:  # a later line (matches come in order)
            begin, end = line_bounds(text, start)
            found = _COMMENT.search(text[begin:end])
            comment = begin + found.end() - 1 if found else -1
        if comment < 0 or start < comment:
            yield match


def looks_like_go_template(text: str, name: str = "") -> Optional[Tuple[int, int]]:
    """1-based (line, column) of the first Helm template action, or None when the text is not a Helm template."""
    if "{{" not in text or is_values_file(name):
        return None
    for match in _actions(text):
        if _is_helm(match.group(1).strip()):
            return line_col(text, match.start())
    return None


def in_chart_templates(name: str) -> bool:
    """A file in a `templates/` folder: where a chart keeps the files Helm renders ("templates/ # A directory
    of templates that, when combined with values, will generate valid Kubernetes manifest files",
    https://helm.sh/docs/topics/charts/ "The Chart File Structure")."""
    return "templates" in re.split(r"[\\/]", name or "")[:-1]


def values_only_actions(text: str, roots: List[Node]) -> bool:
    """Whether parsed documents that hold template actions are still a Compose file or Kubernetes objects to
    read: every document a Compose file (`services`) or an object (`apiVersion` and `kind`), and every action
    outside comments inside a string value, never a key or the structure between keys (an action written
    unquoted where a value starts is a YAML flow mapping, not a string: such a file is Helm's)."""
    if not roots or not all(_compose_or_object(root) for root in roots):
        return False
    spans = sorted((n.start_index, n.end_index) for root in roots for n in root.walk()
                   if n.kind == SCALAR and isinstance(n.value, str) and "{{" in n.value)
    starts = [start for start, _ in spans]
    for match in _actions(text):
        at = bisect.bisect_right(starts, match.start()) - 1
        if at < 0 or match.end() > spans[at][1]:
            return False
    return True


def _compose_or_object(root: Node) -> bool:
    if root.kind != MAP:
        return False
    services, version, kind = root.get("services"), root.get("apiVersion"), root.get("kind")
    if services is not None:
        return services.kind == MAP and version is None
    return all(n is not None and n.kind == SCALAR and isinstance(n.value, str) for n in (version, kind))


def blank_go_actions(text: str) -> Optional[Tuple[str, Tuple[int, int]]]:
    """(the text with every Go template action blanked, 1-based (line, column) of the first), or None
    when it has none. Same length and lines, so a parser's positions still hold: a control action
    (`{{- if .X }}`, `{{ end }}`) renders no text and becomes spaces, any other (`{{ .Spec.Model.Name }}`)
    a value and becomes `x`s."""
    if "{{" not in text:
        return None
    out, last, first = [], 0, None
    for match in _actions(text):
        body = match.group(1).strip()
        if not _GO_ACTION.match(body):
            continue
        first = first or line_col(text, match.start())
        filler = " " if re.match(r"(?:if|else|end|range|with|break|continue)\b", body) else "x"
        out.append(text[last:match.start()])
        out.append("".join(c if c in "\r\n" else filler for c in match.group(0)))
        last = match.end()
    if first is None:
        return None
    out.append(text[last:])
    return "".join(out), first


def placeholder_near(text: str, line: int) -> Optional[Tuple[str, int]]:
    """(the first template placeholder, its 1-based line) on `line` (a parser's error) or the line before,
    outside quotes and comments; None when neither has one (the error is the YAML's own)."""
    lines = split_lines(text)
    for number in (line, line - 1):
        if not 0 < number <= len(lines):
            continue
        written = lines[number - 1]
        bare = _QUOTED.sub(lambda quoted: " " * len(quoted.group(0)), written)
        comment = _COMMENT.search(bare)
        found = _PLACEHOLDER.search(bare[:comment.start()] if comment else bare)
        if found is not None:
            return written[found.start():found.end()].rstrip()[:40], number
    return None
