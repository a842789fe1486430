"""The hardware of one KAITO preset instance as the file states it: the device, the GPUs one node
gives vLLM (its tensor parallel size), and the nodes KAITO runs it on (its pipeline parallel size,
kaito_nodes.py), each at the value it rests on.

- `resource.instanceType` (node auto-provisioning): the VM's GPUs and device (instance_types.INSTANCE_GPUS).
- `resource.partition` (v0.12.0, BYO nodes, api/v1beta1/workspace_types.go PartitionSpec):
  `{mode: mig, profile: 3g.40gb}` is one MIG slice (getGPUConfig -> utils.GetMIGGPUConfig: GPUCount 1),
  the card it is cut from named by the labelSelector's device label if any (hardware.mig_device);
  `{mode: accelerator, count: N}` is N whole GPUs of a BYO node (sku.ScaleGPUConfigToCount), so
  `--tensor-parallel-size` N, on the device the labelSelector names if it names one
  (kaito-project/kaito@0894eb2b567d48cd2d66afe579acb1542b226af4:pkg/workspace/inference/preset_inferences.go).
"""
from __future__ import annotations

from typing import Dict, Optional, Tuple

from ctxlint.adapters.crd_common import int_val, scalar, str_val
from ctxlint.adapters.hardware import instance_gpus, mig_device, type_from_labels
from ctxlint.adapters.kaito_nodes import Ask, explicit_max_model_len, node_count
from ctxlint.model import Source, Val
from ctxlint.nodes import MAP, SCALAR, Node

from ..records import record

CONFIG_KEY = "inference_config.yaml"  # pkg/model/interface.go ConfigfileNameVLLM
# The first KAITO minor release that serves each kind at each API version (kaito-project/kaito at the release
# tags, api/<version>/*_types.go: a v1beta1 Workspace from v0.5.0, InferenceSet v1alpha1 from v0.8.0 and v1beta1
# from v0.11.0, MultiRoleInference v1alpha1 from v0.11.0); a release without it refuses the object.
SINCE = {("Workspace", "v1beta1"): 5, ("InferenceSet", "v1alpha1"): 8, ("InferenceSet", "v1beta1"): 11,
         ("MultiRoleInference", "v1alpha1"): 11}


@record
class Plan:
    device: Optional[Val[str]] = None
    per_node: Optional[Val[int]] = None  # GPUs of one node vLLM shards over (tensor parallel size)
    nodes: Optional[Val[int]] = None  # None: not known (`unknown` says why) or refused
    unknown: Optional[Tuple[str, Source]] = None
    refused: Optional[Tuple[str, Source]] = None  # KAITO runs nothing
    sku_table: bool = False  # the GPUs come from KAITO's SKU table (an instanceType), not a BYO node's labels
    vm: Optional[Val[str]] = None  # the instanceType, when ctxlint does not record its GPUs (unknown_vm)


def unknown_vm(instance: Optional[Node], file: str) -> Optional[Val[str]]:
    """`resource.instanceType` as written when it is a literal VM size whose GPUs ctxlint does not record
    (Role.device_vm); None for none, a known size or a reference a tool fills in later (`${INSTANCE_TYPE}`)."""
    text = scalar(instance)
    if not isinstance(text, str) or not text.strip() or "$" in text or "{" in text:
        return None
    return Val(text.strip(), instance.source(file)) if instance_gpus(instance, file)[0] is None else None


def since_of(obj: Node, kind: str) -> int:
    version = scalar(obj.get("apiVersion"))
    version = version.rsplit("/", 1)[-1] if isinstance(version, str) else ""
    return SINCE.get((kind, version), 0)


def estimator_context(config: Optional[Node], maps: Dict[str, Node]) -> Optional[int]:
    """The max-model-len KAITO's node estimate uses: the ConfigMap's explicit one, else 2048
    (UpdateWorkspaceTargetNodeCount); None when the ConfigMap is not in this file."""
    name = scalar(config)
    if not isinstance(name, str) or not name.strip():
        return 2048
    data = maps.get(name.strip())
    if data is None:
        return None
    text = scalar(data.get(CONFIG_KEY)) if data.kind == MAP else None
    found = explicit_max_model_len(text) if isinstance(text, str) else None
    return found if found is not None else 2048


