"""KAITO (kaito.sh): `Workspace`, `InferenceSet` and `MultiRoleInference`.

- Workspace (fields at the top level, not under `spec`): `resource.instanceType`
  (Azure GPU VM size -> devices per node and device, instance_types.INSTANCE_GPUS)
  or `resource.partition` (kaito_plan.py); `inference.preset.name`,
  `inference.config` (a ConfigMap of the same file) or `inference.template`
  (a pod spec, read like a Deployment's, on `resource.count` nodes; the
  instance type fills in GPUs the containers do not request).
- InferenceSet: `spec.template.resource` (instanceType, partition),
  `spec.template.inference` (as a Workspace's), `spec.replicas`.
- MultiRoleInference: `spec.model.name`, `spec.roles[]` each `type`
  (prefill|decode), `replicas`, `instanceType`, `runtimeConfig` (a ConfigMap,
  as `inference.config`): one disaggregated deployment.

A preset runs on the nodes KAITO's release decides (kaito_nodes.py: from
v0.7.0 its own estimate, not `resource.count`); a count the file cannot
settle is unknown (CTX008), and a preset KAITO refuses to run is said so.

A preset runs vLLM unless the `kaito.sh/runtime: transformers` annotation says
otherwise (api/v1beta1 GetWorkspaceRuntimeName). KAITO's inference_api.py
appends every key of the ConfigMap's `inference_config.yaml` `vllm:` section
to the command line as `--key value`, after KAITO's own flags, so those keys
are vLLM flags and win (each keeps its position in the ConfigMap). KAITO's own
flags, where the file does not set them (pkg/model/interface.go):
`--gpu-memory-utilization 0.84` (0.82 on A10), `--max-model-len auto` (vLLM
sizes the context to the KV pool: no context length to check), and
`--tensor-parallel-size` = GPUs per node, `--pipeline-parallel-size` = nodes.
KAITO picks data parallelism instead when the weights take under half of one
GPU (configureParallelism); that choice is not modelled.
Presets name their Hugging Face repo in presets/workspace/models/
supported_models.yaml (PRESET_MODELS); other names are kept as written.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from ..records import replace
from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.crd_common import config_maps, int_val, is_kind, labels_of, name_of, objects, \
    parse_embedded, scalar, seq, str_val
from ctxlint.adapters.hardware import instance_gpus
from ctxlint.adapters.kaito_plan import CONFIG_KEY, Plan, plan, since_of, unknown_vm
from ctxlint.adapters.pod_specs import pod_roles
from ctxlint.adapters.scalar_spans import ScalarSpans
from ctxlint.adapters.workload import (UNRESOLVED, Container, EngineRole, Workload, limits_from_annotations,
                                       read_container)
from ctxlint.adapters.workload_groups import deployments_from
from ctxlint.findings import Diagnostic
from ctxlint.loader import LoadedFile
from ctxlint.model import DECODE, PREFILL, Accelerators, Source, Val
from ctxlint.nodes import MAP, SCALAR, SEQ, Node

NAME = "kaito"
GROUP = "kaito.sh"
# KAITO preset name -> Hugging Face repo (supported_models.yaml `version:` URLs).
PRESET_MODELS = {
    "llama-3.1-8b-instruct": "meta-llama/Llama-3.1-8B-Instruct",
    "llama-3.3-70b-instruct": "meta-llama/Llama-3.3-70B-Instruct",
    "deepseek-r1-0528": "deepseek-ai/DeepSeek-R1-0528", "deepseek-v3-0324": "deepseek-ai/DeepSeek-V3-0324",
    "deepseek-r1-distill-qwen-14b": "deepseek-ai/DeepSeek-R1-Distill-Qwen-14B",
    "deepseek-r1-distill-llama-8b": "deepseek-ai/DeepSeek-R1-Distill-Llama-8B",
    "falcon-7b": "tiiuae/falcon-7b", "falcon-7b-instruct": "tiiuae/falcon-7b-instruct",
    "falcon-40b": "tiiuae/falcon-40b", "falcon-40b-instruct": "tiiuae/falcon-40b-instruct",
    "mistral-7b": "mistralai/Mistral-7B-v0.3", "mistral-7b-instruct": "mistralai/Mistral-7B-Instruct-v0.3",
    "ministral-3-3b-instruct": "mistralai/Ministral-3-3B-Instruct-2512",
    "ministral-3-8b-instruct": "mistralai/Ministral-3-8B-Instruct-2512",
    "ministral-3-14b-instruct": "mistralai/Ministral-3-14B-Instruct-2512",
    "mistral-large-3-675b-instruct": "mistralai/Mistral-Large-3-675B-Instruct-2512",
    "phi-2": "microsoft/phi-2", "phi-3-mini-4k-instruct": "microsoft/Phi-3-mini-4k-instruct",
    "phi-3-mini-128k-instruct": "microsoft/Phi-3-mini-128k-instruct",
    "phi-3-medium-4k-instruct": "microsoft/Phi-3-medium-4k-instruct",
    "phi-3-medium-128k-instruct": "microsoft/Phi-3-medium-128k-instruct",
    "phi-3.5-mini-instruct": "microsoft/Phi-3.5-mini-instruct", "phi-4-mini-instruct": "microsoft/Phi-4-mini-instruct",
    "phi-4": "microsoft/phi-4", "qwen2.5-coder-7b-instruct": "Qwen/Qwen2.5-Coder-7B-Instruct",
    "qwen2.5-coder-32b-instruct": "Qwen/Qwen2.5-Coder-32B-Instruct", "gemma-3-4b-instruct": "google/gemma-3-4b-it",
    "gemma-3-27b-instruct": "google/gemma-3-27b-it", "gpt-oss-20b": "openai/gpt-oss-20b",
    "gpt-oss-120b": "openai/gpt-oss-120b",
}
GPU_MEMORY_DEFAULT = {"A10": 0.82}  # KAITO's gpuMemoryUtilizationByGPUModel; else 0.84


def adapt(loaded: LoadedFile) -> AdaptResult:
    result = AdaptResult()
    spans = ScalarSpans(loaded.path, loaded.text)
    workloads: List[Workload] = []
    for obj in objects(loaded):
        kind = scalar(obj.get("kind"))
        if not is_kind(obj, ("Workspace", "InferenceSet", "MultiRoleInference"), GROUP):
            continue
        maps = config_maps(loaded, obj)
        reader = _Reader(obj, spans, maps, result, since_of(obj, str(kind)))
        if kind == "Workspace":
            workloads.extend(reader.workspace(obj, obj.get("resource"), obj.get("inference"), None))
        elif kind == "InferenceSet":
            spec = obj.get("spec")
            template = spec.get("template") if spec is not None and spec.kind == MAP else None
            if template is not None and template.kind == MAP:
                res = template.get("resource")
                workloads.extend(reader.workspace(obj, res, template.get("inference"),
                                                  int_val(spec.get("replicas"), spans.file), spec.get("labelSelector")))
        else:
            workloads.extend(reader.multi_role())
    result.extend(deployments_from(loaded.path, workloads))
    return result


def model_of(node: Optional[Node], file: str) -> Optional[Val[str]]:
    name = str_val(node, file)
    if name is None:
        return None
    repo = PRESET_MODELS.get(name.value.strip().lower())
    return Val(repo, name.source, raw=name.value) if repo else Val(name.value.strip(), name.source, raw=name.value)


class _Reader:
    def __init__(self, obj: Node, spans: ScalarSpans, maps: Dict[str, Node], result: AdaptResult,
                 since: int) -> None:
        self.obj, self.spans, self.maps, self.result, self.file = obj, spans, maps, result, spans.file
        self.since = since  # the first KAITO minor release that serves this kind at this version
        self.display = scalar(obj.dig("metadata", "name"))
        runtime = scalar(obj.dig("metadata", "annotations", "kaito.sh/runtime"))
        self.vllm = runtime != "transformers"  # HF transformers runtime: not an engine ctxlint models

    def workload(self, suffix: Optional[str], at: Node, roles: List[EngineRole],
                 replicas: Optional[Val[int]]) -> List[Workload]:
        if not roles:
            return []
        name = name_of(self.obj, self.file)
        if suffix:
            name = Val(f"{name.value}/{suffix}" if name is not None else suffix, at.source(self.file))
        advertised, gateway, measured = limits_from_annotations(self.obj.dig("metadata", "annotations"), self.file,
                                                      self.result.diagnostics, str(name.value) if name else None)
        return [Workload(name=name, source=self.obj.source(self.file), input_format=NAME, roles=roles,
                         replicas=replicas, advertised=advertised, gateway=gateway, measured=measured,
                         labels=labels_of(self.obj))]

    def problem(self, node: Node, text: str) -> None:
        self.result.diagnostics.append(Diagnostic(UNRESOLVED, text, node.source(self.file),
                                                  self.display if isinstance(self.display, str) else None))

    # -- Workspace / InferenceSet ---------------------------------------------------------------------
    def workspace(self, at: Node, resource: Optional[Node], inference: Optional[Node],
                  replicas: Optional[Val[int]], selector: Optional[Node] = None) -> List[Workload]:
        if inference is None or inference.kind != MAP:
            return []
        res = resource if resource is not None and resource.kind == MAP else None
        template = inference.get("template")
        if template is not None and template.kind == MAP:
            return self.workload(None, at, self.template_roles(res, template), replicas)
        preset = inference.dig("preset", "name")
        if preset is None or not self.vllm or preset.kind != SCALAR or not isinstance(preset.value, str):
            return []
        found = plan(res, preset, inference.get("config"), self.maps, self.file, self.since, self.problem, selector)
        role = self.preset_role(preset, inference.get("config"), found, None) if found is not None else None
        return self.workload(None, at, [role] if role else [], replicas)

    def template_roles(self, res: Optional[Node], template: Node) -> List[EngineRole]:
        """A pod template runs on `resource.count` nodes in every release: with no preset, EstimateNodeCount
        returns the requested count (pkg/workspace/estimator/nodesestimator/estimator.go)."""
        instance = res.get("instanceType") if res is not None else None
        written = int_val(res.get("count"), self.file) if res is not None else None
        nodes = written.value if written is not None and written.value > 0 else 1
        kind, per_node = instance_gpus(instance, self.file)
        roles = pod_roles(template.get("spec"), self.spans, self.result, self.maps, nodes, per_node,
                           injected=[], group_label="nodes (resource.count)")
        vm = unknown_vm(instance, self.file) if kind is None else None
        return [r if r.role.accelerators.type is not None or kind is None and vm is None else
                replace(r, role=replace(r.role, device_vm=vm)) if kind is None else
                replace(r, role=replace(r.role, accelerators=Accelerators(kind, r.role.accelerators.count)))
                for r in roles]

    def preset_role(self, preset: Node, config: Optional[Node], hw: Plan,
                    role_type: Optional[Node]) -> Optional[EngineRole]:
        model = model_of(preset, self.file)
        if model is None:
            return None
        if hw.refused is not None:
            self.result.diagnostics.append(Diagnostic(UNRESOLVED, f"{hw.refused[0]}; ctxlint checks nothing of it",
                                                      hw.refused[1], self.display if isinstance(self.display, str)
                                                      else None))
            return None
        settings, missing = self.settings(config)
        kind, per_node, nodes = hw.device, hw.per_node, hw.nodes
        # the A10 figure is keyed by the SKU table's GPU model ("NVIDIA A10"), never a BYO node's label
        # (pkg/model/interface.go gpuMemoryUtilizationByGPUModel)
        util = GPU_MEMORY_DEFAULT.get(kind.value if kind and hw.sku_table else "", 0.84)
        defaults: Dict[str, Any] = {"gpu-memory-utilization": util, "max-model-len": "auto"}
        sources: Dict[str, Source] = {}
        if per_node is not None:
            defaults["tensor-parallel-size"], sources["tensor-parallel-size"] = per_node.value, per_node.source
        if nodes is None and per_node is not None:  # KAITO's pipeline parallel size is its node count: unknown
            defaults["pipeline-parallel-size"], sources["pipeline-parallel-size"] = None, hw.unknown[1]
        elif nodes is not None and nodes.value > 1:
            defaults["pipeline-parallel-size"], sources["pipeline-parallel-size"] = nodes.value, nodes.source
        data, where = dict(settings[0]), dict(settings[1])
        for key, value in defaults.items():
            if key not in data and key.replace("-", "_") not in data:
                data[key] = value
                where[key] = sources.get(key, preset.source(self.file))
        count = per_node if nodes is None or per_node is None or nodes.value == 1 else Val(
            per_node.value * nodes.value, nodes.source,
            raw=f"{per_node.value} per node x {nodes.value} nodes ({nodes.raw})")
        engine = Val("vllm", preset.source(self.file), raw="KAITO preset (vLLM runtime)")
        reading = read_container(Container(
            spans=self.spans, node=role_type or preset, name=str(scalar(role_type) or ""), args_only=True,
            engine=engine, accelerator_count=count if nodes is not None else None, accelerator_type=kind,
            settings=(data, where, f"KAITO {CONFIG_KEY}")))
        self.result.diagnostics.extend(reading.diagnostics)
        if not reading.roles:
            return None
        found = replace(reading.roles[0], model=model)
        if kind is None and hw.vm is not None:  # CTX208 names the size rather than asking for a device
            found = replace(found, role=replace(found.role, device_vm=hw.vm))
        if missing is not None:
            found.unresolved.append(missing)
        if hw.unknown is not None and kind is not None:  # with no device, CTX208 asks for the device first
            found.unresolved.append(hw.unknown)
        if role_type is not None and scalar(role_type) in (PREFILL, DECODE):
            found = replace(found, role=replace(found.role, role=Val(scalar(role_type), role_type.source(self.file))))
        return found

    def settings(self, config: Optional[Node]) -> Tuple[Tuple[Dict[str, Any], Dict[str, Source]],
                                                          Optional[Tuple[str, Source]]]:
        """The `vllm:` section of the ConfigMap named by `config`, with positions; or what is missing."""
        name = scalar(config)
        if not isinstance(name, str) or not name.strip():
            return ({}, {}), None
        data = self.maps.get(name.strip())
        text = data.get(CONFIG_KEY) if data is not None else None
        parsed = parse_embedded(text, self.spans) if text is not None else None
        if parsed is None or not isinstance(parsed[0], dict):
            return ({}, {}), (f"inference config {name} (a ConfigMap this file does not hold, or no readable "
                              f"{CONFIG_KEY} in it)", config.source(self.file))
        section = parsed[0].get("vllm")
        if section is not None and not isinstance(section, dict):
            self.result.diagnostics.append(Diagnostic(
                UNRESOLVED, f"`vllm:` in {CONFIG_KEY} of ConfigMap {name} is not a mapping: KAITO cannot pass it "
                "to vLLM, and ctxlint does not read it", parsed[1].get("vllm", config.source(self.file)),
                self.display if isinstance(self.display, str) else None))
            section = None
        sources = {k[len("vllm."):]: s for k, s in parsed[1].items() if k.startswith("vllm.")}
        return (dict(section or {}), sources), None

    # -- MultiRoleInference ---------------------------------------------------------------------------
    def multi_role(self) -> List[Workload]:
        spec = self.obj.get("spec")
        if spec is None or spec.kind != MAP or not self.vllm:
            return []
        preset = spec.dig("model", "name")
        roles = spec.get("roles")
        if roles is not None and roles.kind != SEQ and not (roles.kind == SCALAR and roles.value is None):
            self.result.diagnostics.append(Diagnostic(
                UNRESOLVED, f"{roles.path} is not a list: KAITO's CRD schema rejects it, and ctxlint does not read "
                "the roles", roles.source(self.file), self.display if isinstance(self.display, str) else None))
            return []
        out: List[Workload] = []
        for index, role in enumerate(seq(roles)):
            if role.kind != MAP or preset is None or preset.kind != SCALAR or not isinstance(preset.value, str):
                continue
            role_type = role.get("type")
            hw = plan(role, preset, role.get("runtimeConfig"), self.maps, self.file, self.since, self.problem)
            found = self.preset_role(preset, role.get("runtimeConfig"), hw,
                                     role_type if role_type is not None and role_type.kind == SCALAR else None) \
                if hw is not None else None
            label = scalar(role_type) if isinstance(scalar(role_type), str) else f"roles[{index}]"
            out.extend(self.workload(label, role_type or role, [found] if found else [],
                                     int_val(role.get("replicas"), self.file)))
        return out
