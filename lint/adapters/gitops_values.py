"""The chart values a Flux HelmRelease or an Argo CD Application holds, and those it only names.

- Flux (fluxcd/helm-controller@0f61a8607a62be64638f2f912d9487e653960a6e:api/v2/helmrelease_types.go, and
  the same fields in api/v2beta1 and api/v2beta2): `spec.values` is the chart's values as one JSON object,
  merged over `spec.valuesFrom` (ConfigMaps and Secrets); the chart is `spec.chart.spec.chart`, or the
  source `spec.chartRef` names (an OCIRepository or HelmChart, often named after the chart).
- Argo CD (argoproj/argo-cd@37ee0097cf851bc2dd7665fc081bbce61a7e836e:pkg/apis/application/v1alpha1/types.go
  ApplicationSourceHelm, values.go ValuesYAML): each source of `spec.source` or `spec.sources[]` has `chart`
  (from a Helm repository) or `path` (a chart in a Git repository), and `helm.valuesObject` (a mapping) or
  `helm.values` (a YAML document in a string); "ValuesObject takes precedence over Values". `helm.valueFiles`
  and `helm.parameters` are applied from outside the file, or over its values.

A `helm.values` string is parsed and every node of it placed where it is typed in the file, with the
path `<the string's path>:<its own path>` (as scalar_spans.within places embedded documents), so the
values readers point at the `--max-model-len` inside the string.
"""
from __future__ import annotations

import re
from typing import List, Optional, Tuple

from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.crd_common import scalar, seq
from ctxlint.adapters.scalar_spans import ScalarSpans
from ctxlint.adapters.workload import UNRESOLVED
from ctxlint.findings import Diagnostic
from ctxlint.lines import line_starts
from ctxlint.model import Source
from ctxlint.nodes import MAP, SCALAR, Node, Position

from ..records import record

SCHEMA_VIOLATION, PARSE_ERROR = "schema-violation", "parse-error"


@record
class Values:
    """One set of chart values: `root` (a mapping, None when the file holds none), the chart's name or
    path ("" unknown), and the nodes that name values kept elsewhere (valuesFrom, valueFiles)."""
    root: Optional[Node]
    chart: str
    elsewhere: Tuple[Node, ...]
    where: Node  # what a note about them points at


def flux_values(obj: Node, spans: ScalarSpans, result: AdaptResult) -> List[Values]:
    spec = obj.get("spec")
    if spec is None or spec.kind != MAP:
        return []
    chart = scalar(spec.dig("chart", "spec", "chart")) or scalar(spec.dig("chartRef", "name")) or ""
    written = spec.get("values")
    placeholder = _placeholder(written)
    root = None if placeholder else _mapping(written, "spec.values", spans, result)
    elsewhere = tuple(seq(spec.get("valuesFrom"))) + placeholder
    return [Values(root, str(chart), elsewhere, spec.get("valuesFrom") or written or spec)]


def argo_values(obj: Node, spans: ScalarSpans, result: AdaptResult) -> List[Values]:
    spec = obj.get("spec")
    if spec is None or spec.kind != MAP:
        return []
    sources = [spec.get("source")] if spec.get("source") is not None else []
    out = []
    for source in sources + seq(spec.get("sources")):
        helm = source.get("helm") if source.kind == MAP else None
        if helm is None or helm.kind != MAP:
            continue
        chart = "/".join(str(scalar(source.get(k))) for k in ("repoURL", "chart", "path") if scalar(source.get(k)))
        inline, text = helm.get("valuesObject"), helm.get("values")
        given = inline if _present(inline) else text  # valuesObject, when set, is what Argo CD passes
        placeholder = _placeholder(given)
        if placeholder or not _present(given):
            root = None
        elif given is text and text.kind == SCALAR:
            root = _string_values(text, spans, result)
        else:
            root = _mapping(given, given.path, spans, result)
        elsewhere = tuple(seq(helm.get("valueFiles")) + seq(helm.get("parameters")) + seq(helm.get("fileParameters"))) \
            + placeholder
        out.append(Values(root, chart, elsewhere, helm.get("valueFiles") or helm.get("parameters") or
                          (placeholder[0] if placeholder else helm)))
    return out


# The whole values written as one template placeholder, filled in before the file reaches the cluster: Terraform's
# templatefile and envsubst `${name}` (`values: |` then `${user_values_yaml}` in awslabs/data-on-eks@
# a546a1905d017a93a11fb44d17d08d286f7bfb44:infra/terraform/argocd-applications/airflow.yaml and 29 more files), a bare
# `$NAME`, a Go/mustache `{{ ... }}` (an ApplicationSet's template) or GitHub Actions' `${{ ... }}`. What it stands
# for is values kept elsewhere, as a values file is: not a string the controller refuses (CTX002).
_PLACEHOLDER = re.compile(r"\$\{[^{}\n]+\}|\$[A-Za-z_][A-Za-z0-9_]*|\$?\{\{[^\n]*\}\}")


