"""A Helm chart template was given: it is checked only once rendered.

Why:
    A chart's `templates/*.yaml` hold Go template actions (`{{ .Values.x }}`,
    `{{- if ... }}`, `{{ include ... }}`): the engine flags, GPU counts and
    context limits they produce are only known after `helm template` fills in
    the values, and most templates are not even valid YAML. Rather than
    report parse errors or guess, ctxlint skips such a file with this note at
    its first template action. Render the chart with the values you deploy and
    lint the output (`helm template <release> <chart> -f values.yaml |
    ctxlint check -`). Values files themselves are read directly (production
    stack, KubeAI, llm-d, Silogen and SGLang chart values); `{{HF_TOKEN}}`
    envsubst placeholders and Jinja chat templates are not Helm and do not
    trigger this. A template is Helm's when an action uses what only Helm
    gives (`.Values`, `.Release`, `include`, `toYaml`, `define`, `$x :=`):
    Go's own actions alone (`{{- if .Spec.X }}`, `{{ .Name }}`) are some
    other operator's template, such as KServe's, and a file of them that is
    valid YAML is read. One that is YAML only once those actions are
    rendered gets this info too, worded for a Go template; one that is not
    YAML even then is a syntax error (CTX001). A file outside a chart's
    `templates/` folder that is valid YAML, a Compose file or Kubernetes
    objects, with its actions only inside string values (`command:
    ["--model-id", "{{ .Values.model }}"]`) is no chart template: it is
    read, and each such action is a value ctxlint cannot see (CTX008).

Example (bad):
    ```yaml
    # charts/vllm/templates/deployment.yaml
    replicas: {{ .Values.replicaCount }}
    ```

Example (good):
    ```sh
    helm template chat charts/vllm -f values-prod.yaml | ctxlint check -
    ```

Options:
    None.
"""
from __future__ import annotations

from typing import Iterator, Sequence

from ctxlint.findings import Diagnostic, Problem
from ctxlint.rules._common import from_diagnostics

ID = "CTX010"
NAME = "helm-template"
SEVERITY = "info"
SCOPE = "input"
TAGS = ()
INPUTS = ("file",)
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}


def check(diagnostics: Sequence[Diagnostic], options) -> Iterator[Problem]:
    return from_diagnostics(diagnostics, NAME)
