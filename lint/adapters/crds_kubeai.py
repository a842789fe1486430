"""KubeAI `Model` (kubeai.org/v1), and the same model spec in the KubeAI models
chart's `catalog.<name>` entries (see helm_values).

KubeAI starts `python3 -m vllm.entrypoints.openai.api_server --model <url>
<spec.args>` for `engine: VLLM` (internal/modelcontroller/engine_vllm.go), so
`spec.args` are vLLM flags and `spec.env` its environment. `spec.image` is the
image when set; else KubeAI runs the one its chart pins for the resource profile
(Model.Spec.Image: "set from ResourceProfile + Engine if not specified"), which
the file does not name. `spec.url` `hf://org/name` is the model id (`ollama://`, `pvc://`, `s3://`, `gs://`
are kept as written). `resourceProfile: <profile>:<n>` is n times the
profile's resources; KubeAI's default profiles (charts/kubeai/values.yaml)
carry one device each, so `nvidia-gpu-h100:8` is 8 x H100. Any other profile
is one the operator defined in the KubeAI chart's `resourceProfiles` values
(OPEA's `gaudi-for-text-generation`, with `habana.ai/gaudi: 1`), which the
Model file does not hold: its name is no device, and neither the device nor
the count is known (CTX008 at the name says so). Only VLLM models
are read: OLlama, Infinity and FasterWhisper run engines ctxlint does not
model, and are skipped.
"""
from __future__ import annotations

from typing import List, Optional, Tuple

from ..records import replace
from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.crd_common import int_val, is_kind, labels_of, name_of, objects, scalar
from ctxlint.adapters.hardware import canonical_type
from ctxlint.adapters.scalar_spans import ScalarSpans
from ctxlint.adapters.workload import (UNRESOLVED, Container, Workload, env_from_mapping, limits_from_annotations,
                                       read_container)
from ctxlint.findings import Diagnostic
from ctxlint.adapters.workload_groups import deployments_from
from ctxlint.loader import LoadedFile
from ctxlint.model import Val
from ctxlint.nodes import MAP, Node

NAME = "kubeai"
ENGINES = {"VLLM": "vllm"}
# KubeAI's default resource profiles -> the device each unit holds (None: no accelerator).
PROFILES = {
    "cpu": None, "nvidia-gpu-t4": "T4", "nvidia-gpu-l4": "L4", "nvidia-gpu-l40s": "L40S", "nvidia-gpu-h100": "H100",
    "nvidia-gpu-gh200": "GH200", "nvidia-gpu-a100-80gb": "A100-80GB", "nvidia-gpu-a100-40gb": "A100-40GB",
    "nvidia-gpu-a16": "A16", "nvidia-gpu-rtx4070-8gb": "RTX4070-8GB", "amd-gpu-mi300x": "MI300X",
    "google-tpu-v5e-1x1": "TPU-v5e", "google-tpu-v5e-2x2": "TPU-v5e",
}


def adapt(loaded: LoadedFile) -> AdaptResult:
    result = AdaptResult()
    spans = ScalarSpans(loaded.path, loaded.text)
    workloads: List[Workload] = []
    for obj in objects(loaded):
        if is_kind(obj, ("Model",), "kubeai.org"):
            name = name_of(obj, loaded.path)
            w = model_workload(obj.get("spec"), name, obj.source(loaded.path), spans, result, NAME,
                               obj.dig("metadata", "annotations"), labels_of(obj))
            if w is not None:
                workloads.append(w)
    result.extend(deployments_from(loaded.path, workloads))
    return result


def model_id(url: Optional[Node], file: str) -> Optional[Val[str]]:
    text = scalar(url)
    if not isinstance(text, str) or not text.strip():
        return None
    ident = text.strip()[len("hf://"):] if text.strip().startswith("hf://") else text.strip()
    return Val(ident, url.source(file), raw=text)


def custom_profile(node: Optional[Node]) -> Optional[str]:
    """The name of a resource profile that is not one of KubeAI's defaults (`gaudi-for-text-generation:1`)."""
    text = scalar(node)
    # KubeAI looks the name up as written (parseResourceProfile: strings.Split(s, ":")[0]), blanks and all
    name = text.partition(":")[0] if isinstance(text, str) else ""
    return name if name and name not in PROFILES else None


def profile(node: Optional[Node], spans: ScalarSpans) -> Tuple[Optional[Val[str]], Optional[Val[int]]]:
    """`nvidia-gpu-h100:8` -> (H100 at the name, 8 at the count); a profile of the operator's own names neither
    (custom_profile): its resources are in the chart's values, n times which the count is."""
    text = scalar(node)
    if not isinstance(text, str) or not text.strip() or custom_profile(node) is not None:
        return None, None
    name, _, count = text.partition(":")
    count = count.strip() or "1"
    if PROFILES.get(name) is None:  # CPU only, or no name at all (`:1`, which KubeAI cannot look up)
        return None, None
    device = canonical_type(PROFILES[name])
    start = text.find(name)
    kind = Val(device[0], spans.source(node, start, start + len(name)), raw=name) if device else None
    if not count.isdigit():
        return kind, None
    at = text.rfind(count)
    where = spans.source(node, at, at + len(count)) if ":" in text else node.source(spans.file)
    return kind, Val(int(count), where, raw=text)


def model_workload(spec: Optional[Node], name: Optional[Val[str]], source, spans: ScalarSpans,
                   result: AdaptResult, input_format: str, annotations: Optional[Node] = None,
                   labels: Tuple[Tuple[str, str], ...] = ()) -> Optional[Workload]:
    """One KubeAI model spec (a Model's `spec` or a chart catalog entry) -> a workload."""
    if spec is None or spec.kind != MAP:
        return None
    file = spans.file
    engine_node = spec.get("engine")
    engine = ENGINES.get(scalar(engine_node))
    if engine is None:
        return None
    kind, count = profile(spec.get("resourceProfile"), spans)
    custom = custom_profile(spec.get("resourceProfile"))
    if custom is not None:
        result.diagnostics.append(Diagnostic(UNRESOLVED, (
            f"resourceProfile {custom} is no KubeAI default profile: its devices are the `resourceProfiles.{custom}` "
            "of the KubeAI chart's values, which this file does not hold, so neither the device nor the count is "
            "known (state the device with `default-accelerator:` in .ctxlint.yaml)"), spec.get("resourceProfile")
            .source(file), str(name.value) if name is not None else None))
    reading = read_container(Container(
        spans=spans, node=spec, name=str(name.value) if name is not None else "", args=spec.get("args"),
        env=env_from_mapping(spec.get("env")), args_only=True,
        engine=Val(engine, engine_node.source(file), raw=str(engine_node.value)),
        accelerator_count=count, accelerator_type=kind, image=spec.get("image"),
        image_by="KubeAI (the image its chart's modelServers.VLLM.images pins for the resource profile)"))
    result.diagnostics.extend(reading.diagnostics)
    url = model_id(spec.get("url"), file)
    roles = [replace(r if r.model is not None or url is None else replace(r, model=url),
                     role=replace(r.role, device_by_profile=True)) for r in reading.roles]
    if not roles:
        return None
    display = str(name.value) if name is not None else None
    advertised, gateway, measured = limits_from_annotations(annotations, file, result.diagnostics, display)
    return Workload(name=name, source=source, input_format=input_format, roles=roles,
                    replicas=int_val(spec.get("replicas"), file), advertised=advertised, gateway=gateway,
                    measured=measured, labels=labels)
