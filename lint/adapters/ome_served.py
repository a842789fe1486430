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

So a served name that is the Hub id of a model ctxlint's catalog resolves (its own id, or a quantizer's copy the
resolver matches by name; not a bare name, not an alias like `vllm-model`) names the architecture, as srt-slurm's
served name beside a cluster alias does (srt_model.py), and only where the runtime's own constraints agree with that
model as OME compares them: one of its supportedModelFormats, with the `modelFormat` OME requires of every format,
lists an architecture that is the model's (its `model_type`: HF's class names begin with it, `qwen2` and
Qwen2ForCausalLM, `gemma3_text` and Gemma3ForConditionalGeneration; a `...ForCausalLM` class is no model with a
vision tower), and its size range, if it states one, holds the model's parameter count, each bound read as
parseModelSize reads it (a number with an optional `T`, `B` or `M`, case as written; anything else is 0, so
`max: 9b` is a range no model is in). A format with no modelArchitecture matches only a base model with none
(compareSupportedModelFormats), and OME's model agent writes the architecture of every checkpoint it reads
(internal/ome-agent/model-metadata/metadata.go updateSpec), so it says nothing of the model. A runtime that lists no
architecture, a size range with a bound missing or not a string, or one that disagrees, leaves the model unknown, as
before. Which checkpoint of that architecture the base model holds is not said (an FP8 copy serves under the same
name), so the weights are a band over the formats it could have (resolution/stated_format.py); the audit's
`model_from` says how the model was named.
"""
from __future__ import annotations

import re
from typing import List, Optional, Tuple

from ctxlint.model import StatedFormat, Val
from ctxlint.nodes import MAP, SCALAR, Node
from ctxlint.resolution.resolve import resolve

from .crd_common import scalar, seq

_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")  # a decimal ParseFloat reads
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
    archs, size = _constraints(runtime_spec)
    matched = next((a for a in archs if _same_architecture(arch, a)), None)
    if matched is None:
        return None  # no architecture stated (OME then runs no model that has one), or another one
    params = arch.total_params_b
    if size is not None and (None in size or not isinstance(params, (int, float))
                             or not size[0] <= params <= size[1]):
        return None  # a bound OME cannot compare, or the model outside the range
    said = f"modelArchitecture {matched}"
    if size is not None:
        said += f", modelSizeRange {_bound(size[0])} to {_bound(size[1])}"
    raw = (f"--served-model-name {name} of the OME runtime, which no InferenceService checked names (its "
           f"--model-path is the base model's $(MODEL_PATH)): architecture matched by that name, which the "
           f"runtime's {said} agree with; the base model's weight format is not stated")
    return Val(name, served.source, raw=raw), StatedFormat(None, False, field=FORMAT_FIELD)


def _constraints(spec: Optional[Node]) -> Tuple[List[str], Optional[Tuple[Optional[float], Optional[float]]]]:
    """(the architectures of the formats OME can match, the size range in billions or None for none). A format
    without the `modelFormat` OME requires matches no model, so its architecture is not listed. A bound that is
    missing or not a string (the CRD's field is one; OME dereferences both) is None: no model is known to fit."""
    if spec is None or spec.kind != MAP:
        return [], None
    archs = [a.strip() for a in (scalar(f.get("modelArchitecture")) for f in seq(spec.get("supportedModelFormats"))
                                 if f.kind == MAP and _is_map(f.get("modelFormat")))
             if isinstance(a, str) and a.strip()]
    size = spec.get("modelSizeRange")
    if size is None or (size.kind == SCALAR and size.value is None):
        return archs, None
    if size.kind != MAP:
        return archs, (None, None)
    return archs, (_billions(scalar(size.get("min"))), _billions(scalar(size.get("max"))))


def _is_map(node: Optional[Node]) -> bool:
    return node is not None and node.kind == MAP


def _billions(text) -> Optional[float]:
    """A bound as parseModelSize reads it, in billions: a `T`, `B` or `M` suffix (case as written) off a number
    strconv.ParseFloat reads; any other string is 0, as there (`9b` is 0). None: not a string."""
    if not isinstance(text, str):
        return None
    suffix = text[-1:] if text[-1:] in ("T", "B", "M") else ""
    number = text[:len(text) - len(suffix)]
    return float(number) * _SCALE[suffix] if _NUMBER.fullmatch(number) else 0.0


def _bound(value: Optional[float]) -> str:
    return "-" if value is None else f"{value:g}B"


def _same_architecture(arch, cls: str) -> bool:
    """Whether the HF architecture class `cls` is the model's: one of its config's `architectures` where ctxlint
    holds them, else its `model_type` (the text part's for a multimodal model), which the class's name before
    `For...` (or a trailing `Model`) spells without `_`, case aside (Qwen2_5_VLForConditionalGeneration and
    `qwen2_5_vl`, Gemma3ForConditionalGeneration and `gemma3_text`; `llama` is not Llama4ForConditionalGeneration).
    A text-only `...ForCausalLM` class is not a model the catalog counts a vision tower for (google/gemma-3-27b-it,
    `gemma3_text`, is Gemma3ForConditionalGeneration: the model agent writes that class, and Gemma3ForCausalLM,
    gemma-3-1b's, is never it)."""
    if arch.architectures:
        return cls in arch.architectures
    model_type = arch.model_type
    if not isinstance(model_type, str) or not model_type:
        return False
    if cls.endswith("ForCausalLM") and (arch.vision_params_b or 0) > 0:
        return False
    kind = re.sub(r"_text(_model)?$", "", model_type.lower())
    stem = cls.split("For", 1)[0] if "For" in cls else re.sub(r"(LMHead)?Model$", "", cls)
    return bool(stem) and stem.lower().replace("_", "") == kind.replace("_", "").replace("-", "")
