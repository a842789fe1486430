"""Helm values files of the serving charts, recognised by their shape.

The chart templates turn these values into engine flags; this adapter does
the same, with every value pointing at the values file:

- vLLM production-stack: `servingEngineSpec.modelSpec[]` (helm_production_stack.py,
  imported for such values only), its `vllmConfig` keys rendered as flags by
  flag_items (`maxModelLen` -> `--max-model-len`, camelCase -> kebab-case;
  booleans only when true).
- KubeAI models chart: `catalog.<name>` entries, each read like a KubeAI
  Model (crds_kubeai), enabled or not; the deployment is named by its key.
- llm-d deployer: `sampleApplication` with `model.modelArtifactURI`,
  shared `resources`, and `prefill`/`decode` sections with `replicas` and
  `extraArgs` (vLLM flags). The chart renders both sections always, so an
  override file without them (quickstart pd-nixl) is prefill + decode with
  the chart's defaults (replicas and GPUs not stated in the file: unknown).
- Silogen ai-workloads: `vllm_engine_args` / `sglang_server_args` /
  `tgi_engine_args` mappings rendered as `--key value`, `model`, `gpus`
  (also the tensor-parallel size / shard count the chart derives from it),
  and the llama.cpp chart's `env_vars` MODEL and CTX_SIZE; an override file
  with only `model`/`gpus`/`memory_per_gpu` takes its engine from its
  chart's folder (`workloads/llm-inference-vllm/...`) (silogen_values.py).
- SGLang LeaderWorkerSet P/D chart: `global.model` and the `prefill`/
  `decode` sections' `config` (camelCase -> `--kebab-case` flags),
  `leaderWorkerSet.size` pods per instance and the leader's GPU limits.

Operator and router values (KubeAI `resourceProfiles`, llm-d router) hold
no engine settings and yield nothing. Values of a chart none of these is
(a chart of the deployment's own) are read only for an engine command line
they hold whole (values_commands.py), in files named as values.
"""
from __future__ import annotations

import re
from importlib import import_module
from typing import Iterable, List, Optional, Tuple

from ..records import replace
from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.crd_common import clone, int_val, scalar, seq
from ctxlint.adapters.crds_kubeai import model_id, model_workload
from ctxlint.adapters.hardware import count_from_resources, type_from_labels
from ctxlint.adapters.scalar_spans import ScalarSpans
from ctxlint.adapters.values_shapes import (has_known_keys, is_app_template, is_modelservice, is_ollama_chart,
                                            is_production_stack)
from ctxlint.adapters.workload import Container, EngineRole, Workload, read_container
from ctxlint.adapters.workload_groups import deployments_from
from ctxlint.loader import LoadedFile
from ctxlint.model import DECODE, PREFILL, UNIFIED, Val
from ctxlint.nodes import MAP, SCALAR, SEQ, Node
from ctxlint.templates import is_values_file

NAME = "helm-values"


def kebab(key: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"-\1", key).replace("_", "-").lower()


def flag_items(mapping: Optional[Node], rename=kebab, skip: Iterable[str] = ()) -> List[Node]:
    """A `key: value` mapping as the chart renders it: `--key value` items (a true boolean: `--key`).

    The flag item is the key's node (its text made `--key`, so positions fall back to the key);
    the value item is the value node itself, so findings point at the value as written.
    """
    items: List[Node] = []
    for key, value in mapping.value.items() if mapping is not None and mapping.kind == MAP else ():
        if not isinstance(key, str) or key in skip or value.kind != SCALAR:
            continue
        flag = clone(mapping.keys[key], value="--" + rename(key))
        if value.value is True or value.value is None:
            items.append(flag)
        elif value.value is not False:
            items.extend((flag, value))
    return items


def _seq(items: List[Node], anchor: Node) -> Node:
    return clone(anchor, kind=SEQ, value=items, keys={})


