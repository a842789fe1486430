"""Routers that run as workloads in front of prefill/decode engines.

The SGLang router (`python -m sglang_router.launch_router`, the `sglang-router` binary,
the older `python -m sglang.srt.disaggregation.mini_lb`) takes its backends on the command
line: `--prefill URL [BOOTSTRAP_PORT]` and `--decode URL` (repeatable) in prefill/decode
mode, `--worker-urls URL...` otherwise. A Deployment (or StatefulSet) whose container runs
one becomes a hop of the stack: a Service that selects the router's pods leads to the
engines behind those URLs. The router has no token limit of its own (only
`--max-payload-size`, 512 MiB by default: a byte cap far above any KV pool).
"""
from __future__ import annotations

import shlex
from typing import List, Optional, Tuple

from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.crd_common import labels_of, objects
from ctxlint.adapters.gw_common import items, scalar
from ctxlint.loader import LoadedFile
from ctxlint.model import Source
from ctxlint.nodes import MAP, Node
from ctxlint.routes import BackendRef, Route

NAME = "routers"
WORKLOADS = ("Deployment", "StatefulSet", "ReplicaSet", "DaemonSet")
MARKERS = ("sglang_router", "sglang-router", "disaggregation.mini_lb")
URL_FLAGS = ("--prefill", "--decode", "--worker-urls")


def adapt(loaded: LoadedFile) -> AdaptResult:
    result = AdaptResult()
    for obj in objects(loaded):
        if scalar(obj.get("kind")) not in WORKLOADS:
            continue
        template = obj.dig("spec", "template")
        name = scalar(obj.dig("metadata", "name"))
        for container in items(template.dig("spec", "containers")) if template is not None else ():
            backends = _backends(container, loaded.path) if container.kind == MAP else ()
            if backends:
                result.routes.append(Route(
                    file=loaded.path, source=container.source(loaded.path), gateway="SGLang router", kind="pool",
                    key=f"router/{name}", backends=backends, labels=labels_of(template)))
    return result


def _words(container: Node, file: str) -> List[Tuple[str, Source]]:
    out: List[Tuple[str, Source]] = []
    for key in ("command", "args"):
        for item in items(container.get(key)):
            text = scalar(item)
            if not isinstance(text, str):
                continue
            try:
                words = shlex.split(text) if " " in text.strip() else [text]
            except ValueError:
                words = text.split()
            out.extend((w, item.source(file)) for w in words)
    return out


def _backends(container: Node, file: str) -> Tuple[BackendRef, ...]:
    words = _words(container, file)
    if not any(m in w for w, _ in words for m in MARKERS):
        return ()
    refs: List[BackendRef] = []
    flag: Optional[str] = None
    for word, where in words:
        if word.startswith("--"):
            name, _, value = word.partition("=")
            flag = name if name in URL_FLAGS else None
            if flag and value:
                refs.append(BackendRef("url", value, where))
            continue
        if flag and "://" in word:
            refs.append(BackendRef("url", word, where))
    return tuple(refs)
