"""Helpers shared by the stack rules (CTX6xx): what the engines behind a route accept and hold."""
from __future__ import annotations

from typing import TYPE_CHECKING, List, Optional, Tuple

from ctxlint.model import PREFILL, UNIFIED, Deployment, Role, Source, Val, fmt
from ctxlint.rules._common import smallest_pool as smallest_role_pool

if TYPE_CHECKING:  # the stack module loads only for runs with gateways (engine.py)
    from ctxlint.stack import StackView


def at(source: Source) -> str:
    return f"{source.file}:{source.line}:{source.col}"


def contexts(view: StackView) -> List[Tuple[Deployment, Role, Val[int]]]:
    """Each joined role's context length (stated or the engine default), the roles that take prompts."""
    out = []
    for dep in view.deployments:
        for role in _prompt_roles(dep):
            if role.context_length is not None:
                out.append((dep, role, role.context_length))
    return out


def smallest_context(view: StackView) -> Optional[Tuple[Deployment, Role, Val[int]]]:
    found = contexts(view)
    return min(found, key=lambda item: item[2].value) if found else None


def smallest_pool(view: StackView) -> Optional[Tuple[Deployment, Role]]:
    """The smallest KV pool a prompt of this route can land in (prefill in P/D, else unified), by what one
    request can hold of it (Pool.request)."""
    found = [(dep, smallest_role_pool(_prompt_roles(dep))) for dep in view.deployments]
    found = [(dep, role) for dep, role in found if role is not None]
    return min(found, key=lambda item: item[1].pool.request) if found else None


def _prompt_roles(dep: Deployment) -> Tuple[Role, ...]:
    return dep.roles_of(PREFILL) if dep.disaggregated else dep.roles_of(UNIFIED)


def engine_text(dep: Deployment, role: Role, value: Val[int]) -> str:
    """"the vllm engine qwen (k8s/qwen.yaml:41:30), whose context is 4,096"."""
    engine = dep.engine.name.value if dep.engine.name is not None else "engine"
    who = f"{role.label} role of {dep.display_name or '(unnamed)'}" if dep.disaggregated else \
        (dep.display_name or "(unnamed)")
    default = " (the engine's default)" if role.context_default is not None else ""
    return f"the {engine} {who} ({at(value.source)}), whose context is {fmt(value.value)}{default}"


def route_text(view: StackView) -> str:
    return f"{view.route.gateway} route {view.route.label}"


def advisories_hit(view: StackView, dep: Deployment, promise: Val[int]) -> List[str]:
    """IDs of the engine advisories the route's promise would trigger on `dep` (its version affected
    or not stated): the engine defects that make an over-long prompt a security problem."""
    from ctxlint.records import replace

    from ctxlint.rules._advisories import triggered
    from ctxlint.versions import parse_version

    promised = replace(dep, advertised=replace(dep.advertised, context_window=promise))
    version = parse_version(dep.engine.version.value) if dep.engine.version is not None else None
    return [a.id for a, _ in triggered(promised) if version is None or a.affects(version)]


def token_caps(view: StackView, exact: bool) -> List:
    return [c for c in view.route.token_caps() if (c.exact and not c.fails_open) == exact]
