"""What a workload file says around the command line: the container environment
and the `ctxlint.io/*` annotations that state the limits clients are promised.
Part of the workload core's API (re-exported by ctxlint.adapters.workload).
"""
from __future__ import annotations

import os
import re
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

from ctxlint.findings import Diagnostic
from ctxlint.model import Advertised, Gateway, Val
from ctxlint.nodes import MAP, SCALAR, SEQ, Node
from ctxlint.tokens import TokenCountError, parse_token_count

from ..records import record

INVALID_TOKEN_COUNT = "invalid-token-count"
ANNOTATIONS = {"ctxlint.io/context-window": "context_window", "ctxlint.io/max-output-tokens": "max_output_tokens",
               "ctxlint.io/gateway-max-prompt-tokens": "max_prompt_tokens"}
# What the engine logged at boot, stated beside the deploy file's own settings (the native manifest's
# kv_pool_tokens and available_kv_gib): they turn a derived, banded pool into the engine's own figure.
KV_POOL_TOKENS, AVAILABLE_KV_GIB = "ctxlint.io/kv-pool-tokens", "ctxlint.io/available-kv-gib"
SCHEMA_VIOLATION = "schema-violation"
READ_ANNOTATIONS = (*ANNOTATIONS, KV_POOL_TOKENS, AVAILABLE_KV_GIB)  # every ctxlint.io/ key the adapters read
# The input formats whose workloads read those annotations (compose: service labels).
ANNOTATED_FORMATS = frozenset({"kubernetes", "pod-template", "compose", "aibrix", "dynamo", "kaito", "kserve",
                               "kubeai", "kuberay", "llm-d", "llmaz", "nim", "ome", "rbg", "vllm-runtime", "triton-trtllm",
                               "hyperpod"})


def how_to_state_pool(input_format: str, tokens_only: bool = False) -> str:
    """Where a deployment of this input format states the pool its engine logged (`tokens_only`: the pool in
    tokens, for an engine whose KV memory no figure of ctxlint's turns into tokens)."""
    if input_format in ANNOTATED_FORMATS:
        where = "labels" if input_format == "compose" else "annotations"
        if tokens_only:
            return f"the {KV_POOL_TOKENS} {where[:-1]}"
        return f"the {AVAILABLE_KV_GIB} or {KV_POOL_TOKENS} {where}"
    native = "" if input_format == "native" else " in a native manifest"
    return f"kv_pool_tokens{native}" if tokens_only else f"available_kv_gib or kv_pool_tokens{native}"


@record(frozen=True)
class Measured:
    """The KV pool (tokens) or KV memory per GPU (GiB) the engine logged, from annotations."""
    kv_pool_tokens: Optional[Val[int]] = None
    available_kv_gib: Optional[Val[float]] = None


NOT_MEASURED = Measured()  # the one instance for "nothing logged": a file's workloads are checked by identity


@record(frozen=True)
class EnvVar:
    name: str
    value: Optional[str]  # None: set but unknown here (secret, configmap, host variable)
    node: Optional[Node] = None  # the value scalar, for positions
    why: Optional[str] = None  # why an unknown value is unknown, when more can be said (CTX008)


def schema_reporter(diagnostics: List[Diagnostic], path: str) -> Callable[[Node, str], None]:
    """`report(node, text)`: a CTX002 finding at the node, its logical path leading the text (the Akash and Truss
    adapters' refusals)."""
    def report(node: Node, text: str) -> None:
        diagnostics.append(Diagnostic(SCHEMA_VIOLATION, f"{node.path or 'the document'}: {text}", node.source(path)))
    return report


def scalar_text(node: Node) -> str:
    """A scalar as the program receives it (YAML `true` -> "true", `8` -> "8")."""
    if node.kind != SCALAR or node.value is None:
        return ""
    if isinstance(node.value, bool):
        return "true" if node.value else "false"
    return str(node.value)


