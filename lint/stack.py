"""Join the routes of gateways and catalogs to the engine deployments behind them.

A route's backend reference is followed through the objects of the checked files:
a URL host to a Service of that name, the Service's selector to the pods whose template
labels it selects (a workload or compose service named like the host when there is no
Service), an InferencePool name to its selector, an AIServiceBackend to its Backend's URL.
The join is then checked by model name: the engine must serve the name the route sends
upstream (`--served-model-name`, else the model as given, or a LoRA adapter's name).

Every step is kept as evidence ("host qwen -> Service qwen (k8s/svc.yaml:4) selects
app=qwen -> Deployment qwen (k8s/qwen.yaml:5)"). A reference that cannot be followed is
kept as the reason the route cannot be verified, never as a pass. Only when a route states no
address (no backend, or an `os.environ/` reference the checked files do not set) does a unique
engine serving its upstream name join it, and the evidence says it was by name only.
"""
from __future__ import annotations

from typing import Callable, Dict, List, Optional, Sequence, Tuple

from ctxlint.model import Deployment, Source
from ctxlint.routes import BackendRef, BodyLimit, Route, Service, service_of_host, url_host

from .records import record

MAX_HOPS = 4  # pool -> backend -> endpoint -> service: deeper chains are a loop
HOPS = {"pool": ("pool/",), "backend": ("backend/",), "endpoint": ("backend-endpoint/",)}  # ref kind -> Route.key


@record(frozen=True)
class Target:
    deployment: Deployment
    evidence: str


@record(frozen=True)
class StackView:
    """One route with what it was joined to."""

    route: Route
    targets: Tuple[Target, ...] = ()
    unresolved: str = ""  # why the backend could not be followed ("" when joined or nothing to follow)
    serves_name: Optional[bool] = None  # the joined engines serve the upstream name (None: not known)
    by_name_only: bool = False  # joined by the upstream model name alone
    body_limits: Tuple[BodyLimit, ...] = ()
    attached: Optional[bool] = None  # Kong plugins: attached by some Ingress/Service annotation

    @property
    def deployments(self) -> Tuple[Deployment, ...]:
        return tuple({id(t.deployment): t.deployment for t in self.targets}.values())

    @property
    def evidence(self) -> Tuple[str, ...]:
        return tuple(dict.fromkeys(t.evidence for t in self.targets))


def where(source: Source) -> str:
    return f"{source.file}:{source.line}"


# llama-server's `-a/--alias` names the model in the API as --served-model-name does vLLM's: ggml-org/llama.cpp
# tools/server/README.md "-a, --alias STRING  set model name aliases, comma-separated (to be used by API)", and
# tools/server/server-context.cpp load_model "backward compat: use first alias as model name" (`model_name =
# *params_base.model_alias.begin()`, the aliases kept beside it). Older builds kept one string, commas and all: both
# readings are counted, so neither makes a false CTX606.
# LMDeploy's `--model-name` is its served name: lmdeploy==0.18.0:lmdeploy/serve/core/async_engine.py `self.model_name =
# model_name if model_name else model_path`, the name serve/openai/utils.py `get_model_list` accepts, and the names of
# its `--adapters` too (get_model_list adds the keys of the engine config's adapters dict: cli/utils.py
# get_lora_adapters, `NAME=PATH` or one bare PATH named `default`). TurboMind serves no adapters, but the backend is
# known only at startup (cli/serve.py autoget_backend): the names count, so that no route to one is a false CTX606.
_SERVED_NAME_FLAGS = ("served_model_name", "alias")


def _name_flags(dep: Deployment) -> Tuple[str, ...]:
    engine = dep.engine.name.value if dep.engine.name is not None else None
    return _SERVED_NAME_FLAGS + (("model_name",) if engine == "lmdeploy" else ())


def served_names(dep: Deployment) -> Tuple[str, ...]:
    """The model names the engine answers to: --served-model-name (llama.cpp's --alias, LMDeploy's --model-name),
    else the model as given; LoRA adapters."""
    names: List[str] = []
    flags = _name_flags(dep)
    for role in dep.roles:
        for flag in flags:
            served = role.arg(flag)
            if served is None:
                continue
            value = served.value
            given = [str(v) for v in (value if isinstance(value, (list, tuple)) else [value])]
            names.extend(given)
            if flag == "alias":
                names.extend(part.strip() for v in given for part in v.split(","))
        lora = role.arg("lora_modules") or role.arg("lora_paths") or role.arg("adapters")
        if lora is not None and lora.value is not None:
            values = lora.value if isinstance(lora.value, (list, tuple)) else [lora.value]
            if role.arg("adapters") is lora and len(values) == 1 and "=" not in str(values[0]):
                names.append("default")  # LMDeploy names a lone bare path so (lmdeploy==0.18.0:cli/utils.py)
                continue
            names.extend(str(v).split("=", 1)[0].strip() for v in values if str(v).strip())
    if not any(r.arg(f) is not None for r in dep.roles for f in flags) and dep.model.id is not None:
        names.append(str(dep.model.id.value))
    return tuple(dict.fromkeys(n for n in names if n))


