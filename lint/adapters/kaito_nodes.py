"""The number of nodes KAITO runs one instance of a vLLM preset on, by KAITO release.

KAITO releases disagree (sources: `kaito-project/kaito@<tag commit>:<path>`, commits in kaito_data.py):

- v0.5.0 to v0.6.x run a preset that supports distributed inference on min(`resource.count`, the VMs its
  TotalGPUMemoryRequirement fills) nodes, any other on one node per replica (v0.6.2 pkg/workspace/inference/
  preset_inferences.go GeneratePresetInference, shouldUseDistributedInference); before v0.5.0 (no multi-node
  vLLM, #949) count 1 (the CRD default) is one node and a larger count is not modelled. Their webhook also
  refused a preset the count's VMs cannot hold (validateCreateWithInference), which is not modelled: a release
  that refuses runs nothing, so counting it as running can leave a count unknown, never make a wrong one known.
- from v0.7.0 `resource.count` is deprecated (api/v1beta1/workspace_types.go, #1349) and the controller
  estimates the nodes itself (UpdateWorkspaceTargetNodeCount -> EstimateNodeCount, #1435), starting from
  the count but replacing it whenever the GPU memory is known: minGPUs = int(weights x 1.02 / per-GPU room)
  + 1 and nodes = ceil(minGPUs / GPUs per node), the room being GPU memory x 0.84 - 2.3 GiB - the KV cache of
  the ConfigMap's explicit `max-model-len` (2048 without one) over the node's GPUs. v0.7.0 to v0.9.x
  truncate the byte counts to integers (advancednodesestimator), v0.10.0 computes in floats
  (nodesestimator); the two differ below one byte, so ctxlint follows the floats.
- v0.11.0 (#2156) divides the room by 1.05 (overheadWeightFactor) and, with #2121, refuses more than 3
  nodes (MaxAllowedNodeCount in pkg/workspace/controllers/workspace_controller.go); v0.12.0 lifts that
  limit (#2279) and adds `resource.partition` (a MIG slice, or `count` whole GPUs of a BYO node).
- a preset above one node that does not support distributed inference is refused (all estimating releases).

Which release runs is not in the file, except as far as the file needs one: the object's kind and API
version (v1beta1 Workspace from v0.5.0, InferenceSet v1alpha1 from v0.8.0 and v1beta1 from v0.11.0,
MultiRoleInference from v0.11.0), a partition (v0.12.0; older releases refuse the unknown field under
kubectl's strict field validation), or a preset that only some releases have. Releases that refuse the
workspace run nothing; when those that run it agree, that is the node count, otherwise it is unknown and
`account` says what each release does.
"""
from __future__ import annotations

import math
import re
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Dict, List, Optional, Tuple

from ctxlint.adapters import kaito_data as data

from ..records import record

GIB = 1 << 30
_QUANTITY = re.compile(r"^([0-9]+(?:\.[0-9]+)?)Gi$")
_ATOI = re.compile(r"^[+-]?[0-9]+$")  # strconv.Atoi: an optional sign and ASCII digits
_MIG = re.compile(r"^([0-9]+)g\.([0-9.]+)gb$")  # pkg/utils/mig/mig.go migProfileRegex


@record(frozen=True)
class Era:
    label: str
    start: int  # first minor release (0.start.0) of the span
    rule: str  # "count" (resource.count), "memory" (count, lowered to the memory table) or "estimate"
    presets: str = ""  # the table its presets come from: "v0.7", "go" or "catalog"
    exact_sku: bool = False  # the SKU table is looked up case-sensitively (before v0.10.0)
    divisor: float = 1.0  # 1 + overheadWeightFactor
    cap: Optional[int] = None  # MaxAllowedNodeCount


ERAS = (Era("before v0.5.0", 0, "count"), Era("v0.5.0 to v0.6.x", 5, "memory", exact_sku=True),
        Era("v0.7.x", 7, "estimate", "v0.7", True),
        Era("v0.8.x", 8, "estimate", "go", True), Era("v0.9.x", 9, "estimate", "go", True),  # v0.9.0: fewer sizes
        Era("v0.10.x", 10, "estimate", "go"),
        Era("v0.11.x", 11, "estimate", "catalog", divisor=1.05, cap=3),
        Era("v0.12.0 and later", 12, "estimate", "catalog", divisor=1.05))
