"""Deployments of one file from its workloads: prefill-only and decode-only workloads of one
model and engine become one disaggregated deployment; each deployment remembers where its
name, model, engine and roles were written, and unresolved values are reported once.
"""
from __future__ import annotations

import os
from collections import Counter
from typing import Dict, List, Optional, Sequence, Tuple

from ..records import replace
from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.workload import NOT_MEASURED, UNRESOLVED, EngineRole, Workload
from ctxlint.adapters.workload_inputs import ANNOTATED_FORMATS
from ctxlint.findings import Diagnostic
from ctxlint.model import DECODE, PREFILL, UNIFIED, Advertised, Deployment, Engine, Gateway, ModelFacts, Role, Val
from ctxlint.pairing import name_hint


def _kinds(w: Workload) -> set:
    return {r.role.kind for r in w.roles}


def _model_key(w: Workload) -> Optional[Tuple[str, str]]:
    first = w.roles[0]
    return (first.engine.value, first.model.value) if first.model is not None else None


def _by_model(w: Workload) -> List[Workload]:
    """A workload whose script starts engines of different models (a generation and an embedding
    server) as one workload per model: each is its own deployment, named after its model."""
    keys: Dict[Tuple[str, Optional[str]], List] = {}
    for r in w.roles:
        keys.setdefault((r.engine.value, r.model.value if r.model is not None else None), []).append(r)
    if len(keys) < 2:
        return [w]
    out = []
    for (_, model), roles in keys.items():
        name = Val(f"{w.name.value} ({model})", w.name.source) if w.name is not None and model else w.name
        # the part holding the first engine is where the workload is; another starts at its own engine (the audit's
        # line for it: sweep 37's two-model script had both at the first engine's line)
        source = w.source if roles[0] is w.roles[0] else _start(roles[0], w.roles[0])
        out.append(replace(w, name=name, source=source, roles=[_shared(r) for r in roles]))
    return out


def _start(r: EngineRole, first: EngineRole):
    """Where an engine of a workload begins: its container, when that is not the first engine's; else (engines of
    one container or script) its own command, else the engine's image or container."""
    if r.role.source is not None and r.role.source != first.role.source:
        return r.role.source
    return r.command or r.role.source or r.engine.source


def _shared(r):
    """A role whose engine shares the pod's devices with another engine: how many it gets is not
    known unless CUDA_VISIBLE_DEVICES says (workload._Reader.visible)."""
    count = r.role.accelerators.count
    if count is None or str(count.raw).startswith("CUDA_VISIBLE_DEVICES"):
        return r
    return replace(r, role=replace(r.role, accelerators=replace(r.role.accelerators, count=None)))


def deployments_from(file: str, workloads: Sequence[Workload]) -> AdaptResult:
    """Deployments of one file: prefill-only and decode-only workloads of one model are paired."""
    result = AdaptResult()
    if not workloads:  # what most adapters find in a file: nothing (the loops below would make nothing)
        return result
    groups: List[List[Workload]] = []
    pending: Dict[Tuple[str, str], List[Workload]] = {}
    parts = [part for whole in workloads for part in _by_model(whole) if part.roles]
    for w in _one_role_measured(parts, result.diagnostics):
        kinds = _kinds(w)
        key = _model_key(w)
        if key is not None and len(kinds) == 1 and kinds <= {PREFILL, DECODE}:
            if key not in pending:
                pending[key] = []
                groups.append(pending[key])
            pending[key].append(w)
        else:
            groups.append([w])
    for group in groups:
        result.deployments.append(_deployment(file, group, result.diagnostics))
    return result