class _Index:
    def __init__(self, routes: Sequence[Route], services: Sequence[Service], deployments: Sequence[Deployment]):
        self.keyed: Dict[str, List[Route]] = {}
        for r in routes:
            if r.key:
                self.keyed.setdefault(r.key, []).append(r)
        self.services: Dict[str, List[Service]] = {}
        for svc in services:
            self.services.setdefault(str(svc.name.value), []).append(svc)
        self.deployments = [d for d in deployments if d.roles]
        self.routers = [r for r in routes if r.key.startswith("router/")]

    def selected(self, selector: Tuple[Tuple[str, str], ...], near: str) -> List[Deployment]:
        want = set(selector)
        return _nearest([d for d in self.deployments if want and want <= set(d.pod_labels or d.labels)], near)

    def named(self, name: str, near: str) -> List[Deployment]:
        return _nearest([d for d in self.deployments if d.display_name == name or name in d.service_names], near)

    def key(self, key: str, near: str) -> Optional[Route]:
        found = _nearest(self.keyed.get(key, []), near)
        return found[0] if found else None

    def service(self, name: str, near: str) -> Optional[Service]:
        found = _nearest(self.services.get(name, []), near)
        return found[0] if found else None

    def follow(self, ref: BackendRef, hops: int = 0) -> Tuple[List[Target], str]:
        if hops > MAX_HOPS:
            return [], "the backend references form a loop"
        if ref.kind == "url":
            host, _ = url_host(str(ref.value))
            name = service_of_host(host)
            if name is None:
                return [], f"the backend {ref.value} ({where(ref.source)}) is not a name {_HERE}"
            return self._service(name, f"host {host}", ref, hops)
        if ref.kind == "service":
            return self._service(str(ref.value), f"Service {ref.value}", ref, hops)
        if ref.kind == "selector":
            labels = ", ".join(f"{k}={v}" for k, v in ref.value)
            found = self.selected(ref.value, ref.source.file)
            if not found:
                return [], f"no engine workload {_HERE} has the pod labels {labels} ({where(ref.source)}){_NOT_ENGINES}"
            return [Target(d, f"selector {labels} ({where(ref.source)}) -> {_workload(d)}") for d in found], ""
        if ref.kind in HOPS:
            prefix = HOPS[ref.kind]
            hop = next((self.key(p + str(ref.value), ref.source.file) for p in prefix
                        if p + str(ref.value) in self.keyed), None)
            if hop is None:
                what = {"pool": "InferencePool", "backend": "AIServiceBackend"}.get(ref.kind, "Backend")
                return [], f"the {what} {ref.value} ({where(ref.source)}) is not in the checked files"
            step = f"{hop.gateway} {ref.value} ({where(hop.source)})"
            out, problems = self._onward(hop, lambda _: step, hops)
            return out, ("" if out else "; ".join(problems) or f"{hop.gateway} {ref.value} names no backend")
        if ref.kind == "workload":
            found = self.named(str(ref.value), ref.source.file)
            return [Target(d, f"workload {ref.value} -> {_workload(d)}") for d in found], \
                "" if found else f"no engine workload named {ref.value} in the checked files"
        if ref.kind == "env":
            env = self.key(f"env/{ref.value}", ref.source.file)
            if env is None:
                return [], (f"the backend is os.environ/{ref.value} ({where(ref.source)}), set in the gateway's "
                            "environment, which the checked files do not state")
            out, problems = self._onward(
                env, lambda inner: f"os.environ/{ref.value} = {inner.value} ({env.gateway}, {where(env.source)})", hops)
            return out, "" if out else "; ".join(problems)
        return [], f"unknown backend reference {ref.kind}"

    def _service(self, name: str, said: str, ref: BackendRef, hops: int) -> Tuple[List[Target], str]:
        svc = self.service(name, ref.source.file)
        if svc is not None and svc.selector:
            labels = ", ".join(f"{k}={v}" for k, v in svc.selector)
            found = self.selected(svc.selector, svc.file)
            step = f"{said} -> Service {name} ({where(svc.name.source)}) selects {labels}"
            if found:
                return [Target(d, f"{step} -> {_workload(d)}") for d in found], ""
            routers = [r for r in self.routers if set(svc.selector) <= set(r.labels)]
            if routers:
                return self._through(routers, step, hops)
            return [], f"{step}, which no engine workload {_HERE} has{_NOT_ENGINES}"
        found = self.named(name, ref.source.file)
        if found:
            return [Target(d, f"{said} is the name of {_workload(d)}") for d in found], ""
        routers = [r for r in self.routers if r.key == f"router/{name}"]
        if routers:
            return self._through(routers, said, hops)
        return [], f"{said} ({where(ref.source)}) names no Service or engine workload {_HERE}"

    def _through(self, routers: List[Route], step: str, hops: int) -> Tuple[List[Target], str]:
        """Follow the backends of routers (workloads that pass requests on, e.g. the SGLang router)."""
        out: List[Target] = []
        problems: List[str] = []
        for router in routers:
            here = f"{step} -> {router.gateway} {router.key.split('/', 1)[1]} ({where(router.source)})"
            found, failed = self._onward(router, lambda _: here, hops)
            out += found
            problems += failed
        return out, "" if out else "; ".join(problems)

    def _onward(self, hop: Route, step: Callable[[BackendRef], str], hops: int) -> Tuple[List[Target], List[str]]:
        """Follow the backends of a hop (a pool, a backend, an environment variable, a router), each
        target's evidence led by `step(backend)`; also what could not be followed."""
        out: List[Target] = []
        problems: List[str] = []
        for inner in hop.backends:
            targets, problem = self.follow(inner, hops + 1)
            out.extend(Target(t.deployment, f"{step(inner)} -> {t.evidence}") for t in targets)
            if problem:
                problems.append(problem)
        return out, problems