# -- environment ----------------------------------------------------------------------------------------
def env_from_k8s(node: Optional[Node], maps: Optional[Dict[str, Any]] = None,
                 env_from: Optional[Node] = None, before: Optional[List[EnvVar]] = None,
                 refused: Optional[List[Tuple[Node, str]]] = None) -> List[EnvVar]:
    """Kubernetes `envFrom`, then `env: [{name, value}|{name, valueFrom}]` (a later name wins); `$(A)` in
    a value expands earlier vars. `maps` (ConfigMap name -> its `data`: the ConfigMaps of the same file,
    as `kubectl kustomize` renders them, and those of its directory, adapters.config_map_refs) gives a
    `configMapKeyRef` its value and an `envFrom` `configMapRef` its variables; secrets, fields and other
    ConfigMaps stay unknown. `before`: variables an operator puts at the front of this list, after
    `envFrom`'s (LeaderWorkerSet's; not returned, and an `envFrom` variable of the same name is dropped,
    as the kubelet overwrites it; a value of None makes a `$(A)` of them unknown). `refused` collects
    (node, text) for a required key a ConfigMap lacks: the kubelet does not start such a container.

    A `$(A)` the kubelet keeps as written because no variable before it names A: the value is that
    text when A is set later in this list (the kubelet expands only the variables before it), else
    unknown (None, with a `why`): A may come from what the file does not show (a Service's variables,
    an `envFrom` Secret, a controller), and the engine is refused only when nothing sets it."""
    out: List[EnvVar] = list(_env_from_maps(env_from, maps)) if maps and env_from is not None else []
    if before:
        shadowed = {var.name for var in before}
        out = [var for var in out if var.name not in shadowed]
    known: Dict[str, Optional[str]] = {var.name: var.value for var in out}
    known.update((var.name, var.value) for var in before or ())
    whys = {var.name: var.why for var in (*out, *(before or ())) if var.why}
    items = [item for item in (node.value if node is not None and node.kind == SEQ else ())
             if item.kind == MAP and item.get("name") is not None and item.get("name").kind == SCALAR
             and isinstance(item.get("name").value, str)]
    for index, item in enumerate(items):
        name = item.get("name")
        value = item.get("value")
        text: Optional[str] = None
        why: Optional[str] = None
        if value is not None and value.kind == SCALAR and value.value is not None:
            kept: List[str] = []
            text = expand_k8s(scalar_text(value), known, kept)
            unset = [var for var in kept if var not in known and
                     all(scalar_text(later.get("name")) != var for later in items[index:])]
            unknown = [var for var in kept if var in known]
            if unknown:
                why = f"is set from $({unknown[0]})" + (f": {unknown[0]} {whys[unknown[0]]}"
                                                         if unknown[0] in whys else "")
            elif unset:
                text, why = None, f"is set from $({unset[0]}), which is not set in the file"
        elif value is None and item.get("valueFrom") is None:
            text = ""  # name only: an empty string
        elif value is None and maps:
            how, value, why = _config_map_value(item.get("valueFrom"), maps)
            if how == UNSET:
                continue  # the kubelet sets nothing: an envFrom value of that name stays
            if how == REFUSED and refused is not None:
                refused.append((value, why or ""))
            value = value if how == FOUND else None
            why = why if how == UNKNOWN else None
            text = scalar_text(value) if value is not None else None  # not expanded: Kubernetes does not
        known[name.value] = text
        whys.pop(name.value, None)
        if why:
            whys[name.value] = why
        out.append(EnvVar(name.value, text, value if value is not None and value.kind == SCALAR else None, why))
    return out


# What a configMapKeyRef gives, as the kubelet resolves it
# (kubernetes/kubernetes@001a80e975bb880d0fe60b304d30950fe661f278:pkg/kubelet/kubelet_pods.go
# makeEnvironmentVariables): the key's value; nothing when an `optional` ref's
# key is missing; a container that does not start when a required one's is ("couldn't find key K in
# ConfigMap"); or a value ctxlint does not know (a ConfigMap in no file checked, or in several).
FOUND, UNSET, REFUSED, UNKNOWN = "found", "unset", "refused", "unknown"


