"""The capacity stage: give every role the KV pool its replicas actually get.

Declared pools (`kv_pool_tokens`) are taken as written. For roles without one,
the pool is derived from the model's architecture, the accelerators, the
parallelism, the KV dtype and the engine's memory settings (ctxlint.physics),
and marked "derived" with its arithmetic. The physics result is kept on every
role that has enough facts, so the CTX2xx rules can hold declared values
against the hardware too.
"""
from __future__ import annotations

import json
import os
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Tuple

from ctxlint.findings import Diagnostic
from ctxlint.model import Deployment, Pool, Role, Source, Val, fmt

if TYPE_CHECKING:  # the physics modules are imported when a deployment needs them
    from ctxlint.physics.models import ModelArch

NOT_DERIVABLE, PARSE_ERROR = "capacity-not-derivable", "parse-error"
GIB = 2**30
_ENGINES = {"vllm", "sglang", "tgi", "trtllm", "llamacpp", "lmdeploy"}


def with_pools(dep: Deployment, models: Optional[Mapping[str, Mapping[str, Any]]] = None,
               ) -> Tuple[Deployment, List[Diagnostic]]:
    """`models`: user-defined architectures by model id (from the config), used before the catalog."""
    diagnostics: List[Diagnostic] = []
    arch = _resolve_arch(dep, diagnostics, models or {})
    roles = tuple(_role(dep, role, arch) for role in dep.roles)
    dep = replace(dep, roles=roles, arch=arch)
    missing = [r for r in roles if r.pool is None]
    if missing:
        diagnostics.append(_why_not_derived(dep, arch, missing))
    if arch is not None and dep.model.max_position_embeddings is None and arch.rope_scaling_type is None \
            and arch.max_position_embeddings and dep.model.id is not None:
        # Trained positions from the catalog, only for models without RoPE scaling, whose
        # config value is the served limit (scaled models need the engine's own derivation).
        trained = Val(arch.max_position_embeddings, dep.model.id.source)
        dep = replace(dep, model=replace(dep.model, max_position_embeddings=trained))
    return dep, diagnostics


def _resolve_arch(dep: Deployment, diagnostics: List[Diagnostic],
                  models: Mapping[str, Mapping[str, Any]]) -> Optional[ModelArch]:
    from ctxlint.physics.models import arch_from_mapping, lookup_model, with_overrides

    facts = dep.model
    arch = lookup_model(facts.id.value) if facts.id is not None else None
    if facts.id is not None and str(facts.id.value) in models:
        try:
            arch = arch_from_mapping({"name": str(facts.id.value), **models[str(facts.id.value)]})
        except (TypeError, ValueError, KeyError):
            pass  # incomplete facts in the config: the catalog's (or none) stand
    if facts.config_path is not None:
        arch = _from_config_file(dep, facts.config_path, diagnostics) or arch
    inline = {key: val.value for key, val in facts.architecture}
    if inline:
        try:
            arch = with_overrides(arch, inline) if arch is not None else arch_from_mapping(
                {"name": facts.id.value if facts.id else dep.display_name or "model", **inline})
        except (TypeError, ValueError, KeyError):
            arch = arch  # incomplete inline facts: reported below as not derivable
    return arch


def _from_config_file(dep: Deployment, path: Val[str], diagnostics: List[Diagnostic]) -> Optional[ModelArch]:
    from ctxlint.physics.hf_config import arch_from_hf_config

    base = os.path.dirname(dep.file) if dep.file not in ("-", "") else os.getcwd()
    full = os.path.join(base, path.value)
    try:
        with open(full, encoding="utf-8") as handle:
            config = json.load(handle)
        return arch_from_hf_config(config, name=path.value)
    except (OSError, UnicodeDecodeError) as exc:
        problem = f"cannot read {path.value}: {getattr(exc, 'strerror', None) or exc}"
    except json.JSONDecodeError as exc:
        problem = f"{path.value} is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
    except (ValueError, TypeError, KeyError) as exc:
        problem = f"{path.value} lacks the architecture facts ctxlint needs: {exc}"
    diagnostics.append(Diagnostic(PARSE_ERROR, f"spec.model.config: {problem}", path.source, dep.display_name))
    return None


