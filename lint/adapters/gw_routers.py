"""Routers and gateway processes that run as workloads in front of the engines.

The SGLang router (`python -m sglang_router.launch_router`, the `sglang-router` binary,
the older `python -m sglang.srt.disaggregation.mini_lb`) takes its backends on the command
line: `--prefill URL [BOOTSTRAP_PORT]` and `--decode URL` (repeatable) in prefill/decode
mode, `--worker-urls URL...` otherwise. A Deployment (or StatefulSet) whose container runs
one becomes a hop of the stack: a Service that selects the router's pods leads to the
engines behind those URLs. The router has no token limit of its own (only
`--max-payload-size`, 512 MiB by default: a byte cap far above any KV pool).
`python -m sglang_router.launch_server` is an engine launch (engines/detect.py) whose router
fronts the servers it starts itself: no route here.

A LiteLLM proxy resolves `os.environ/NAME` in its config from its own process environment
when it loads the config. So the environment of a LiteLLM container (Kubernetes `env` with a
literal `value`) or compose service (`environment`, with compose's `${VAR:-default}` read as its
default) is kept, per name, for the join to follow: an `api_base: os.environ/VLLM_API_BASE`
then reaches the engine the URL names, and the evidence says where the value was set.
"""
from __future__ import annotations

import shlex
from typing import List, Optional, Tuple

from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.crd_common import labels_of, objects
from ctxlint.adapters.gw_common import items, scalar
from ctxlint.lazyre import lazy_compile
from ctxlint.loader import LoadedFile
from ctxlint.model import Source
from ctxlint.nodes import MAP, Node
from ctxlint.routes import BackendRef, Route

NAME = "routers"
WORKLOADS = ("Deployment", "StatefulSet", "ReplicaSet", "DaemonSet")
MARKERS = ("sglang_router", "sglang-router", "disaggregation.mini_lb")
URL_FLAGS = ("--prefill", "--decode", "--worker-urls")
# `python -m sglang_router.launch_server` starts dp_size SGLang servers and a router whose worker URLs it sets to
# them, over any `--worker-urls` given (sgl-project/sglang@106f37cea63a70dea91958cb633ccbd87c932d40:
# sgl-model-gateway/bindings/python/src/sglang_router/launch_server.py)
CO_LAUNCHER = "sglang_router.launch_server"
_DEFAULT = lazy_compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*):?-([^}]*)\}")


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
            if container.kind == MAP and _is_litellm(container):
                for var in items(container.get("env")):
                    value = var.get("value") if var.kind == MAP else None
                    _env(result, loaded.path, name, scalar(var.get("name")) if var.kind == MAP else None, value)
    services = loaded.documents[0].root.get("services") if len(loaded.documents) == 1 else None
    for name, service in services.value.items() if services is not None and services.kind == MAP else ():
        if service.kind == MAP and _is_litellm(service):
            env = service.get("environment")
            for var in items(env):  # list form: NAME=value
                text = scalar(var)
                if isinstance(text, str) and "=" in text:
                    _env(result, loaded.path, name, text.split("=", 1)[0], var, text.split("=", 1)[1])
            for key, value in env.value.items() if env is not None and env.kind == MAP else ():
                _env(result, loaded.path, name, key, value)
    return result


def _is_litellm(node: Node) -> bool:
    image = scalar(node.get("image"))
    return isinstance(image, str) and "litellm" in image.lower()


def _env(result: AdaptResult, file: str, owner: object, name: object, node: Optional[Node],
         text: Optional[str] = None) -> None:
    value = text if text is not None else scalar(node)
    if not isinstance(name, str) or node is None or not isinstance(value, str) or "://" not in value:
        return
    value = _DEFAULT.sub(lambda m: m.group(2), value)  # compose interpolation: the default
    result.routes.append(Route(file=file, source=node.source(file), gateway=f"the environment of {owner}",
                               kind="env", key=f"env/{name}", backends=(BackendRef("url", value, node.source(file)),)))


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


_QUOTING = str.maketrans("", "", "'\"\\")


def _marked(container: Node) -> bool:
    """Can a word of the container's command line hold a marker? A word is its item's text split by
    shlex, which only drops quotes and backslashes between the characters it keeps: a marker (none
    holds a quote or a backslash) in a word is in the text once those are dropped. Most containers
    have none, and shlex is slow."""
    return any(m in text.translate(_QUOTING) for key in ("command", "args") for item in items(container.get(key))
               if isinstance(text := scalar(item), str) for m in MARKERS)


def _backends(container: Node, file: str) -> Tuple[BackendRef, ...]:
    if not _marked(container):
        return ()
    words = _words(container, file)
    if not any(m in w for w, _ in words for m in MARKERS):
        return ()
    if any(w == CO_LAUNCHER for w, _ in words):
        return ()  # the engines it starts itself are its backends: an engine launch (engines/detect.py), no route
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