def plan(res: Optional[Node], preset: Node, config: Optional[Node], maps: Dict[str, Node], file: str,
         since: int, problem, selector: Optional[Node] = None) -> Optional[Plan]:
    """The Plan of a preset, or None (after `problem(node, text)`) when KAITO's CRD refuses the partition.
    `selector`: the labelSelector of the nodes (an InferenceSet's spec.labelSelector; else resource's)."""
    instance = res.get("instanceType") if res is not None else None
    partition = res.get("partition") if res is not None else None
    count = res.get("count") if res is not None else None
    out, ask = Plan(), {"since": since, "preset": str(scalar(preset)).strip(), "context":
                        estimator_context(config, maps)}
    written = int_val(count, file)
    if count is not None and not (count.kind == SCALAR and count.value is None):
        ask["count"] = written.value if written is not None else -1
    if partition is not None and not (partition.kind == SCALAR and partition.value is None):
        if selector is None:
            selector = res.get("labelSelector")
        at = _partition(partition, res, type_from_labels(selector.get("matchLabels"), file)
                        if selector is not None and selector.kind == MAP else None, file, out, ask, problem)
        if at is None:
            return None
        rests = {"partition": at}
    else:
        out.device, out.per_node = instance_gpus(instance, file)
        out.sku_table = out.device is not None
        out.vm = unknown_vm(instance, file)
        ask["sku"] = str(scalar(instance)) if isinstance(scalar(instance), str) else None
        rests = {"instance": instance}
    found = node_count(Ask(**ask))
    where = {"preset": preset, "config": config, "count": count, **rests}.get(found.on) or instance or preset
    source = where.source(file)
    if found.refused:
        out.refused = (f"KAITO runs no {ask['preset']} here ({found.account})", source)
    elif found.nodes is None:
        which = "; the file does not say which release runs it" if found.split else ""
        out.unknown = (f"the nodes KAITO runs {ask['preset']} on ({found.account}{which})", source)
    else:
        raw = "KAITO's node estimate" if found.whole else found.account
        if written is not None and written.value != found.nodes:
            raw += f"; resource.count {written.value} is not used"
        out.nodes = Val(found.nodes, source, raw=raw)
    return out


def _partition(partition: Node, res: Node, card: Optional[Val[str]], file: str, out: Plan, ask: dict,
               problem) -> Optional[Node]:
    """Fills the plan from `resource.partition`; returns the node the GPUs rest on (None: refused).
    `card`: the device the node selector names."""
    if res.get("instanceType") is not None and scalar(res.get("instanceType")) not in (None, ""):
        problem(partition, "resource.partition needs BYO nodes and resource.instanceType node auto-provisioning: "
                "KAITO's webhook refuses the two together")
        return None
    mode = scalar(partition.get("mode")) if partition.kind == MAP else None
    ask["since"] = max(ask["since"], 12)  # older releases have no such field
    if mode == "mig":
        profile = str_val(partition.get("profile"), file)
        if profile is None:
            problem(partition, "a MIG partition needs partition.profile: KAITO's webhook refuses it without one")
            return None
        out.device = mig_device(profile.value, card, profile.source, f"partition.profile {profile.value}")
        out.per_node = Val(1, profile.source, raw=f"one MIG {profile.value} slice")
        ask["mig"] = profile.value
        return partition.get("profile")
    if mode == "accelerator":
        gpus = int_val(partition.get("count"), file)
        if gpus is None or gpus.value < 1:
            problem(partition, "an accelerator partition needs partition.count >= 1: KAITO's CRD refuses it")
            return None
        out.device = card
        out.per_node = Val(gpus.value, gpus.source, raw=f"partition.count {gpus.value} GPUs of a BYO node")
        ask["accelerators"] = gpus.value
        return partition.get("count")
    problem(partition, f"partition.mode {mode!r} is neither mig nor accelerator: KAITO's CRD refuses it")
    return None
