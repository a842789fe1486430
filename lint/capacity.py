"""The capacity stage: give every role the KV pool its replicas actually get.

Declared pools (`kv_pool_tokens`) are taken as written. Roles with no declared
pool keep `pool=None` and the capacity rules skip them.
"""
from __future__ import annotations

from dataclasses import replace

from ctxlint.model import Deployment, Pool, Role


def with_pools(dep: Deployment) -> Deployment:
    return replace(dep, roles=tuple(_role_pool(role) for role in dep.roles))


def _role_pool(role: Role) -> Role:
    if role.kv_pool_tokens is not None:
        pool = Pool(role.kv_pool_tokens.value, role.kv_pool_tokens.source, "declared")
        return replace(role, pool=pool)
    return role
