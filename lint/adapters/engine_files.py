"""Files that are an engine's own configuration rather than a workload:

* llama-swap (`models: {name: {cmd: "llama-server ...", env: ["K=V"]}}`): every model's
  `cmd` is a command line (llama_swap.py, imported only for such a file);
* the TensorRT-LLM disaggregated server config given to `trtllm-serve disaggregated -c`
  (`model`, shared LLM-API options, `context_servers` and `generation_servers` each with
  `num_instances` and their own options): the context servers are the prefill role and
  the generation servers the decode role of one disaggregated deployment;
* a complete `vllm serve --config` / `sglang.launch_server --config` file (`model:` or
  SGLang's `model-path:`, plus the engine's own flag names as keys, e.g. runpod's
  worker-vllm configs): one unified role, or the role its `kv-transfer-config` /
  `disaggregation-mode` says. The engine is told by keys only one of them has
  (`max-model-len` vs `context-length`, ...); a file with no model, or with keys of both,
  is left alone, and so is one with two or more keys of SGLang's benchmark scripts
  (`run-name`, `batch-size`, `input-len`: a `bench_one_batch` argument file, whose server keys
  are no launch). Such a file that a workload also names with `--config` is read in both, and
  a benchmark key in it is a key the engine refuses (CTX301).

Values keep their positions: llama-swap through the core's spans, config keys at their
value in this file.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional

from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.engine_roles import role_facts
from ctxlint.adapters.scalar_spans import ScalarSpans
from ctxlint.adapters.workload import ENGINE_REJECTS, EngineRole, Workload
from ctxlint.adapters.workload_groups import deployments_from
from ctxlint.engines import apply_config, parse_invocation
from ctxlint.engines.config import config_key
from ctxlint.engines.specs import spec_for
from ctxlint.findings import Diagnostic
from ctxlint.loader import LoadedFile
from ctxlint.model import DECODE, PREFILL, UNIFIED, Accelerators, Role, Source, Val
from ctxlint.nodes import MAP, SCALAR, Node, dotted_sources

NAME = "engine-config"
_SERVER_SECTIONS = {"context_servers": PREFILL, "generation_servers": DECODE}
# Keys only one engine's serve config has (kebab or snake spelling), that tell which it is.
_ENGINE_KEYS = {
    "vllm": {"max_model_len", "gpu_memory_utilization", "max_num_batched_tokens", "enable_chunked_prefill",
             "num_gpu_blocks_override", "enforce_eager", "kv_transfer_config"},
    "sglang": {"context_length", "mem_fraction_static", "max_total_tokens", "chunked_prefill_size",
               "disaggregation_mode", "max_running_requests"},
}
_NOT_ENGINE_KEYS = {"hostname", "port", "urls", "num_instances", "context_servers", "generation_servers",
                    "conditional_disagg_config", "max_retries", "perf_metrics_max_requests"}


def adapt(loaded: LoadedFile, maps: Any = None) -> AdaptResult:
    """`maps`: the config_map_refs.Maps of the files checked with it, where a pod that mounts a ConfigMap-held
    llama-swap config may be (llama_swap_pods.py)."""
    result = AdaptResult()
    spans = ScalarSpans(loaded.path, loaded.text)
    workloads: List[Workload] = []
    for doc in loaded.documents:
        root = doc.root
        if root.kind == MAP and root.get("data") is not None and root.dig("kind") is not None \
                and root.get("kind").value == "ConfigMap":  # llama-swap's config as a cluster mounts it
            from ctxlint.adapters.engine_config_maps import read
            workloads.extend(read(root, spans, result, loaded, maps))
            continue
        if root.kind != MAP or root.get("apiVersion") is not None or root.get("kind") is not None:
            continue
        if _is_llama_swap(root):
            from ctxlint.adapters.llama_swap import llama_swap  # only for a llama-swap file

            workloads.extend(llama_swap(root, spans, result))
        elif any(root.get(key) is not None and root.get(key).kind == MAP for key in _SERVER_SECTIONS):
            workloads.extend(_trtllm_disaggregated(root, loaded.path, result))
        else:
            engine = _serve_config_engine(root)
            if engine is not None and not _generator_input(loaded.path):
                workloads.append(_serve_config(root, engine, loaded.path, result))
    result.extend(deployments_from(loaded.path, workloads))
    return result


def _generator_input(path: str) -> bool:
    """A kustomize configMapGenerator's `files` input: a ConfigMap's data, which the workload that mounts it reads
    as its `--config` (kustomize_maps.py), not an engine launched of its own."""
    from ctxlint.adapters.kustomize_maps import generator_input  # only for a file that is an engine's config

    return generator_input(path)


def _is_llama_swap(root: Node) -> bool:
    models = root.get("models")
    return models is not None and models.kind == MAP and any(
        m.kind == MAP and m.get("cmd") is not None for m in models.value.values())


# -- TensorRT-LLM disaggregated server config -------------------------------------------------------

def _trtllm_disaggregated(root: Node, file: str, result: AdaptResult) -> List[Workload]:
    model_node = root.get("model")
    model = Val(model_node.value, model_node.source(file)) if model_node is not None and \
        model_node.kind == SCALAR and isinstance(model_node.value, str) else None
    shared = {k: v for k, v in root.value.items() if k not in _NOT_ENGINE_KEYS and k != "model"}
    out = []
    for section, kind in _SERVER_SECTIONS.items():
        node = root.get(section)
        if node is None or node.kind != MAP:
            continue
        options = dict(shared)
        options.update({k: v for k, v in node.value.items() if k not in _NOT_ENGINE_KEYS})
        role = _server_role(options, kind, node, file, section, result)
        if role is None:
            continue
        instances = node.get("num_instances")
        replicas = Val(instances.value, instances.source(file)) if instances is not None and \
            isinstance(instances.value, int) and not isinstance(instances.value, bool) and instances.value >= 0 \
            else None  # a negative count is no count (never replicas: -1)
        engine = Val("trtllm", root.source(file))
        out.append(Workload(name=Val(section, root.keys[section].source(file)), source=node.source(file),
                            input_format=NAME, roles=[EngineRole(role, engine, None, model)], replicas=replicas))
    return out


# -- vllm serve / sglang serve config files ----------------------------------------------------------

_MODEL_KEYS = ("model", "model-path", "model_path")  # vLLM's `model`; SGLang's `model-path`


def _model_key(root: Node) -> Optional[str]:
    return next((k for k in _MODEL_KEYS if root.get(k) is not None and root.get(k).kind == SCALAR
                 and isinstance(root.get(k).value, str)), None)


def _serve_config_engine(root: Node) -> Optional[str]:
    if _model_key(root) is None:
        return None
    keys = {str(k).replace("-", "_") for k in root.value}
    engines = [engine for engine, marks in _ENGINE_KEYS.items() if keys & marks]
    if len(engines) != 1:
        return None
    # SGLang's benchmark scripts parse the server's arguments beside their own, so their argument files hold
    # server keys too: two or more of a script's own keys make the file that script's, not a server config. With
    # one, it is a server config the engine refuses to start with (CTX301 at the key, from apply_config).
    return engines[0] if len(keys & spec_for(engines[0]).foreign_keys) < 2 else None


def _serve_config(root: Node, engine: str, file: str, result: AdaptResult) -> Workload:
    key = _model_key(root)
    model_node = root.get(key)
    model = Val(model_node.value, model_node.source(file))
    options = {k: v for k, v in root.value.items() if k != key}
    role = _server_role(options, None, root, file, "serve config", result, engine, f"{engine} serve")
    return Workload(name=Val(model.value, model.source), source=root.source(file), input_format=NAME,
                    roles=[EngineRole(role, Val(engine, root.source(file)), None, model)])


def _server_role(options: Dict[str, Node], kind: Optional[str], node: Node, file: str, section: str,
                 result: AdaptResult, engine: str = "trtllm", launcher: str = "trtllm-serve") -> Optional[Role]:
    sources: Dict[str, Source] = {}
    data: Dict[str, Any] = {}
    for key, value in options.items():
        data[key] = value.plain()
        sources[str(key)] = value.source(file)
        sources.update(dotted_sources(value, lambda n: n.source(file), f"{key}."))
    inv = apply_config(parse_invocation(engine, [], {}, launcher, "serve", 0), data, file)
    spec = spec_for(engine, launcher, "serve")
    fallback = node.source(file)

    def where(setting) -> Source:
        return sources.get(setting.flag_spelling or "", fallback)

    for problem in inv.errors:  # e.g. `tensor_parallel_size: x`: the engine would not start
        from ctxlint.adapters.engine_refusals import refusal  # only a refused value asks

        key = next((k for k in sources if problem.flag and config_key(spec, k)[1] == problem.flag), "")
        text = refusal(engine, None, problem)  # a config file alone names no release
        if text is not None:
            result.diagnostics.append(Diagnostic(ENGINE_REJECTS, text, sources.get(key, fallback), None))
    facts = role_facts(inv, where)
    if kind is None:  # a serve config: the role its own markers give, else unified
        kind = facts.kind or UNIFIED
        role_source = facts.kind_source or fallback
    else:
        role_source = node.source(file)
    gpus = facts.parallelism.gpus
    count = Val(gpus, fallback, raw="tensor x pipeline parallel size") if gpus > 1 else None
    return Role(role=Val(kind, role_source, raw=section if section in _SERVER_SECTIONS else None), replicas=None, context_length=facts.context_length,
                kv_pool_tokens=facts.kv_pool_tokens, kv_cache_dtype=facts.kv_cache_dtype,
                parallelism=facts.parallelism, accelerators=Accelerators(count=count), source=fallback,
                name=f"{kind} ({section})", engine_args=facts.engine_args, draft_layers=facts.draft_layers)
