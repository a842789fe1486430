"""The model an OME runtime read alone is written for, from its `--served-model-name` and what it supports.

OME starts a runtime's engine with `--model-path $(MODEL_PATH)`, the `storage.path` of the base model an
InferenceService names (crds_ome), so a runtime that no service of the run names has no model of its own. Yet
OME runs a runtime only for a base model it supports: its `supportedModelFormats[].modelArchitecture` must equal
the model's and the model's parameter count must lie in its `modelSizeRange` (sgl-project/ome@17b77ed:
pkg/runtimeselector/matcher.go, GetCompatibilityDetails and checkModelSize with parseModelSize's `B`/`M`/`T`
suffixes), whether a service names it or OME selects it. Its `--served-model-name` is the name its API answers
to, the Hub id of the model it is written for in OME's own runtimes (config/runtimes/srt/<org>/<name>-rt.yaml:
`--served-model-name Qwen/Qwen2.5-7B-Instruct` beside `modelArchitecture: Qwen2ForCausalLM` and
`modelSizeRange: {min: 6B, max: 9B}`).

So a served name that is, letter for letter, the id of a model ctxlint's catalog holds (not a bare name, not an
alias like `vllm-model`) names the architecture, as srt-slurm's served name beside a cluster alias does
(srt_model.py), and only where the runtime's own constraints agree with that model: each architecture it lists
matches the model's `model_type` (HF's class names begin with it: `qwen2` and Qwen2ForCausalLM, `gemma3_text` and
Gemma3ForConditionalGeneration) and its size range holds the model's parameter count. A runtime that states
neither, or one that disagrees, leaves the model unknown, as before. Which checkpoint of that architecture the
base model holds is not said (an FP8 copy serves under the same name), so the weights are a band over the formats
it could have (resolution/stated_format.py); the audit's `model_from` says how the model was named.
"""
from __future__ import annotations

import re
from typing import List, Optional, Tuple

from ctxlint.model import StatedFormat, Val
from ctxlint.nodes import MAP, Node
from ctxlint.resolution.resolve import resolve

from .crd_common import scalar, seq

_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([TBM]?)\s*$")
_SCALE = {"T": 1000.0, "B": 1.0, "M": 0.001, "": 1e-9}  # to billions, as parseModelSize reads a bare number
# Where the weight format would be stated: OME's runtime names none, its base model's checkpoint decides
FORMAT_FIELD = "weight format in the OME runtime"


def served_model(args, runtime_spec: Optional[Node]) -> Optional[Tuple[Val[str], StatedFormat]]:
    """(the model the runtime's served name names, the format left open), or None when it names none that the
    runtime's supportedModelFormats and modelSizeRange agree with. `args`: the role's engine_args."""
    served = next((v for k, v in args if k == "served_model_name"), None)
    name = served.value if served is not None else None
    if isinstance(name, (list, tuple)):
        name = name[0] if len(name) == 1 else None
    if not isinstance(name, str) or not _HUB_ID.match(name.strip()):
        return None
    name = name.strip()
    found = resolve(name)  # the catalog, by id or by the resolver's name matches (a quantizer's suffix dropped)
    arch = found.arch
    if arch is None or found.via not in ("catalog", "name"):
        return None
    archs, low, high = _constraints(runtime_spec)
    if not archs and low is None and high is None:
        return None  # nothing the runtime states to check the name against
    if archs and not any(_same_architecture(arch, a) for a in archs):
        return None
    params = arch.total_params_b
    if low is not None or high is not None:
        if not isinstance(params, (int, float)) or (low is not None and params < low) \
                or (high is not None and params > high):
            return None
    said = ", ".join(f"modelArchitecture {a}" for a in archs)
    if low is not None or high is not None:
        said += (", " if said else "") + f"modelSizeRange {_bound(low)} to {_bound(high)}"
    raw = (f"--served-model-name {name} of the OME runtime, which no InferenceService checked names (its "
           f"--model-path is the base model's $(MODEL_PATH)): architecture matched by that name, which the "
           f"runtime's {said} agree with; the base model's weight format is not stated")
    return Val(name, served.source, raw=raw), StatedFormat(None, False, field=FORMAT_FIELD)


def _constraints(spec: Optional[Node]) -> Tuple[List[str], Optional[float], Optional[float]]:
    """(the architectures the runtime lists, its size range in billions) as written; an unreadable bound is None."""
    if spec is None or spec.kind != MAP:
        return [], None, None
    archs = [a.strip() for a in (scalar(f.get("modelArchitecture")) for f in seq(spec.get("supportedModelFormats"))
                                 if f.kind == MAP) if isinstance(a, str) and a.strip()]
    size = spec.get("modelSizeRange")
    bounds = [_billions(scalar(size.get(k))) if size is not None and size.kind == MAP else None
              for k in ("min", "max")]
    return archs, bounds[0], bounds[1]


def _billions(text) -> Optional[float]:
    m = _SIZE.match(text) if isinstance(text, str) else None
    return float(m.group(1)) * _SCALE[m.group(2)] if m else None


def _bound(value: Optional[float]) -> str:
    return "-" if value is None else f"{value:g}B"


def _same_architecture(arch, cls: str) -> bool:
    """Whether the HF architecture class `cls` is the model's: one of its config's `architectures` where ctxlint
    holds them, else its `model_type` (the text part's for a multimodal model), which the class's name before
    `For...` (or a trailing `Model`) spells without `_`, case aside (Qwen2_5_VLForConditionalGeneration and
    `qwen2_5_vl`, Gemma3ForConditionalGeneration and `gemma3_text`; `llama` is not Llama4ForConditionalGeneration)."""
    if arch.architectures:
        return cls in arch.architectures
    model_type = arch.model_type
    if not isinstance(model_type, str) or not model_type:
        return False
    kind = re.sub(r"_text(_model)?$", "", model_type.lower())
    stem = cls.split("For", 1)[0] if "For" in cls else re.sub(r"(LMHead)?Model$", "", cls)
    return bool(stem) and stem.lower().replace("_", "") == kind.replace("_", "").replace("-", "")