# Files are checked in groups by directory (discover.by_directory) and a gateway's routes are joined to the objects of
# its own group only: an engine in another directory (a LiteLLM config in `config/` beside `../compose.yaml`) is
# not followed, which the message says rather than "none of the checked files" (sweep 46).
_HERE = "in the checked files of its directory (routes are not followed into another directory)"
# A pod whose labels match but whose containers start no engine ctxlint reads is no target: llama-swap (its models
# are read from its config, not joined to the pod: need_advice._LLAMA_SWAP_FIX), a server of the project's own.
_NOT_ENGINES = " (a pod that starts no engine ctxlint reads, such as llama-swap or a server of its own, is none)"


def _nearest(found: list, near: str) -> list:
    """The candidates in the referring object's own file when there are any (a file that holds the
    gateway and its engines is one stack), else every candidate of the checked files."""
    here = [x for x in found if getattr(x, "file", None) == near]
    return here or found


def _loads_adapters(dep: Deployment) -> bool:
    return any(r.arg("enable_lora") is not None and r.arg("enable_lora").value is True for r in dep.roles)


def _addressed(index: _Index, ref: BackendRef) -> bool:
    """The backend names where requests go (a URL, a Service, a pool...): when it cannot be followed the route is not
    joined by model name to an engine elsewhere, which would hide that it cannot be verified (CTX607). Only an
    `os.environ/` reference the checked files do not set leaves the address unstated."""
    return ref.kind != "env" or index.key(f"env/{ref.value}", ref.source.file) is not None


def _workload(dep: Deployment) -> str:
    return f"{dep.input_format} {dep.display_name or '(unnamed)'} ({where(dep.source)})"


def build(routes: Sequence[Route], services: Sequence[Service], body_limits: Sequence[BodyLimit],
          deployments: Sequence[Deployment]) -> List[StackView]:
    index = _Index(routes, services, deployments)
    attached = {p.value for r in routes if r.kind == "attachment" for p in r.parents}
    views = []
    for route in routes:
        if route.kind != "route":
            continue
        targets: List[Target] = []
        problems: List[str] = []
        for ref in route.backends:
            found, problem = index.follow(ref)
            targets.extend(found)
            if problem:
                problems.append(problem)
        first: Dict[int, Target] = {}
        for t in targets:
            first.setdefault(id(t.deployment), t)  # the first path found is the one shown
        targets = list(first.values())
        by_name = False
        upstream = str(route.upstream_model.value) if route.upstream_model is not None else None
        if not targets and upstream and not any(_addressed(index, ref) for ref in route.backends):
            serving = [d for d in index.deployments if upstream in served_names(d)]
            if len(serving) == 1:  # several engines serve the name: which one the route reaches is unknown
                targets = [Target(d, f"{_workload(d)} serves {upstream} (joined by model name only)") for d in serving]
                by_name = True
        serves = None
        if targets and upstream:
            serves = any(upstream in served_names(t.deployment) for t in targets)
            if not serves and any(_loads_adapters(t.deployment) for t in targets):
                serves = None  # LoRA adapters can be loaded at run time under any name
        if not route.backends and not targets:
            problems.append("it names no backend")
        limits = tuple(_nearest([b for b in body_limits if any(str(p.value) in b.applies_to for p in route.parents)],
                                route.file))
        plugin = route.key.split("/", 1)[1] if route.key.startswith("kong/") else None
        views.append(StackView(route, tuple(targets), "" if targets else "; ".join(problems), serves, by_name,
                               limits, (plugin in attached) if plugin is not None else None))
    return views
