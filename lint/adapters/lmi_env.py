"""An AWS LMI (DJL Serving) image configured by env, read as its entrypoint reads it, through the same mapping as a
serving.properties (lmi_properties.py, lmi_settings.py).

The image (`763104351884.dkr.ecr.<region>.amazonaws.com/djl-inference:0.33.0-lmi15.0.0-cu128`,
`deepjavalibrary/djl-serving:0.33.0-lmi`) runs dockerd-entrypoint.sh with CMD `serve`: `serve` starts djl-serving,
any other first word is `eval`ed as a command, so only a container without `command` whose `args` are absent or
`serve` is read here. From deepjavalibrary/djl-serving@0.33.0-dlc (8b3b685b):

- ModelInfo.java ~l.851: each non-empty `OPTION_<KEY>` is `option.<key>` (lower-cased; `entrypoint` is
  `entryPoint`), put only where serving.properties leaves the key unset (putIfAbsent); a pod spec holds no such
  file, so they are the options;
- ModelStore.createHuggingFaceModel: `HF_MODEL_ID` writes option.model_id, over OPTION_MODEL_ID;
- LmiConfigRecommender.setTensorParallelDegree: unset, the degree is TENSOR_PARALLEL_DEGREE, default `max` =
  CudaUtils.getGpuCount() / pipeline_parallel_degree: the pod's GPUs where it states them, else unknown;
- `auto` rolling batch (the default) for a text-generation architecture (ForCausalLM, LMHeadModel,
  ForConditionalGeneration): lmi-dist in 0.28-0.32, vLLM's rolling batch in 0.33-0.34, the async vLLM handler
  from 0.35; so `auto` is read as vLLM from lmi15 on, and said unread (CTX008) before, or for a tag without lmiN.

The vLLM each LMI release ships (the `lmiN` of the tag) is the engine release the physics uses; lmi20-22/24/26/27
ship development wheels and `0.36.0-lmi` names no lmiN: unknown.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from ctxlint.adapters.hardware import engine_devices
from ctxlint.adapters.java_properties import Entry
from ctxlint.adapters.lmi_properties import UNRESOLVED, engine_of
from ctxlint.adapters.lmi_settings import RENAMED, batch_default, settings
from ctxlint.engines.images import split_image
from ctxlint.engines.specs import spec_for
from ctxlint.findings import Diagnostic
from ctxlint.lazyre import lazy_compile
from ctxlint.model import Source, Val

from ..records import replace

_LMI_TAG = lazy_compile(r"(?:^|[.-])lmi(\d+)?(?=[.-]|$)")
# vLLM by LMI release (the `vllm` rolling batch and, from lmi15, the async handler); lmi14's lmi-dist venv differs
_VLLM = {10: "0.4.2", 11: "0.5.3.post1", 12: "0.6.2", 13: "0.6.3.post1", 14: "0.7.3", 15: "0.8.4", 16: "0.10.2",
         17: "0.11.1", 18: "0.12.0", 19: "0.14.0", 23: "0.18.0", 25: "0.20.1"}
_LMI_DIST = {14: "0.6.3.post1"}  # lmi-dist's venv in lmi14; from lmi15 (0.33.0) lmi-dist runs vLLM itself (_VLLM)
_AUTO_VLLM, _ASYNC = 15, 17  # `auto` is vLLM's rolling batch from lmi15 (0.33), the async handler from lmi17 (0.35)


def lmi_image(image: str) -> Tuple[bool, Optional[int]]:
    """Whether the image is an LMI one (a DJL image whose tag says `lmi`; its TensorRT-LLM, Neuron, ... tags are
    not), and the tag's lmiN (None: it names none)."""
    repo, tag = split_image(image)
    found = _LMI_TAG.search(tag.lower()) if repo.rsplit("/", 1)[-1] in ("djl-inference", "djl-serving") else None
    return found is not None, int(found.group(1)) if found is not None and found.group(1) else None


