"""Silogen ai-workloads' values: the `vllm_engine_args` / `sglang_server_args` / `tgi_engine_args` mappings
rendered as `--key value`, `model`, `gpus` (also the tensor-parallel size / shard count the chart derives from it),
and the llama.cpp chart's `env_vars` MODEL and CTX_SIZE. Apart from helm_values, which reads the other serving
charts, because few values files are Silogen's: helm_values._silogen imports this module only when one of the keys
read here is there (issue 15)."""
from __future__ import annotations

import re
from typing import List, Optional

from ..records import replace
from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.crd_common import clone, int_val, str_val
from ctxlint.adapters.helm_values import _SILOGEN, _read, _workload, flag_items
from ctxlint.adapters.scalar_spans import ScalarSpans
from ctxlint.adapters.workload import EngineRole, EnvVar, Workload, env_from_mapping
from ctxlint.model import Val
from ctxlint.nodes import MAP, Node


def read(root: Node, spans: ScalarSpans, result: AdaptResult, chart: str) -> List[Workload]:
    """The workloads a Silogen chart renders from its values (helm_values._silogen asks, `chart` as there)."""
    file = spans.file
    gpus = int_val(root.get("gpus"), file)
    env_vars = root.get("env_vars")
    env = [EnvVar(v.name, v.value, v.node) for v in env_from_mapping(env_vars)]
    chart = re.search(r"llm-inference-(vllm|sglang|tgi)", chart)  # an override file: its chart's folder
    for key, engine, parallel in _SILOGEN:
        if key not in root.value and not (chart and chart.group(1) == engine and root.get("memory_per_gpu")
                                          and root.get("gpus")):
            continue
        items = ([root.get("model")] if engine == "vllm" and str_val(root.get("model"), file) else []) + \
            flag_items(root.get(key), rename=lambda k: k)
        where = root.keys.get(key) or root.keys["gpus"]
        roles = _read(spans, root, engine, items, Val(engine, where.source(file), raw=key), result,
                      env=env, count=gpus)
        model = str_val(root.get("model"), file)
        roles = [_with_gpus(r, gpus, parallel, model) for r in roles]
        return _workload(None, root, roles, file, label=str(model.value) if model else engine)
    ctx = env_vars.get("CTX_SIZE") if env_vars is not None and env_vars.kind == MAP else None
    model = str_val(env_vars.get("MODEL"), file) if env_vars is not None and env_vars.kind == MAP else None
    if ctx is None or model is None:
        return []
    flag = clone(env_vars.keys["CTX_SIZE"], value="--ctx-size")
    roles = _read(spans, root, "llama-server", [flag, ctx], Val("llamacpp", model.source, raw="llama.cpp chart"),
                  result, count=gpus)
    roles = [r if r.model is not None else replace(r, model=model) for r in roles]
    return _workload(None, root, roles, file, label=str(model.value))


def _with_gpus(r: EngineRole, gpus: Optional[Val[int]], parallel: str, model: Optional[Val[str]]) -> EngineRole:
    """The Silogen charts set the tensor-parallel size (TGI: shards) to `gpus` unless the args do."""
    role = r.role
    if gpus is not None and gpus.value > 0 and role.parallelism.tensor is None:
        role = replace(role, parallelism=replace(role.parallelism, tensor=gpus))
    return replace(r, role=role, model=r.model or model)