_SKUS = {name.lower(): name for name in data.SKU_GPUS}  # KAITO's spelling by lower case


@record(frozen=True)
class Ask:
    """What the file tells KAITO's node estimate."""
    since: int  # the first minor release the object's kind, version and fields need
    preset: str  # as written, stripped
    sku: Optional[str] = None  # resource.instanceType as written (None: none)
    count: Optional[int] = None  # resource.count (None: not written; -1: not a number KAITO reads)
    context: Optional[int] = 2048  # the estimator's max-model-len (None: in a ConfigMap the file lacks)
    mig: Optional[str] = None  # partition.profile of a MIG partition
    accelerators: Optional[int] = None  # partition.count of an accelerator partition (BYO node GPUs)


@record(frozen=True)
class NodeCount:
    nodes: Optional[int]  # None: not known
    account: str  # what KAITO does, for messages
    refused: bool = False  # every release that could run it refuses it
    split: bool = False  # known for each release, but they disagree
    whole: bool = False  # every release the file can run on runs it on `nodes`
    on: str = "instance"  # the input the count (or what makes it unknown) rests on: instance, preset, count,
    #                       config or partition


def gib_quantity(text: str) -> Optional[int]:
    """The bytes of a `NNN.NNGi` resource.Quantity, rounded up as Quantity.Value() rounds."""
    found = _QUANTITY.match(text)
    if found is None:
        return None
    try:
        return math.ceil(Fraction(Decimal(found.group(1))) * GIB)
    except (InvalidOperation, ValueError):
        return None


def mig_memory_gib(profile: str) -> Optional[int]:
    """The slice memory KAITO gives a MIG profile: the `NNgb` of its name, floored, as GiB
    (mig.ParseMIGProfile, utils.GetMIGGPUConfig); None when the webhook refuses the profile."""
    found = _MIG.match(profile)
    if found is None or profile not in data.MIG_PROFILES:
        return None
    try:
        return int(math.floor(float(found.group(2))))
    except ValueError:
        return None


def explicit_max_model_len(text: str) -> Optional[int]:
    """pkg/utils/config_parser.go ParseExplicitMaxModelLen, line for line: the first `max-model-len:` line
    under a `vllm:` line, when its value is a positive integer Atoi reads (else none: the estimator's 2048)."""
    in_vllm, base = False, ""
    for line in text.split("\n"):
        trim = line.strip()
        if not in_vllm:
            if trim.startswith("vllm:"):
                in_vllm = True
                base = line[:len(line) - len(line.lstrip(" \t"))] + "  "
            continue
        indent = line[:len(line) - len(line.lstrip(" \t"))]
        if trim and not trim.startswith("#") and len(indent) < len(base):
            break
        if trim.startswith("max-model-len:"):
            value = trim[len("max-model-len:"):].strip()
            if _ATOI.match(value) and 0 < int(value) < 1 << 63:
                return int(value)
            break
    return None