def _config_map_value(value_from: Optional[Node], maps: Dict[str, Any]) -> Tuple[str, Optional[Node], Optional[str]]:
    """(how, the data scalar or the `key` node, why) for `valueFrom: {configMapKeyRef: {name, key, optional}}`."""
    ref = value_from.get("configMapKeyRef") if value_from is not None and value_from.kind == MAP else None
    if ref is None or ref.kind != MAP or ref.get("name") is None or ref.get("key") is None or \
            ref.get("key").kind != SCALAR:
        return UNKNOWN, None, None
    name, key = scalar_text(ref.get("name")), ref.get("key")
    data = maps.get(name)
    if data is None:
        return UNKNOWN, None, None
    if data.kind != MAP:  # config_map_refs.Unsettled: defined differently in several files
        return UNKNOWN, None, data.why()
    found = data.get(scalar_text(key))
    if found is not None:
        return (FOUND, found, None) if found.kind == SCALAR and isinstance(found.value, str) else (UNKNOWN, None, None)
    if ref.get("optional") is not None and ref.get("optional").value is True:
        return UNSET, None, None
    unread = getattr(data, "open", None)  # a kustomize-generated map with sources not read (kustomize_maps.py)
    if unread:
        return UNKNOWN, None, f"the ConfigMap '{name}' may hold key '{scalar_text(key)}': {unread}"
    where = f" ({os.path.basename(data.source('').file)})" if type(data) is not Node else " of this file"
    return REFUSED, key, (f"{key.path}: the ConfigMap '{name}'{where} has no key '{scalar_text(key)}' and the "
                          "reference is not optional: the kubelet does not start the container (\"couldn't find key "
                          f"{scalar_text(key)} in ConfigMap\"); add the key, or mark the reference `optional: true`")


def _env_from_maps(env_from: Node, maps: Dict[str, Any]) -> Iterator[EnvVar]:
    """`envFrom: [{configMapRef: {name}, prefix}]` over the ConfigMaps in `maps`: every key, prefixed, a later
    source's key replacing an earlier one's (the kubelet's order). Only ConfigMaps: a secretRef's names are not
    known at all, nor are those of a ConfigMap no file holds."""
    for item in env_from.value if env_from.kind == SEQ else ():
        ref = item.get("configMapRef") if item.kind == MAP else None
        data = maps.get(scalar_text(ref.get("name"))) if ref is not None and ref.kind == MAP and \
            ref.get("name") is not None else None
        prefix = scalar_text(item.get("prefix")) if item.get("prefix") is not None else ""
        if data is not None and data.kind != MAP:  # config_map_refs.Unsettled: each key it may give is unknown
            yield from (EnvVar(prefix + key, None, None, data.why()) for key in data.keys)
            continue
        for key, found in data.value.items() if data is not None else ():
            if isinstance(key, str) and found.kind == SCALAR and isinstance(found.value, str):
                yield EnvVar(prefix + key, found.value, found)


def expand_k8s(text: str, known: Dict[str, Optional[str]], kept: Optional[List[str]] = None) -> Optional[str]:
    """An env value as Kubernetes sets it: `$(A)` of an earlier variable expanded, `$$` a `$`; None when a
    variable it names is known to be set but not to what (a secret's). `kept` collects the names of the
    references not expanded here: those of unknown values, and those kept as written
    (kubernetes/kubernetes@001a80e975bb880d0fe60b304d30950fe661f278:
    pkg/kubelet/kubelet_pods.go makeEnvironmentVariables expands each value over the variables declared
    before it and the Service variables, and third_party/forked/golang/expansion keeps the rest)."""
    unknown = False

    def sub(m: "re.Match[str]") -> str:
        nonlocal unknown
        if m.group(0) == "$$":
            return "$"
        if known.get(m.group(1)) is None:
            unknown = unknown or m.group(1) in known
            if kept is not None:
                kept.append(m.group(1))
            return m.group(0)  # Kubernetes keeps an undefined reference as written
        return known[m.group(1)] or ""

    expanded = re.sub(r"\$\$|\$\(([-._A-Za-z][-._A-Za-z0-9]*)\)", sub, text)
    return None if unknown else expanded


