"""Pair prefill and decode workloads written in different files of one directory.

A kustomize base or a rendered Helm chart often keeps the prefill and the decode
workloads of one model in separate files. Each file alone adapts into a
deployment with only prefill or only decode roles; the rules about disaggregated
serving (the prefill pool against the prompts that reach it, roles that
disagree) need both halves. Here such halves that serve the same model with the
same engine become one disaggregated deployment, placed with the first half.

Native manifests state their roles themselves and are never paired. A unified
Kubernetes workload whose name or `llm-d.ai/role` / `role` label says prefill or
decode (`name_hint`) is taken as that half when the other half of the same model
and engine is there too (a name alone never makes a lone workload a half).
"""
from __future__ import annotations

import re
from typing import Dict, List, Optional, Sequence, Tuple

from .records import replace
from ctxlint.model import DECODE, PREFILL, UNIFIED, Deployment, Val

Key = Tuple[str, str]
ROLE_LABELS = ("llm-d.ai/role", "role")


def name_hint(name: Optional[str], labels: Sequence[Tuple[str, str]] = ()) -> Optional[Tuple[str, str]]:
    """(PREFILL or DECODE, what said so) from a role label, else from a word of the name
    (`wide-ep-prefill`, `qwen_decode`); None when neither or both are named."""
    for key, value in labels:
        if key in ROLE_LABELS and str(value).strip().lower() in (PREFILL, DECODE):
            return str(value).strip().lower(), f"label {key}: {value}"
    words = set(re.split(r"[^a-z0-9]+", (name or "").lower()))
    found = [kind for kind in (PREFILL, DECODE) if kind in words]
    return (found[0], f"name {name}") if len(found) == 1 else None


def hinted(dep: Deployment) -> Optional[str]:
    """PREFILL or DECODE for a unified Kubernetes deployment whose name or labels say so."""
    if dep.input_format != "kubernetes" or dep.model.id is None or not dep.roles or \
            any(r.kind != UNIFIED for r in dep.roles):
        return None
    hint = name_hint(dep.display_name, dep.labels)
    return hint[0] if hint is not None else None


def as_half(dep: Deployment, kind: str) -> Deployment:
    """The deployment with its unified roles as `kind`, marked at its name."""
    why = name_hint(dep.display_name, dep.labels)
    where = dep.name.source if dep.name is not None else dep.source
    role = Val(kind, where, raw=why[1] if why else kind)
    return replace(dep, roles=tuple(replace(r, role=role) for r in dep.roles),
                   disaggregation=Val("prefill-decode", where))


def half(dep: Deployment) -> Optional[str]:
    """PREFILL or DECODE when `dep` holds only roles of that kind, else None."""
    kinds = {role.kind for role in dep.roles}
    return next(iter(kinds)) if len(kinds) == 1 and kinds <= {PREFILL, DECODE} else None


def _key(dep: Deployment) -> Optional[Key]:
    if dep.input_format == "native" or dep.model.id is None or half(dep) is None:
        return None
    model = str(dep.model.id.value).strip().rstrip("/").lower()
    engine = str(dep.engine.name.value).lower() if dep.engine.name is not None else ""
    return model, engine


def pair_across_files(per_file: Sequence[List[Deployment]]) -> List[List[Deployment]]:
    """The same lists with cross-file halves merged; the merged deployment replaces the first prefill half."""
    per_file = _with_named_halves(per_file)
    halves: Dict[Key, List[Tuple[int, Deployment]]] = {}
    for index, deployments in enumerate(per_file):
        for dep in deployments:
            key = _key(dep)
            if key is not None:
                halves.setdefault(key, []).append((index, dep))
    out = [list(deployments) for deployments in per_file]
    for members in halves.values():
        files = {index for index, _ in members}
        kinds = {half(dep) for _, dep in members}
        if len(files) < 2 or kinds != {PREFILL, DECODE}:
            continue  # both halves in one file are the adapter's to pair; one kind alone stays as is
        members = sorted(members, key=lambda m: half(m[1]) != PREFILL)  # stable: prefill halves first
        merged = merge([dep for _, dep in members])
        first_index, first = members[0]
        for index, dep in members:
            out[index] = [d for d in out[index] if d is not dep]
        position = per_file[first_index].index(first)
        out[first_index].insert(min(position, len(out[first_index])), merged)
    return out


def _with_named_halves(per_file: Sequence[List[Deployment]]) -> List[List[Deployment]]:
    """Named halves (`hinted`) become halves when a half of the other kind, named or stated by
    the engine, serves the same model with the same engine in another file of the group."""
    kinds: Dict[Key, Dict[str, set]] = {}
    for index, deployments in enumerate(per_file):
        for dep in deployments:
            kind = half(dep) or hinted(dep)
            key = _key(dep) if half(dep) else _hint_key(dep) if kind else None
            if key is not None:
                kinds.setdefault(key, {}).setdefault(kind, set()).add(index)
    out = []
    for index, deployments in enumerate(per_file):
        row = []
        for dep in deployments:
            kind = hinted(dep)
            if kind is not None:
                other = kinds.get(_hint_key(dep), {}).get(DECODE if kind == PREFILL else PREFILL, set())
                if other - {index}:
                    dep = as_half(dep, kind)
            row.append(dep)
        out.append(row)
    return out


def pair_key(dep: Deployment) -> Optional[Key]:
    """(model, engine): what two halves must share to be paired, None without a model id."""
    return _hint_key(dep)


def _hint_key(dep: Deployment) -> Optional[Key]:
    if dep.model.id is None:
        return None
    engine = str(dep.engine.name.value).lower() if dep.engine.name is not None else ""
    return str(dep.model.id.value).strip().rstrip("/").lower(), engine


def merge(halves: Sequence[Deployment]) -> Deployment:
    """One disaggregated deployment from prefill-only and decode-only ones (in file order)."""
    base = halves[0]
    roles = tuple(role for kind in (PREFILL, DECODE) for dep in halves for role in dep.roles if role.kind == kind)
    names = [dep.display_name for dep in halves if dep.display_name]
    name = base.name
    if name is not None and len(set(names)) > 1:
        name = Val(" + ".join(dict.fromkeys(names)), base.name.source)
    return replace(
        base,
        name=name,
        roles=_distinct_labels(roles, halves),
        disaggregation=base.disaggregation or Val("prefill-decode", base.source),
        advertised=_first(halves, lambda d: d.advertised, lambda a: a.context_window is not None
                          or a.max_output_tokens is not None),
        gateway=_first(halves, lambda d: d.gateway, lambda g: g.max_prompt_tokens is not None),
        engine=_first(halves, lambda d: d.engine, lambda e: e.version is not None),
        labels=tuple(dict.fromkeys(label for dep in halves for label in dep.labels)),
        pod_labels=tuple(dict.fromkeys(label for dep in halves for label in dep.pod_labels)),
        service_names=tuple(dict.fromkeys(n for dep in halves for n in dep.service_names)),
    )


def _first(halves, get, present):
    return next((get(dep) for dep in halves if present(get(dep))), get(halves[0]))


def _distinct_labels(roles, halves) -> tuple:
    """Roles from different files may share a label ('prefill'): name them by their file."""
    import os

    labels = [role.label for role in roles]
    if len(set(labels)) == len(labels):
        return roles
    out = []
    for role in roles:
        where = os.path.basename(role.source.file) if role.source is not None else ""
        out.append(replace(role, name=f"{role.label} ({where})" if where else role.label))
    return tuple(out)