def adapt(loaded: LoadedFile) -> AdaptResult:
    result = AdaptResult()
    if len(loaded.documents) != 1 or loaded.documents[0].root.kind != MAP:
        return result
    root = loaded.documents[0].root
    if root.get("apiVersion") is not None and root.get("kind") is not None:
        return result  # a Kubernetes object, not values
    spans = ScalarSpans(loaded.path, loaded.text)
    result.extend(deployments_from(loaded.path, read_values(root, spans, result,
                                                            commands=is_values_file(loaded.path))))
    return result


def read_values(root: Node, spans: ScalarSpans, result: AdaptResult, chart: str = "",
                commands: bool = True) -> List[Workload]:
    """The workloads the serving charts render from one mapping of values (a values file's, or the inline
    values of a Flux HelmRelease or Argo CD Application: adapters/gitops.py). `chart`: where the chart
    comes from when something names it (the release's chart name or path), else the values file's path.
    `commands`: values no known chart claims may hold an engine's command line (values_commands.py); false
    for a YAML file not named as values, which may be anything (a CI workflow's `run:`)."""
    workloads: List[Workload] = []
    for reader in (_kubeai_catalog, _llmd_deployer, _silogen, _sglang_lws):
        workloads.extend(reader(root, spans, result, chart or spans.file) if reader is _silogen
                         else reader(root, spans, result))
    claimed = False
    for name, test in _OWN_MODULES:  # charts read in modules of their own, imported for their values only
        if test(root):
            claimed = True
            workloads.extend(import_module(f"ctxlint.adapters.{name}").read(root, spans, result, NAME))
    if commands and not workloads and not claimed and not has_known_keys(root):
        workloads.extend(import_module("ctxlint.adapters.values_commands").read(root, spans, result, NAME))
    return workloads


_OWN_MODULES = (("helm_production_stack", is_production_stack), ("helm_modelservice", is_modelservice),
                ("app_template", is_app_template), ("unmodelled", is_ollama_chart))


def _read(spans: ScalarSpans, node: Node, name: str, items: List[Node], engine: Val[str], result: AdaptResult,
          env=(), count: Optional[Val[int]] = None, kind: Optional[Val[str]] = None, group_pods: int = 1,
          image: Optional[Node] = None, image_text: Optional[str] = None) -> List[EngineRole]:
    reading = read_container(Container(
        spans=spans, node=node, name=name, args=_seq(items, node) if items else None, env=env, args_only=True,
        engine=engine, accelerator_count=count, accelerator_type=kind, group_pods=group_pods, image=image,
        image_text=image_text))
    result.diagnostics.extend(reading.diagnostics)
    return reading.roles


def _marked(roles: List[EngineRole], kind: Optional[str], where: Optional[Node], file: str) -> List[EngineRole]:
    if kind not in (PREFILL, DECODE) or where is None:
        return roles
    return [r if r.role.kind != UNIFIED else replace(r, role=replace(r.role, role=Val(kind, where.source(file))))
            for r in roles]


def _workload(name: Optional[Node], node: Node, roles: List[EngineRole], file: str,
              replicas: Optional[Node] = None, label: str = "") -> List[Workload]:
    if not roles:
        return []
    text = label or (str(name.value) if name is not None and name.kind == SCALAR else "")
    val = Val(text, (name or node).source(file)) if text else None
    return [Workload(name=val, source=node.source(file), input_format=NAME, roles=roles,
                     replicas=int_val(replicas, file))]


# -- KubeAI models chart ----------------------------------------------------------------------------------
def _kubeai_catalog(root: Node, spans: ScalarSpans, result: AdaptResult) -> List[Workload]:
    catalog = root.get("catalog")
    out = []
    for key, entry in catalog.value.items() if catalog is not None and catalog.kind == MAP else ():
        if entry.kind != MAP or entry.get("engine") is None:
            continue
        name = Val(str(key), catalog.keys[key].source(spans.file))
        w = model_workload(entry, name, entry.source(spans.file), spans, result, NAME,
                           labels=(("enabled", str(scalar(entry.get("enabled")) is True).lower()),))
        out += [w] if w is not None else []
    return out