def lmi_entrypoint(reader, image: str, out) -> Optional[List[Tuple[str, Source]]]:
    """Give `reader` (workload._Reader) the container LMI's env makes (the engine, its settings and release) and
    return what is not known, for its roles; None when the image is no LMI one or its entrypoint is not kept."""
    c = reader.c
    is_lmi, lmi = lmi_image(image)
    args = [n.value for n in c.args.value] if c.args is not None and isinstance(c.args.value, list) else \
        [c.args.value] if c.args is not None else []
    if not is_lmi or c.command is not None or (c.args is not None and args != ["serve"]):
        return None
    name, at_image = None, c.image.source(reader.file)  # said as the reader says its own (no resource)
    opts, model, hidden = _options(reader)
    rolling, point = opts.get("rolling_batch"), opts.get("entryPoint")
    mode = rolling.value.strip() if rolling is not None else "auto"
    unread = next((e for e in hidden if e.key in ("OPTION_ROLLING_BATCH", "OPTION_ENTRYPOINT")), None)
    if unread is not None:
        out.diagnostics.append(Diagnostic(UNRESOLVED, (
            f"env {unread.key} is set from outside the manifest: which engine LMI runs is not known, so nothing of "
            "this container is checked"), unread.at, None))
        return []
    if mode == "auto" and (point is None or point.value.strip() == "djl_python.huggingface"):
        engine = _auto(lmi, rolling, at_image, out)
    else:  # as for a serving.properties (its CTX008 for trtllm, disable, another entryPoint), at the env entry
        engine = engine_of(opts, reader.file, name, out)
    if engine is None:
        return []  # said why (CTX008); nothing of the container is read
    unknown: List[Tuple[str, Source]] = []
    unknown_tp = _tensor_parallel(reader, opts, unknown, at_image)
    spec = spec_for("vllm")
    data, where, more = settings(opts, lambda key: spec.by_name(key) is not None, name, out)
    batch_default(data, where, engine)
    for entry in hidden:  # valueFrom: written, so no default stands for it, but not known
        target = RENAMED.get(entry.key[7:].lower(), entry.key[7:].lower())
        if spec.by_name(target) is not None:
            data[target], where[target] = None, entry.at
            unknown.append((f"env {entry.key} (set from outside the manifest)", entry.at))
    if "tensor_parallel_size" not in data and unknown_tp is not None:
        data["tensor_parallel_size"], where["tensor_parallel_size"] = None, unknown_tp
    if model is not None and model.value is None:  # HF_MODEL_ID from valueFrom: it wins, and is not known
        unknown.append(("the model (env HF_MODEL_ID is set from outside the manifest)", model.at))
    elif model is not None:
        data["model"], where["model"] = model.value, model.at
    release = _VLLM.get(lmi) if mode != "lmi-dist" or lmi is None or lmi >= _AUTO_VLLM else _LMI_DIST.get(lmi)
    tag = split_image(image)[1]
    at_tag = image.rfind(tag) if tag and isinstance(c.image.value, str) and c.image.value == image else -1
    reader.c = replace(c, engine=engine, settings=(data, where, "the LMI image's env"), engine_release=Val(
        release, c.spans.source(c.image, at_tag, at_tag + len(tag)) if at_tag >= 0 else at_image, raw=image)
        if release is not None else None)
    return unknown + more


def _auto(lmi: Optional[int], rolling: Optional[Entry], at_image: Source, out) -> Optional[Val[str]]:
    """`auto` (or unset): vLLM from lmi15 on, for the text-generation models LMI serves so; CTX008 before."""
    where = rolling.at if rolling is not None else at_image
    if lmi is not None and lmi >= _AUTO_VLLM:
        how = "the async handler" if lmi >= _ASYNC else "the rolling batch"
        return Val("vllm", where, raw=f"LMI's `auto`: vLLM ({how}) for text-generation models (ForCausalLM, "
                                      "LMHeadModel, ForConditionalGeneration)")
    said = "env OPTION_ROLLING_BATCH is `auto`" if rolling is not None else "OPTION_ROLLING_BATCH is unset (`auto`)"
    release = f"LMI {lmi} picks lmi-dist (LMI's vLLM fork), TensorRT-LLM or another handler by the image's " \
        "features and the model's architecture" if lmi is not None else "the image's tag names no LMI release " \
        "(lmiN), and LMI's `auto` picks its engine by release and by the model's architecture"
    out.diagnostics.append(Diagnostic(UNRESOLVED, (
        f"{said}: {release}; set OPTION_ROLLING_BATCH=vllm (or the engine you deploy) to have it checked"),
        where, None))
    return None