def _role(dep: Deployment, role: Role, arch: Optional[ModelArch]) -> Role:
    pool = None
    if role.kv_pool_tokens is not None:
        pool = Pool(role.kv_pool_tokens.value, role.kv_pool_tokens.source, "declared")
    result = _estimate(dep, role, arch)
    if pool is None and result is not None and result.pool_tokens:
        where = role.accelerators.type or role.available_kv_gib or role.accelerators.count
        pool = Pool(result.pool_tokens, where.source if where else (role.source or dep.source), "derived",
                    _explain(role, result))
    return replace(role, pool=pool, capacity=result)


def _estimate(dep: Deployment, role: Role, arch: Optional[ModelArch]):
    from ctxlint.physics.capacity import CapacityInput, estimate

    engine = dep.engine.name.value if dep.engine.name is not None else None
    if arch is None or engine not in _ENGINES:
        return None
    if role.accelerators.type is None and role.available_kv_gib is None:
        return None
    par = role.parallelism
    context = role.context_length or dep.advertised.context_window
    settings: Dict[str, Any] = {key: val.value for key, val in role.engine_args}
    return estimate(CapacityInput(
        arch=arch, engine=engine,
        accelerator=role.accelerators.type.value if role.accelerators.type else None,
        accelerator_count=role.accelerators.count.value if role.accelerators.count else None,
        tp=par.tp, pp=par.pp, dp=par.dp,
        kv_cache_dtype=role.kv_cache_dtype.value if role.kv_cache_dtype else "auto",
        settings=settings,
        available_kv_bytes=role.available_kv_gib.value * GIB if role.available_kv_gib else None,
        context_length=context.value if context else None,
        draft_layers=role.draft_layers.value if role.draft_layers else 0,
        extra_accelerators=dict(dep.custom_accelerators) or None,
    ))


def _explain(role: Role, result) -> str:
    """One line of arithmetic for messages: budget / bytes per token = tokens."""
    steps = {label: (formula, value) for label, formula, value in result.steps}
    where = f"{role.accelerators.count.value if role.accelerators.count else 1}x {result.accelerator}" \
        if result.accelerator else "the logged KV budget"
    budget = steps.get("KV budget", ("", result.kv_budget_bytes_per_gpu))
    per_token = result.kv_bytes_per_token_per_gpu
    return (f"derived for {result.model} on {where}, {result.engine}: KV budget per GPU "
            f"{(budget[1] or 0) / GIB:.2f} GiB ({budget[0] or 'as logged'}) / {fmt(int(per_token or 0))} B "
            f"per token per GPU = {fmt(result.pool_tokens)} tokens")


def _why_not_derived(dep: Deployment, arch: Optional[ModelArch], roles: List[Role]) -> Diagnostic:
    labels = ", ".join(r.label for r in roles)
    engine = dep.engine.name.value if dep.engine.name is not None else None
    source: Source = dep.model.id.source if dep.model.id is not None else dep.source
    if arch is None:
        model = f"model '{dep.model.id.value}' is not in the built-in catalog" if dep.model.id else "no model id"
        where = "spec.model.config or spec.model.architecture" if dep.input_format == "native" else \
            "add the model under `models:` in .ctxlint.yaml"
        why = f"{model} and no architecture facts are given ({where})"
    elif engine not in _ENGINES:
        why = f"the engine is {engine or 'not set'} (derivation needs vllm, sglang, tgi, trtllm, llamacpp or lmdeploy)"
        source = dep.engine.name.source if dep.engine.name is not None else source
    else:
        unknown = [r for r in roles if r.capacity is not None and r.capacity.errors]
        if unknown:
            why = "; ".join(unknown[0].capacity.errors)
            source = unknown[0].accelerators.type.source if unknown[0].accelerators.type else source
        else:
            why = "no accelerator type (or available_kv_gib) is given"
            source = roles[0].source or source
    return Diagnostic(NOT_DERIVABLE, f"KV pool of {labels} not declared and not derivable: {why}; "
                                     "capacity checks skip these roles", source, dep.display_name)