# -- llm-d deployer ---------------------------------------------------------------------------------------
def _llmd_deployer(root: Node, spans: ScalarSpans, result: AdaptResult) -> List[Workload]:
    app = root.get("sampleApplication")
    if app is None or app.kind != MAP:
        return []
    file, out = spans.file, []
    uri = app.dig("model", "modelArtifactURI")
    model = _artifact(uri, file)
    count = count_from_resources(app.get("resources"), file)
    # The chart's ModelService template always renders both sections; an override file that
    # leaves them out gets the chart's defaults (no extra args), placed at `sampleApplication`.
    defaults = model is not None and not any(app.get(s) is not None for s in ("prefill", "decode"))
    for section in ("prefill", "decode"):
        part = app.get(section)
        if defaults:
            part = clone(app, keys={}, value={})
        elif part is None or part.kind != MAP:
            continue
        where = app.keys.get(section) or root.keys["sampleApplication"]
        roles = _read(spans, part, section, seq(part.get("extraArgs")),
                      Val("vllm", where.source(file), raw="llm-d sampleApplication"), result, count=count)
        roles = _marked(roles, section, where, file)
        roles = [r if r.model is not None or model is None else replace(r, model=model) for r in roles]
        name = scalar(app.dig("model", "modelName")) or "sampleApplication"
        out += _workload(None, part, roles, file, part.get("replicas"), label=f"{name}/{section}")
    return out


def _artifact(uri: Optional[Node], file: str) -> Optional[Val[str]]:
    """`hf://org/name` or `pvc://<claim>/org/name` -> org/name (the model's id as far as the path says)."""
    text = scalar(uri)
    if not isinstance(text, str):
        return None
    if text.startswith("pvc://"):
        parts = text[len("pvc://"):].strip("/").split("/")
        return Val("/".join(parts[-2:]), uri.source(file), raw=text) if len(parts) >= 3 else None
    return model_id(uri, file)


# -- Silogen ai-workloads ---------------------------------------------------------------------------------
_SILOGEN = (("vllm_engine_args", "vllm", "tensor_parallel_size"), ("sglang_server_args", "sglang", "tp_size"),
            ("tgi_engine_args", "tgi", "num_shard"))


def _silogen(root: Node, spans: ScalarSpans, result: AdaptResult, chart: str) -> List[Workload]:
    """The Silogen charts' values (silogen_values.py), read only when a key they are read by is there: most values
    files are none of theirs, and a run with none never loads that module (issue 15)."""
    if not (any(key in root.value for key, _, _ in _SILOGEN) or root.get("memory_per_gpu") is not None
            or root.get("env_vars") is not None):
        return []
    from ctxlint.adapters.silogen_values import read

    return read(root, spans, result, chart)


# -- SGLang LeaderWorkerSet P/D chart ---------------------------------------------------------------------
def _sglang_lws(root: Node, spans: ScalarSpans, result: AdaptResult) -> List[Workload]:
    file, out = spans.file, []
    model = root.dig("global", "model")
    if model is None or model.kind != MAP:
        return []
    for section in ("prefill", "decode"):
        part = root.get(section)
        if part is None or part.kind != MAP or part.get("config") is None or scalar(part.get("enabled")) is False:
            continue
        items = flag_items(model, skip=("path",)) + flag_items(part.get("config"), skip=("port", "host"))
        path = model.get("path")
        items = ([clone(model.keys["path"], value="--model-path"), path] if path is not None else []) + items
        size = int_val(part.dig("leaderWorkerSet", "size"), file)
        roles = _read(spans, part, section, items,
                      Val("sglang", root.keys[section].source(file), raw="sglang-leaderworkerset chart"), result,
                      count=count_from_resources(part.dig("leader", "resources"), file),
                      kind=type_from_labels(root.dig("global", "nodeSelector"), file),
                      group_pods=size.value if size is not None and size.value > 0 else 1)
        roles = _marked(roles, section, root.keys.get(section), file)
        out += _workload(None, part, roles, file, part.dig("leaderWorkerSet", "replicas"),
                         label=f"{scalar(root.dig('global', 'namePrefix')) or 'sglang'}/{section}")
    return out


__all__: Tuple[str, ...] = ("NAME", "adapt", "flag_items", "kebab", "read_values")
