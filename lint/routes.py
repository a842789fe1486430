"""Gateways and catalogs in front of the engines, as data: routes, caps, backend references.

A route is one public model name a gateway or catalog offers (a LiteLLM `model_list`
entry, a llama-swap model, a Kong ai-proxy plugin, an InferenceModel, an Envoy AI
Gateway rule, a semantic-router model card). It says what clients are promised (the
window, the output limit), what the gateway enforces in front of the engine (caps, with
their unit and whether the count is exact), and where requests go (backend references,
joined to engine deployments in `ctxlint.stack`). Every value keeps its Source.
"""
from __future__ import annotations

import re
from typing import Optional, Tuple

from ctxlint.lazyre import lazy_compile
from ctxlint.model import Source, Val

from .records import record

TOKENS, BYTES, CHARACTERS = "tokens", "bytes", "characters"


@record(frozen=True)
class Cap:
    """A limit on the prompt enforced in front of the engine."""

    limit: Val[int]
    unit: str  # TOKENS, BYTES or CHARACTERS
    exact: bool  # tokens counted with the served model's own tokenizer
    what: str  # how messages name it: "LiteLLM pre-call check (model_info.max_input_tokens)"
    fails_open: bool = False  # the gateway lets a request through when it cannot count it


@record(frozen=True)
class BackendRef:
    """Where a route sends requests.

    kind: "url" (value: the URL), "service" (a Kubernetes Service name), "selector" (pod labels,
    value: tuple of (key, value)), "pool" (an InferencePool name), "backend" (an Envoy AI Gateway
    AIServiceBackend name), "endpoint" (an Envoy Gateway Backend name), "workload" (a deployment of the same file, by name: llama-swap),
    "env" (an `os.environ/NAME` reference the gateway resolves at run time).
    """

    kind: str
    value: object
    source: Source
    port: Optional[int] = None


@record(frozen=True)
class Route:
    file: str
    source: Source  # the route entry as a whole
    gateway: str  # "LiteLLM", "llama-swap", "Kong ai-proxy", "InferenceModel", ...
    name: Optional[Val[str]] = None  # the public model name clients ask for
    upstream_model: Optional[Val[str]] = None  # the model name sent to the engine
    window: Optional[Val[int]] = None  # advertised context window (prompt + output)
    max_input: Optional[Val[int]] = None  # advertised prompt limit
    max_output: Optional[Val[int]] = None  # advertised output limit
    forced_output: Optional[Val[int]] = None  # max_tokens the gateway puts on every request (Kong ai-proxy)
    default_output: Optional[Val[int]] = None  # max_tokens it sends when the request sets none (LiteLLM)
    caps: Tuple[Cap, ...] = ()
    backends: Tuple[BackendRef, ...] = ()
    parents: Tuple[Val[str], ...] = ()  # Gateway API parentRefs (gateways whose body limits apply)
    kind: str = "route"  # "route", or "pool" for an InferencePool (a backend other routes name)
    key: str = ""  # how other routes refer to this one (an InferencePool or AIServiceBackend name)
    labels: Tuple[Tuple[str, str], ...] = ()  # a router's pod labels (Services select routers as they do engines)

    @property
    def label(self) -> str:
        return str(self.name.value) if self.name is not None else (self.key or self.gateway)

    @property
    def promise(self) -> Optional[Val[int]]:
        """What clients may send as a prompt: the advertised input limit, else the window."""
        return self.max_input or self.window

    def token_caps(self) -> Tuple[Cap, ...]:
        return tuple(c for c in self.caps if c.unit == TOKENS)


@record(frozen=True)
class Service:
    """A Kubernetes Service (name -> pod selector), or a compose service (name only)."""

    name: Val[str]
    selector: Tuple[Tuple[str, str], ...]
    file: str
    ports: Tuple[int, ...] = ()


@record(frozen=True)
class BodyLimit:
    """A request-body size limit on a gateway or ingress (bytes): caps every route behind it."""

    limit: Val[int]
    applies_to: Tuple[str, ...]  # Gateway names (Envoy ClientTrafficPolicy targetRefs)
    what: str

    @property
    def file(self) -> str:
        return self.limit.source.file


_PROVIDER = lazy_compile(r"^(?:hosted_vllm|openai|vllm|sglang|text-completion-openai|huggingface|ollama|"
                       r"ollama_chat|llamafile|lm_studio|openai_like|custom_openai)/")


def upstream_name(model: str) -> str:
    """The model name a LiteLLM-style `provider/name` sends upstream (the part after the provider)."""
    return _PROVIDER.sub("", model, count=1)


def url_host(url: str) -> Tuple[str, Optional[int]]:
    """(host, port) of an http(s) URL; ("", None) when it is none."""
    from urllib.parse import urlsplit  # only a file with routes pays for it (and ipaddress)

    text = url.strip()
    if "://" not in text:
        text = "http://" + text
    try:
        parts = urlsplit(text)
        return (parts.hostname or ""), parts.port
    except ValueError:
        return "", None


def service_of_host(host: str) -> Optional[str]:
    """The Service name a cluster DNS name refers to (`svc`, `svc.ns`, `svc.ns.svc.cluster.local`),
    None for IP addresses, localhost and names outside the cluster."""
    if not host or re.match(r"^[0-9.]+$", host) or ":" in host or host == "localhost":
        return None
    labels = host.split(".")
    if len(labels) == 1 or len(labels) == 2 or host.endswith((".svc", ".svc.cluster.local")):
        return labels[0]
    return None
