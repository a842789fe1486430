"""GitOps releases of Helm charts: Flux `HelmRelease` and Argo CD `Application`.

Their inline values (gitops_values: Flux `spec.values`, Argo CD `helm.valuesObject` or the `helm.values`
string, of `spec.source` and each of `spec.sources[]`) go to the readers of a values file
(helm_values.read_values, and nim-llm's in crds_nim), which know the serving charts by the shape of
their values; the chart's name or path is passed where a reader needs it (the Silogen charts'
folders). Every value keeps its place in the file. A deployment is named `<release>/<workload>`.

Values the file only names (Flux `valuesFrom`, Argo CD `valueFiles` and `parameters`) are not read:
when the inline values start no engine and the chart's name says it serves a model, CTX008 says the
release was not checked, rather than nothing. A release of any other chart yields nothing.
"""
from __future__ import annotations

import re
from typing import List, Optional

from ..records import replace
from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.crd_common import is_kind, name_of, objects, scalar
from ctxlint.adapters.gitops_values import Values, argo_values, flux_values
from ctxlint.adapters.helm_values import read_values
from ctxlint.adapters.scalar_spans import ScalarSpans
from ctxlint.adapters.workload import UNRESOLVED, Workload
from ctxlint.adapters.workload_groups import deployments_from
from ctxlint.findings import Diagnostic
from ctxlint.loader import LoadedFile
from ctxlint.model import Val
from ctxlint.nodes import MAP, SCALAR

NAME = "gitops"
FLUX, ARGO = "flux-helmrelease", "argocd-application"
# Chart names that serve a model (the serving charts ctxlint reads, and the engines' own names): a release
# of one whose values all lie elsewhere is reported as unchecked; any other chart is none of ctxlint's business.
_SERVING_CHART = re.compile(r"vllm|sglang|(?<!o)llama|text-generation|\btgi\b|tensorrt|trtllm|lmdeploy|\bnim\b|"
                            r"nim-llm|kubeai|modelservice|llm-d|llm-inference", re.I)


def adapt(loaded: LoadedFile) -> AdaptResult:
    result = AdaptResult()
    spans = ScalarSpans(loaded.path, loaded.text)
    workloads: List[Workload] = []
    for obj in objects(loaded):
        if is_kind(obj, ("HelmRelease",), "helm.toolkit.fluxcd.io"):
            sets, fmt = flux_values(obj, spans, result), FLUX
        elif is_kind(obj, ("Application",), "argoproj.io"):
            sets, fmt = argo_values(obj, spans, result), ARGO
        else:
            continue
        release = name_of(obj, spans.file)
        for values in sets:
            found = _read(values, spans, result)
            if not found:
                _unchecked(values, release, spans, result)
            workloads += [_named(w, release, fmt) for w in found]
    result.extend(deployments_from(loaded.path, workloads))
    return result


def _read(values: Values, spans: ScalarSpans, result: AdaptResult) -> List[Workload]:
    if values.root is None:
        return []
    from ctxlint.adapters.crds_nim import _helm_values as nim_values  # nim-llm's values: NIM's own reader

    return read_values(values.root, spans, result, values.chart) + nim_values(values.root, spans, result)


def _named(w: Workload, release: Optional[Val[str]], fmt: str) -> Workload:
    if release is None:
        return replace(w, input_format=fmt)
    name = Val(f"{release.value}/{w.name.value}", w.name.source) if w.name is not None else release
    return replace(w, name=name, input_format=fmt)


def _unchecked(values: Values, release: Optional[Val[str]], spans: ScalarSpans, result: AdaptResult) -> None:
    if not values.elsewhere or not _SERVING_CHART.search(values.chart):
        return
    names = ", ".join(_describe(n) for n in values.elsewhere[:3]) + (", ..." if len(values.elsewhere) > 3 else "")
    result.diagnostics.append(Diagnostic(UNRESOLVED, (
        f"the chart {values.chart!r} takes values this file does not hold ({names}), and its inline values start "
        "no engine ctxlint reads: its context length, model and GPUs are not known, so this release was not "
        "checked (lint the rendered chart: helm template ... | ctxlint check -)"),
        values.where.source(spans.file), str(release.value) if release is not None else None))


def _describe(node) -> str:
    """A valuesFrom entry (`ConfigMap vllm-values`), a value file's path, a parameter's name or the template
    placeholder the values are written as (a block string's newline dropped)."""
    if node.kind == SCALAR:
        return str(node.value).strip()
    if node.kind == MAP:
        kind, name = scalar(node.get("kind")), scalar(node.get("name"))
        return " ".join(str(p) for p in (kind, name) if p is not None) or "?"
    return "?"