def _one_role_measured(parts: List[Workload], diagnostics: List[Diagnostic]) -> List[Workload]:
    """A logged pool (ctxlint.io/kv-pool-tokens, available-kv-gib) is one engine's: on a resource that
    runs several engine roles (a Dynamo graph's prefill and decode workers, two engine containers) it
    cannot say whose, so it is applied to none of them, and said."""
    if all(w.measured is NOT_MEASURED for w in parts):
        return parts

    def key(w: Workload):
        m = w.measured
        return tuple(v.source for v in (m.kv_pool_tokens, m.available_kv_gib) if v is not None)

    counts = Counter(key(w) for w in parts for _ in w.roles)
    told = set()
    out = []
    for w in parts:
        k = key(w)
        if k and counts[k] > 1:
            if k not in told:
                told.add(k)
                diagnostics.append(Diagnostic(UNRESOLVED, (
                    f"the pool the engine logged ({', '.join(s.path for s in k)}) is one engine's, but this "
                    f"resource runs {counts[k]} engine roles, each with a pool of its own: it is applied to none of "
                    "them"), k[0],
                    str(w.name.value) if w.name is not None else None))
            w = replace(w, measured=NOT_MEASURED)
        out.append(w)
    return out


def _measured(role: Role, w: Workload) -> Dict[str, Val]:
    """The engine's logged pool (ctxlint.io/kv-pool-tokens, ctxlint.io/available-kv-gib) for the role. A pool
    its flags set is exact (vLLM --num-gpu-blocks-override) or a cap (SGLang --max-total-tokens, TRT-LLM
    max_tokens: the engine takes the least of it and what memory holds), so the least of the two is the
    pool; a KV memory its settings state stays theirs."""
    found: Dict[str, Val] = {}
    logged = w.measured.kv_pool_tokens
    if logged is not None and (role.kv_pool_tokens is None or logged.value < role.kv_pool_tokens.value):
        found["kv_pool_tokens"] = logged
    if w.measured.available_kv_gib is not None and role.available_kv_gib is None:
        found["available_kv_gib"] = w.measured.available_kv_gib
    return found


def _replicas(groups: Optional[Val[int]], pods: Optional[Val[int]]) -> Optional[Val[int]]:
    """The workload's replicas, times the servers in each of its groups when its pods serve alone (a
    LeaderWorkerSet whose SGLang pods state no --nnodes: workload_devices.pods_alone)."""
    if pods is None:
        return groups
    n = groups.value if groups is not None else 1
    return Val(n * pods.value, (groups or pods).source, raw=f"{n} x {pods.raw}")


_NO_PROMISE, _NO_GATEWAY = Advertised(), Gateway()  # frozen: what a workload states none of, made once


def _deployment(file: str, group: List[Workload], diagnostics: List[Diagnostic]) -> Deployment:
    head = group[0]
    names = [w.name for w in group if w.name is not None]
    name = Val(" + ".join(str(n.value) for n in names), names[0].source) if len(names) > 1 else \
        (names[0] if names else None)  # a workload with no readable metadata.name has none
    pairs = [(w, r) for w in group for r in w.roles]
    roles: List[Role] = [replace(r.role, replicas=_replicas(w.replicas, r.role.replicas), name=role_name,
                                 **_measured(r.role, w)) for (w, r), role_name in zip(pairs, _role_names(file, pairs))]
    first = head.roles[0]
    model = next((r.model for w in group for r in w.roles if r.model is not None), None)
    version = next((r.version for w in group for r in w.roles if r.version is not None), None)
    marker = next((r.role for r in roles if r.kind in (PREFILL, DECODE)), None)
    display = str(name.value) if name is not None else None
    unresolved = [u for w in group for r in w.roles for u in r.unresolved]
    if unresolved and display is not None and any(d.kind == UNRESOLVED and d.source == unresolved[0][1]
                                                  for d in diagnostics):
        unresolved = []  # the same script read once per SkyPilot accelerator option: say it once
    if unresolved:
        listed = "; ".join(dict.fromkeys(text for text, _ in unresolved))
        fmt = head.input_format
        # annotations only where the format has them (compose: labels); a script, SkyPilot, Truss or Akash file has none
        how = "" if fmt not in ANNOTATED_FORMATS else \
            f", or state the limits with ctxlint.io/* {'labels' if fmt == 'compose' else 'annotations'}"
        diagnostics.append(Diagnostic(UNRESOLVED, f"values ctxlint cannot resolve: {listed}; the checks that need "
                                      f"them are skipped (set them literally{how})", unresolved[0][1], display))
    return Deployment(
        file=file, source=head.source, input_format=head.input_format, name=name,
        model=ModelFacts(id=model, stated_format=head.roles[0].stated_format),
        advertised=next((w.advertised for w in group if w.advertised != _NO_PROMISE), _NO_PROMISE),
        gateway=next((w.gateway for w in group if w.gateway != _NO_GATEWAY), _NO_GATEWAY),
        engine=Engine(name=first.engine, version=version, release_unknown=None if version is not None else next(
            (r.release_unknown for w in group for r in w.roles if r.release_unknown is not None), None),
            build=None if version is not None else next(
                (r.build for w in group for r in w.roles if r.build is not None), None)),
        disaggregation=Val("prefill-decode", marker.source) if marker is not None else None,
        roles=tuple(roles), labels=head.labels, pod_labels=head.pod_labels,
        service_names=tuple(dict.fromkeys(n for w in group for n in w.service_names)))