def _placeholder(node: Optional[Node]) -> Tuple[Node, ...]:
    """(node,) when the values are written as one template placeholder, else ()."""
    if node is not None and node.kind == SCALAR and isinstance(node.value, str) \
            and _PLACEHOLDER.fullmatch(node.value.strip()):
        return (node,)
    return ()


def _present(node: Optional[Node]) -> bool:
    return node is not None and not (node.kind == SCALAR and node.value in (None, ""))


def _mapping(node: Optional[Node], path: str, spans: ScalarSpans, result: AdaptResult) -> Optional[Node]:
    """The values when they are a mapping; anything else the controller refuses (a located CTX002)."""
    if not _present(node):
        return None
    if node.kind == MAP:
        return node
    what = "a list" if node.kind != SCALAR else f"the {type(node.value).__name__} {node.value!r}"[:80]
    result.diagnostics.append(Diagnostic(SCHEMA_VIOLATION, f"{path} must be a mapping of chart values, not "
                                         f"{what}: the release cannot be rendered, and nothing in it was checked",
                                         node.source(spans.file)))
    return None


def _string_values(node: Node, spans: ScalarSpans, result: AdaptResult) -> Optional[Node]:
    """Argo CD's `helm.values`: the YAML document in the string, each node at its place in the file."""
    from ctxlint.loader import parse_text  # the loader imports the adapters' package: not at import time

    text = node.value if isinstance(node.value, str) else None
    if text is None or not text.strip():
        return None
    inner = parse_text(text, spans.file)
    place = _Placer(node, text, spans)
    for d in inner.diagnostics:  # a duplicate key or a YAML error inside the string: where it is in the file
        message = f"{node.path}: {d.message}" if d.kind != PARSE_ERROR else \
            f"{node.path} is not YAML Argo CD can read ({d.message}); the release's values were not checked"
        result.diagnostics.append(Diagnostic(d.kind, message, place.at(d.source.line, d.source.col)))
    # an empty document (a trailing `---`) adds no values; of several, Helm's YAML reader (sigs.k8s.io/yaml) decodes
    # the first, so the others are said to be unread rather than guessed at
    documents = [d for d in inner.documents if not (d.root.kind == SCALAR and d.root.value is None)]
    if any(d.kind == PARSE_ERROR for d in inner.diagnostics) or not documents:
        return None
    if len(documents) > 1:
        second = documents[1].root.source(spans.file)
        result.diagnostics.append(Diagnostic(UNRESOLVED, (
            f"{node.path} holds {len(documents)} YAML documents: Helm reads the first as the values, and ctxlint "
            "checked only that one"), place.at(second.line, second.col)))
    root = documents[0].root
    if root.kind != MAP:
        return _mapping(place.relocate(root), node.path, spans, result)
    return place.relocate(root)


class _Placer:
    """Moves the nodes of a document parsed out of a string scalar to where their characters are in the file."""

    def __init__(self, node: Node, text: str, spans: ScalarSpans) -> None:
        self.node, self.spans, self.starts = node, spans, line_starts(text)
        self.offsets = spans.offsets(node)

    def index(self, inner: int) -> Optional[int]:
        """The file index of the string's character `inner` (None: the characters cannot be aligned)."""
        offsets = self.offsets
        return offsets[inner] if offsets is not None and 0 <= inner < len(offsets) else None

    def position(self, inner: int, end: bool = False) -> Position:
        found = self.index(inner - 1 if end else inner)
        if found is None:
            mark = self.node.end if end else self.node.start
            return Position(mark.index, mark.line, mark.column)
        found += 1 if end else 0
        line, col = self.spans.position(found)
        return Position(found, line - 1, col - 1)

    def at(self, line: int, col: int) -> Source:
        """A 1-based line and column of the string's text, as a Source in the file."""
        inner = self.starts[min(max(line, 1), len(self.starts)) - 1] + max(col, 1) - 1
        where = self.position(inner)
        return Source(self.spans.file, where.line + 1, where.column + 1, self.node.path)

    def relocate(self, root: Node) -> Node:
        prefix, done = self.node.path, set()
        for each in root.walk():
            keys = each.keys if each.kind == MAP else {}  # built now, from the string's marks
            for node in [each, *keys.values()]:
                if id(node) in done:  # an alias's node, met again
                    continue
                done.add(id(node))
                start, end = node.start_index, node.end_index
                node.start = self.position(start)
                node.end = self.position(end, end=True) if end > start else node.start
                node.path = f"{prefix}:{node.path}" if node.path else prefix
        return root


__all__ = ("Values", "argo_values", "flux_values")
