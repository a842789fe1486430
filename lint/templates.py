"""Recognise Helm chart templates, which ctxlint cannot check before rendering.

A chart's `templates/*.yaml` are Go templates (`{{ .Values.x }}`,
`{{- if ... }}`, `{{ include "name" . }}`, `{{ toYaml ... | nindent 8 }}`):
their values are only known after `helm template`, and most are not even
valid YAML. Other brace syntaxes are not Helm and are left alone: envsubst
placeholders (`{{HF_TOKEN}}`), KServe runtime placeholders (`{{.Name}}`,
`{{.Labels.x}}`) and Jinja chat templates (`{{- bos_token }}`,
`{{ message['content'] }}`) inside ConfigMaps.

A values file (`values.yaml`, `values-prod.yaml`, `x.values.yaml`) is never
rendered by Helm itself: its `{{ ... }}` strings are for charts that pass
them through `tpl`, so it is read as plain YAML. Actions in YAML comments
(`# num-shard: {{ .Values.gpus }}`) do not count.
"""
from __future__ import annotations

import os
import re
from typing import Optional, Tuple

from ctxlint.lazyre import lazy_compile
from ctxlint.lines import line_bounds, line_col

_ACTION = lazy_compile(r"\{\{-?\s*(.*?)\s*-?\}\}", re.S)
_CONTROL = lazy_compile(r"(?:if|else|end|range|with|define|template|block|include|tpl|toYaml|toJson|toString|"
                      r"required|lookup|fail|printf|print)\b")
_HELM_OBJECTS = lazy_compile(r"(?<![\w.])\$?\.(?:Values|Release|Chart|Capabilities|Files|Template)\b")
_COMMENT = lazy_compile(r"(^|\s)#")
_VARIABLE = lazy_compile(r"^\$[\w.]*\s*(?::?=|\}|$)|^/\*")


def _is_helm(body: str) -> bool:
    """A Helm action (a keyword, a variable, a comment or a chart object), not another brace syntax."""
    return bool(_CONTROL.match(body) or _VARIABLE.match(body) or _HELM_OBJECTS.search(body))


def is_values_file(name: str) -> bool:
    return re.search(r"(^|[._-])values([._-][\w.-]*)?\.ya?ml$", os.path.basename(name or "").lower()) is not None


def looks_like_go_template(text: str, name: str = "") -> Optional[Tuple[int, int]]:
    """1-based (line, column) of the first Helm template action, or None when the text is not a template."""
    if "{{" not in text or is_values_file(name):
        return None
    for match in _ACTION.finditer(text):
        if not _is_helm(match.group(1)):
            continue
        start = match.start()
        if _COMMENT.search(text[line_bounds(text, start)[0]:start]):
            continue  # inside a YAML comment
        return line_col(text, start)
    return None