def estimate(size: int, bytes_per_token: int, gpus: int, memory: int, context: int,
             divisor: float) -> Tuple[Optional[int], str]:
    """EstimateNodeCount's arithmetic: (nodes, "") or (None, why KAITO refuses). weightExpansionFactor 1.02,
    gpuMemoryUtilization 0.84, baseOverheadGiB 2.3 (kaito-project/kaito@0894eb2b567d48cd2d66afe579acb1542b226af4:
    pkg/workspace/estimator/nodesestimator/estimator.go; the same figures inline from v0.7.0)."""
    weights = float(size) * 1.02
    per_gpu = float(memory // gpus)
    usable = per_gpu * 0.84
    reserve = 2.3 * float(GIB) + float(context * bytes_per_token) / float(gpus)
    if usable <= reserve:
        return None, (f"{per_gpu / GIB:.0f} GiB per GPU x 0.84 leaves nothing after 2.3 GiB and the KV cache of "
                      f"{context} tokens")
    room = (usable - reserve) / divisor
    min_gpus = int(weights / room) + 1
    return (min_gpus + gpus - 1) // gpus, ""


def _model(era: Era, preset: str) -> Tuple[Optional[Tuple[int, int, bool]], str]:
    """(size bytes, bytes per token, distributes across nodes) of a preset in an era's table, or (None, "refuses:
    why") when that release has no such preset, or (None, why it is not known)."""
    name = preset.lower()
    if era.presets == "catalog":
        hf = data.LEGACY.get(name, name)
        found = data.CATALOG.get(hf)
        if found is not None:
            return (gib_quantity(found[0]) or 0, found[1], True), ""
        if "/" in hf:
            return None, "generates the preset from the Hugging Face Hub, whose size ctxlint does not record"
        return None, f"refuses: {preset} is not a preset"
    if "/" in name:
        return None, "reads a Hugging Face model id (from v0.9.0) with sizes ctxlint does not record"
    known = data.GO_PRESETS.get(name)
    if era.presets == "v0.7" and name in data.ADDED_IN_V0_8:
        known = None
    if known is None:
        unrecorded = data.GO_PRESETS_UNRECORDED + (("phi-2",) if era.presets == "v0.7" else ())
        return None, ("sizes it by rules ctxlint does not record" if name in unrecorded
                      else f"refuses: {preset} is not a preset")
    tokens = data.V0_7_BYTES_PER_TOKEN.get(name, known[1]) if era.presets == "v0.7" else known[1]
    return (gib_quantity(known[0]) or 0, tokens, known[2]), ""


def _gpus(era: Era, ask: Ask) -> Tuple[Optional[Tuple[int, int]], str]:
    """(GPUs per node, their memory in bytes) as this release's estimate sees them, or (None, why)."""
    if ask.mig is not None:
        gib = mig_memory_gib(ask.mig)
        return ((1, gib * GIB), "") if gib else (None, f"refuses: MIG profile {ask.mig!r} is not one it knows")
    if ask.accelerators is not None:
        return None, "sizes it from the GPU memory its BYO nodes report, which this file does not state"
    key = (ask.sku or "").strip()
    spelling = _SKUS.get(key.lower())
    if spelling is None:  # not a size ctxlint knows the devices of (or KAITO does not list it)
        return None, (f"sizes instance type {key} by a table entry ctxlint does not record" if key else
                      "sizes it from the GPUs of its BYO nodes, which this file does not state")
    if era.start >= 12 and spelling in data.SKUS_BEFORE_V0_12:  # its estimate fails: "Unsupported SKU"
        return None, f"refuses: v0.12.0 dropped {spelling} from its SKU table (kaito-project/kaito#2185)"
    if era.start >= 9 and spelling in data.SKUS_BEFORE_V0_9:
        return None, f"refuses: v0.9.0 dropped {spelling} from its SKU table (kaito-project/kaito#1780)"
    if era.exact_sku and key != spelling:
        return None, f"refuses: its SKU table spells the instance type {spelling} and is case-sensitive"
    gpus, gib = data.SKU_GPUS[spelling]
    return (gpus, gib * GIB), ""


def _failed(why: str, on: str) -> Tuple[str, object, str]:
    return ("refuses", why[len("refuses: "):], on) if why.startswith("refuses: ") else ("unknown", why, on)


def _counted(era: Era, ask: Ask) -> Tuple[str, object, str]:
    """Before v0.7.0: resource.count, lowered to the VMs the preset's memory table fills (from v0.5.0)."""
    name = ask.preset.lower()
    known = data.BEFORE_V0_7.get(name) if era.rule == "memory" or name not in data.AFTER_V0_4 else None
    if known is None:
        later = name in data.GO_PRESETS or name in data.LEGACY or name in data.BEFORE_V0_7 or "/" in name
        return _failed(f"refuses: {ask.preset} is not a preset" if later else "had presets ctxlint does not record",
                       "preset")
    if ask.count is None or ask.count == 1:
        return "runs", 1, "count"
    if ask.count < 1:
        return "unknown", "reads a resource.count that is not a positive number", "count"
    if era.rule == "memory" and not known[1]:
        return "runs", 1, "count"  # a Deployment of resource.count one-node replicas
    key = (ask.sku or "").strip()
    spelling = _SKUS.get(key.lower())
    if era.rule == "count" or spelling is None or key != spelling or spelling in data.SKUS_SINCE_V0_6:
        return ("unknown", f"runs at most resource.count {ask.count} nodes, fewer where its memory table says "
                           "fewer suffice", "count")
    nodes = math.ceil(Fraction(gib_quantity(known[0]) or 0, data.SKU_GPUS[spelling][1] * GIB))
    return "runs", min(ask.count, max(nodes, 1)), "count"


def _outcome(era: Era, ask: Ask) -> Tuple[str, object, str]:
    """("runs", nodes, on), ("refuses", why, on) or ("unknown", why, on) for one span of releases."""
    hardware = "partition" if ask.mig is not None or ask.accelerators is not None else "instance"
    if era.rule != "estimate":
        return _counted(era, ask)
    model, why = _model(era, ask.preset)
    if model is None:
        return _failed(why, "preset")
    gpus, why = _gpus(era, ask)
    if gpus is None:
        return _failed(why, hardware)
    if ask.context is None:
        return "unknown", "reads max-model-len from a ConfigMap this file does not hold", "config"
    nodes, why = estimate(model[0], model[1], gpus[0], gpus[1], ask.context, era.divisor)
    if nodes is None:
        return "refuses", why, hardware
    if nodes > 1 and ask.mig is not None:
        return "refuses", f"the model needs {nodes} slices and a MIG partition is one", hardware
    if nodes > 1 and not model[2]:
        return "refuses", f"{ask.preset} needs {nodes} nodes and does not support distributed inference", hardware
    if era.cap is not None and nodes > era.cap:
        return "refuses", f"it estimates {nodes} nodes and allows at most {era.cap}", hardware
    return "runs", nodes, hardware


def node_count(ask: Ask) -> NodeCount:
    """The nodes KAITO runs one instance on, over the releases the file can run on."""
    spans = [i for i in range(len(ERAS)) if i + 1 == len(ERAS) or ask.since < ERAS[i + 1].start]
    outcomes: Dict[Tuple[str, object], List[int]] = {}
    rests: Dict[str, List[str]] = {}
    for index in spans:
        kind, value, on = _outcome(ERAS[index], ask)
        outcomes.setdefault((kind, value), []).append(index)
        rests.setdefault(kind, []).append(on)
    runs = {value for (kind, value) in outcomes if kind == "runs"}
    unknown = [key for key in outcomes if key[0] == "unknown"]
    text = "; ".join(_say(key, indexes, len(spans) == len(outcomes[key])) for key, indexes in outcomes.items())
    # what the count rests on: the hardware the estimates size (also where they disagree), else the input
    # that leaves a release's count unknown, or the first refusal's when every release refuses
    default = "partition" if ask.mig is not None or ask.accelerators is not None else "instance"
    on = rests["unknown"][0] if unknown else default if runs else rests["refuses"][0]
    if len(runs) == 1 and not unknown:
        return NodeCount(next(iter(runs)), text, whole=len(outcomes) == 1, on=on)
    return NodeCount(None, text, refused=not runs and not unknown, split=len(runs) > 1 and not unknown, on=on)


def releases(indexes: List[int]) -> str:
    """`v0.7.0 to v0.10.x and v0.12.0 and later`: the spans of ERAS at these indexes, contiguous ones joined."""
    runs: List[List[int]] = []
    for index in indexes:
        if runs and runs[-1][-1] + 1 == index:
            runs[-1].append(index)
        else:
            runs.append([index])
    parts = []
    for run in runs:
        first, last = ERAS[run[0]].start, ERAS[run[-1] + 1].start if run[-1] + 1 < len(ERAS) else None
        if run[0] == 0:
            parts.append(f"before v0.{last}.0" if last is not None else "every release")
        elif last is None:
            parts.append(f"v0.{first}.0 and later")
        else:
            parts.append(f"v0.{first}.x" if last == first + 1 else f"v0.{first}.0 to v0.{last - 1}.x")
    return " and ".join(parts)


def _say(key: Tuple[str, object], indexes: List[int], every: bool) -> str:
    who = "KAITO" if every else f"KAITO {releases(indexes)}"
    kind, value = key
    if kind == "runs":
        how = " (resource.count)" if indexes in ([0], [1], [0, 1]) else ""
        return f"{who}: {value} node{'s' if value != 1 else ''}{how}"
    if kind == "refuses":
        return f"{who} refuse{'s' if every or len(indexes) == 1 else ''} it: {value}"
    return f"{who}: not known, it {value}"
