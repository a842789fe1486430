"""An engine's own configuration held in a Kubernetes ConfigMap, as clusters run llama-swap: `data: {config.yaml: |
...}` mounted where the llama-swap container's `--config` reads it. A data value that is a llama-swap config (every
model's `cmd`) is read as the file itself would be (llama_swap.llama_swap), each position inside the ConfigMap's
block scalar (scalar_spans.EmbeddedSpans). Imported only for a file that holds a ConfigMap.
"""
from __future__ import annotations

from typing import Any, List, Optional

from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.scalar_spans import EmbeddedSpans, ScalarSpans
from ctxlint.adapters.workload import Workload
from ctxlint.findings import Diagnostic
from ctxlint.loader import LoadedFile, parse_text
from ctxlint.nodes import MAP, SCALAR, EmbeddedNode, Node, adopt


def read(config_map: Node, spans: ScalarSpans, result: AdaptResult, loaded: Optional[LoadedFile] = None,
         maps: Any = None) -> List[Workload]:
    """The models of every data value that is a llama-swap config, with the GPUs and device of the pod that reads
    it as its `--config` when one of the checked files holds it (llama_swap_pods.pod_devices)."""
    from ctxlint.adapters.engine_files import _is_llama_swap
    from ctxlint.adapters.llama_swap import llama_swap

    out: List[Workload] = []
    data = config_map.get("data")
    for key, value in data.value.items() if data is not None and data.kind == MAP else ():
        if value.kind != SCALAR or not isinstance(value.value, str) or "cmd" not in value.value:
            continue
        inner = parse_text(value.value, spans.file)
        if inner.diagnostics or len(inner.documents) != 1 or inner.documents[0].root.kind != MAP:
            continue
        placed = EmbeddedSpans(spans, value, value.value)
        root = adopt(inner.documents[0].root, placed, EmbeddedNode)
        if _is_llama_swap(root):
            devices = None
            if loaded is not None:
                from ctxlint.adapters.llama_swap_pods import pod_devices  # only for a ConfigMap-held llama-swap

                devices, why = pod_devices(config_map, str(key), loaded, maps)
                at_key = data.keys[key].source(spans.file)
                result.diagnostics.extend(Diagnostic("unresolved-value", f"the llama-swap config in data.{key}: {text}",
                                                     at_key, severity="info") for text in why)
            out += llama_swap(root, placed, result, *(devices or ()))
    return out
