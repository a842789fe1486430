"""What a workload file says around the command line: the container environment
and the `ctxlint.io/*` annotations that state the limits clients are promised.
Part of the workload core's API (re-exported by ctxlint.adapters.workload).
"""
from __future__ import annotations

import re
from typing import Callable, Dict, List, Optional, Tuple

from ctxlint.findings import Diagnostic
from ctxlint.model import Advertised, Gateway, Val
from ctxlint.nodes import MAP, SCALAR, SEQ, Node
from ctxlint.tokens import TokenCountError, parse_token_count

from ..records import record

INVALID_TOKEN_COUNT = "invalid-token-count"
ANNOTATIONS = {"ctxlint.io/context-window": "context_window", "ctxlint.io/max-output-tokens": "max_output_tokens",
               "ctxlint.io/gateway-max-prompt-tokens": "max_prompt_tokens"}


@record(frozen=True)
class EnvVar:
    name: str
    value: Optional[str]  # None: set but unknown here (secret, configmap, host variable)
    node: Optional[Node] = None  # the value scalar, for positions


def scalar_text(node: Node) -> str:
    """A scalar as the program receives it (YAML `true` -> "true", `8` -> "8")."""
    if node.kind != SCALAR or node.value is None:
        return ""
    if isinstance(node.value, bool):
        return "true" if node.value else "false"
    return str(node.value)


# -- environment ----------------------------------------------------------------------------------------
def env_from_k8s(node: Optional[Node]) -> List[EnvVar]:
    """Kubernetes `env: [{name, value}|{name, valueFrom}]`; `$(A)` in a value expands earlier vars."""
    out: List[EnvVar] = []
    known: Dict[str, Optional[str]] = {}
    for item in node.value if node is not None and node.kind == SEQ else ():
        name = item.get("name") if item.kind == MAP else None
        if name is None or name.kind != SCALAR or not isinstance(name.value, str):
            continue
        value = item.get("value")
        text: Optional[str] = None
        if value is not None and value.kind == SCALAR and value.value is not None:
            text = scalar_text(value)
            text = _expand_k8s(text, known)
        elif value is None and item.get("valueFrom") is None:
            text = ""  # name only: an empty string
        known[name.value] = text
        out.append(EnvVar(name.value, text, value if value is not None and value.kind == SCALAR else None))
    return out


def _expand_k8s(text: str, known: Dict[str, Optional[str]]) -> Optional[str]:
    unknown = False

    def sub(m: "re.Match[str]") -> str:
        nonlocal unknown
        if m.group(0) == "$$":
            return "$"
        if known.get(m.group(1)) is None:
            unknown = unknown or m.group(1) in known
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
                            deployment: Optional[str] = None) -> Tuple[Advertised, Gateway]:
    """`ctxlint.io/*` annotations -> (Advertised, Gateway); bad counts -> invalid-token-count."""
    found: Dict[str, Val[int]] = {}
    for key, field_name in ANNOTATIONS.items():
        node = annotations.get(key) if annotations is not None and annotations.kind == MAP else None
        if node is None or node.kind != SCALAR:
            continue
        try:
            found[field_name] = Val(parse_token_count(node.value), node.source(file), raw=scalar_text(node))
        except TokenCountError as exc:
            diagnostics.append(Diagnostic(INVALID_TOKEN_COUNT, f"{node.path}: {exc}", node.source(file), deployment))
    return (Advertised(context_window=found.get("context_window"), max_output_tokens=found.get("max_output_tokens")),
            Gateway(max_prompt_tokens=found.get("max_prompt_tokens")))