def env_from_mapping(node: Optional[Node], resolve: Callable[[str], Optional[str]] = lambda v: v) -> List[EnvVar]:
    """`NAME: value` mappings (compose `environment:`, SkyPilot `envs:`); `resolve` may
    interpolate a value or return None when it is not knowable."""
    out = []
    for key, value in node.value.items() if node is not None and node.kind == MAP else ():
        if not isinstance(key, str) or value.kind != SCALAR:
            continue
        text = None if value.value is None else resolve(scalar_text(value))
        out.append(EnvVar(key, text, value))
    return out


def env_from_list(node: Optional[Node], resolve: Callable[[str], Optional[str]] = lambda v: v) -> List[EnvVar]:
    """`["NAME=value", ...]` lists (compose `environment:`, llama-swap `env:`)."""
    out = []
    for item in node.value if node is not None and node.kind == SEQ else ():
        if item.kind == SCALAR and isinstance(item.value, str) and "=" in item.value:
            name, _, value = item.value.partition("=")
            out.append(EnvVar(name.strip(), resolve(value), item))
    return out


# -- advertised limits ------------------------------------------------------------------------------------
def limits_from_annotations(annotations: Optional[Node], file: str, diagnostics: List[Diagnostic],
                            deployment: Optional[str] = None) -> Tuple[Advertised, Gateway, Measured]:
    """`ctxlint.io/*` annotations -> (Advertised, Gateway, Measured); bad counts -> invalid-token-count."""
    found: Dict[str, Val[int]] = {}
    annotations = annotations if annotations is not None and annotations.kind == MAP else None
    for key, field_name in (*ANNOTATIONS.items(), (KV_POOL_TOKENS, "kv_pool_tokens")):
        node = annotations.get(key) if annotations is not None else None
        if node is None or node.kind != SCALAR:
            continue
        try:
            found[field_name] = Val(parse_token_count(node.value), node.source(file), raw=scalar_text(node))
        except TokenCountError as exc:
            diagnostics.append(Diagnostic(INVALID_TOKEN_COUNT, f"{node.path}: {exc}", node.source(file), deployment))
    gib = annotations.get(AVAILABLE_KV_GIB) if annotations is not None else None
    available = None
    if gib is not None and gib.kind == SCALAR:
        available = _gib(gib, file, diagnostics, deployment)
    return (Advertised(context_window=found.get("context_window"), max_output_tokens=found.get("max_output_tokens")),
            Gateway(max_prompt_tokens=found.get("max_prompt_tokens")),
            Measured(found.get("kv_pool_tokens"), available) if "kv_pool_tokens" in found or available is not None
            else NOT_MEASURED)


def _gib(node: Node, file: str, diagnostics: List[Diagnostic], deployment: Optional[str]) -> Optional[Val[float]]:
    """A positive number of GiB ("51.63"), as the engine's "Available KV cache memory: 51.63 GiB" says it."""
    text = scalar_text(node).strip()
    try:
        value = float(text.removesuffix("GiB").strip())
    except ValueError:
        value = float("nan")
    if not (0 < value < float("inf")) or isinstance(node.value, bool):
        diagnostics.append(Diagnostic(SCHEMA_VIOLATION, f"{node.path}: {text!r} is not a positive number of GiB "
                                      "(the engine's \"Available KV cache memory\" figure, e.g. 51.63)",
                                      node.source(file), deployment))
        return None
    return Val(value, node.source(file), raw=text)