def _options(reader) -> Tuple[Dict[str, Entry], Optional[Entry], List[Entry]]:
    """The options LMI's env makes, by option name (ModelInfo: OPTION_*), the model (HF_MODEL_ID first), and the
    OPTION_* whose values the manifest does not hold (valueFrom)."""
    opts: Dict[str, Entry] = {}
    hidden: List[Entry] = []
    for var, value in reader.env.items():
        if not var.startswith("OPTION_") or value == "":
            continue
        if value is None:
            hidden.append(_entry(reader, var, value))
            continue
        key = var[len("OPTION_"):].lower()
        opts["entryPoint" if key == "entrypoint" else key] = _entry(reader, var, value)
    model = opts.pop("model_id", None)
    if "HF_MODEL_ID" in reader.env and reader.env["HF_MODEL_ID"] != "":
        model = _entry(reader, "HF_MODEL_ID", reader.env["HF_MODEL_ID"])
    return opts, model, hidden


def _entry(reader, var: str, value: Optional[str]) -> Entry:
    node = reader.env_nodes.get(var)
    at = node.source(reader.file) if node is not None else reader.c.node.source(reader.file)
    return Entry(key=var, value=value, raw=value or "", key_at=at, at=at)


def _tensor_parallel(reader, opts: Dict[str, Entry], unknown: List[Tuple[str, Source]],
                     at_image: Source) -> Optional[Source]:
    """option.tensor_parallel_degree as LMI resolves it: TENSOR_PARALLEL_DEGREE where no option sets it, and `max`
    (its default) as the GPUs the container sees over the pipeline degree."""
    tp = opts.get("tensor_parallel_degree")
    if tp is None and reader.env.get("TENSOR_PARALLEL_DEGREE") not in (None, ""):
        tp = opts["tensor_parallel_degree"] = _entry(reader, "TENSOR_PARALLEL_DEGREE",
                                                     reader.env["TENSOR_PARALLEL_DEGREE"])
    if tp is not None and tp.value is not None and tp.value.strip() != "max":
        return None
    c = reader.c
    gpus = reader.visible(engine_devices(c.accelerator_count, c.accelerator_type), {})
    pp = opts.get("pipeline_parallel_degree")
    pp_value = pp.value.strip() if pp is not None else "" if "OPTION_PIPELINE_PARALLEL_DEGREE" in reader.env \
        and reader.env["OPTION_PIPELINE_PARALLEL_DEGREE"] is None else "1"  # valueFrom: not known
    at = tp.at if tp is not None else gpus.source if gpus is not None else at_image
    opts.pop("tensor_parallel_degree", None)
    if gpus is not None and pp_value.isdigit() and 0 < int(pp_value) <= gpus.value:
        value = str(gpus.value // int(pp_value))
        opts["tensor_parallel_degree"] = Entry(key="TENSOR_PARALLEL_DEGREE", value=value, raw=value, key_at=at, at=at)
        return None
    said = "env TENSOR_PARALLEL_DEGREE is unset (`max`)" if tp is None else f"env {tp.key} is `max`"
    unknown.append((f"{said}: LMI then uses every GPU the container sees"
                    + (f" over the pipeline degree {pp_value or 'unknown'}" if pp is not None else "")
                    + ", and the pod states no GPU count" * (gpus is None), at))
    return at