def _role_names(file: str, pairs: List[Tuple[Workload, EngineRole]]) -> List[str]:
    """How messages name each role (Role.name): by its kind alone when no other role has it ("" then); else
    by container, else by workload; and by where its engine command starts when that still names several
    alike (the two branches of an if/else in one script were 'unified (serve), unified (serve)': sweep 27)."""
    kinds = Counter(r.role.kind for _, r in pairs)
    labels = [(r.role.name if len(w.roles) > 1 and r.role.name else (str(w.name.value) if w.name else ""))
              if kinds[r.role.kind] > 1 else "" for w, r in pairs]
    alike = Counter((r.role.kind, label) for (_, r), label in zip(pairs, labels))
    starts = [r.command or r.engine.source for _, r in pairs]  # its program, else the image that runs it
    names = []
    for (_, r), label, where in zip(pairs, labels, starts):
        kind = r.role.kind
        if alike[(kind, label)] < 2:
            names.append(f"{kind} ({label})" if label else "")
            continue
        # the container or workload still tells this role from others of its kind when some differ in it
        telling = label and alike[(kind, label)] < kinds[kind]
        twins = sum(1 for (_, o), other, at in zip(pairs, labels, starts)
                    if (o.role.kind, other, at.file, at.line) == (kind, label, where.file, where.line))
        at = f"line {where.line}" + (f", column {where.col}" if twins > 1 else "")  # `a & b` on one line
        at = at if where.file == file else f"{os.path.basename(where.file)}, {at}"
        names.append(f"{kind} ({label}, {at})" if telling else f"{kind} ({at})")
    return names


def _kv_both(w: Workload) -> bool:
    kv = [r.role.arg("kv_transfer_config") for r in w.roles]
    return all(k is not None and isinstance(k.value, dict) and k.value.get("kv_role") == "kv_both" for k in kv)


def named_halves(workloads: List[Workload]) -> List[Workload]:
    """Unified workloads whose name or `llm-d.ai/role`/`role` label says prefill or decode
    (pairing.name_hint) take that role when their vLLM `--kv-transfer-config` is `kv_both`
    (a KV connector that both sends and receives: the name says which half), or when the
    other half of the same model and engine is in this file (cross-file: pairing.py)."""
    def key(w: Workload):
        first = w.roles[0]
        return (first.engine.value, str(first.model.value).lower()) if first.model is not None else None

    hints = {}
    for w in workloads:
        unified = w.roles and all(r.role.kind == UNIFIED for r in w.roles)
        hint = name_hint(str(w.name.value) if w.name is not None else None, w.labels) if unified else None
        if hint is not None:
            hints[id(w)] = hint
    present = {(key(w), r.role.kind) for w in workloads for r in w.roles if r.role.kind in (PREFILL, DECODE)}
    present |= {(key(w), hints[id(w)][0]) for w in workloads if id(w) in hints}
    out = []
    for w in workloads:
        hint = hints.get(id(w))
        other = DECODE if hint is not None and hint[0] == PREFILL else PREFILL
        if hint is not None and (_kv_both(w) or (key(w) is not None and (key(w), other) in present)):
            where = w.name.source if w.name is not None else w.source
            role = Val(hint[0], where, raw=hint[1])
            w = replace(w, roles=[replace(r, role=replace(r.role, role=role)) for r in w.roles])
        out.append(w)
    return out
