"""An engine's own configuration held in a Kubernetes ConfigMap, as clusters run llama-swap: `data: {config.yaml: |
...}` mounted where the llama-swap container's `--config` reads it. A data value that is a llama-swap config (every
model's `cmd`) is read as the file itself would be (llama_swap.llama_swap), each position inside the ConfigMap's
block scalar (scalar_spans.EmbeddedSpans). Imported only for a file that holds a ConfigMap.
"""
from __future__ import annotations

from typing import List

from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.scalar_spans import EmbeddedSpans, ScalarSpans
from ctxlint.adapters.workload import Workload
from ctxlint.loader import parse_text
from ctxlint.nodes import MAP, SCALAR, EmbeddedNode, Node, adopt


def read(config_map: Node, spans: ScalarSpans, result: AdaptResult) -> List[Workload]:
    from ctxlint.adapters.engine_files import _is_llama_swap
    from ctxlint.adapters.llama_swap import llama_swap

    out: List[Workload] = []
    data = config_map.get("data")
    for value in data.value.values() if data is not None and data.kind == MAP else ():
        if value.kind != SCALAR or not isinstance(value.value, str) or "cmd" not in value.value:
            continue
        inner = parse_text(value.value, spans.file)
        if inner.diagnostics or len(inner.documents) != 1 or inner.documents[0].root.kind != MAP:
            continue
        placed = EmbeddedSpans(spans, value, value.value)
        root = adopt(inner.documents[0].root, placed, EmbeddedNode)
        if _is_llama_swap(root):
            out += llama_swap(root, placed, result)
    return out
