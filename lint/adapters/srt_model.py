"""What an srt-slurm recipe names as its model, and how that reading was made.

srtctl (NVIDIA/srt-slurm@c88ef731636890ff6385a783e152c1790e15b194) loads the checkpoint `model.path` names:
`hf:<id>` is that Hugging Face id (core/runtime.py), else `identity.model.repo` is the id srtctl verifies at
run time, else a path with `/` names it by its last segments, as any engine's path does. A bare name is an
alias of the cluster's srtslurm.yaml `model_paths` (core/config.py resolve_config_with_defaults), which the
recipe does not hold: the checkpoint is whatever the alias points to there. The recipe's `served-model-name`
(the first of prefill, aggregated, decode, as get_served_model_name picks it) is only the name the API answers
to (backends/sglang.py passes it as --served-model-name), so it names the architecture by name, not the
checkpoint. `model.precision` is the recipe's word for the checkpoint's format (docs/config-reference.md:
"Model precision (informational: fp4, fp8, fp16, bf16)"; srtctl reads it for nothing else): the served name
is taken only when its own weight format is one `precision` can mean. When they disagree (`dsfp4` serving as
`deepseek-ai/DeepSeek-R1`, an FP8 checkpoint, with `precision: fp4`) the alias loads another checkpoint, whose
weights would be about half or twice the served name's, and the model stays unknown (CTX008 says why): a
verdict would rest on a checkpoint the recipe contradicts. ctxlint has no way to take the served name's
architecture with a format the recipe names, so the precision does not replace the checkpoint's format.
"""
from __future__ import annotations

from typing import List, Optional, Tuple

from ctxlint.model import Source, Val
from ctxlint.nodes import MAP, SCALAR, Node

from .scalar_spans import ScalarSpans

_SERVED = ("served-model-name", "served_model_name")
# model.precision -> the weight-format families it can mean. `fp4` is NVIDIA's NVFP4 in the srt-slurm recipes
# that name NVIDIA's checkpoints (dsr1-fp4: nvidia/DeepSeek-R1-FP4) and MXFP4 in others (`deepseek-v4-pro-mxfp4`
# with precision fp4, NVIDIA/srt-slurm-recipes), so both; `fp8` pairs with `minimax-m3-mxfp8` too.
PRECISIONS = {"fp4": ("nvfp4", "mxfp4"), "nvfp4": ("nvfp4",), "mxfp4": ("mxfp4",), "fp8": ("fp8", "mxfp8"),
              "mxfp8": ("mxfp8",), "bf16": ("16-bit",), "fp16": ("16-bit",), "int4": ("int4",), "int8": ("int8",)}
_FAMILY_LABEL = {"nvfp4": "NVFP4", "mxfp4": "MXFP4", "fp8": "FP8", "mxfp8": "MXFP8", "16-bit": "16-bit",
                 "int4": "4-bit integer", "int8": "INT8"}
Unresolved = List[Tuple[str, Source]]


def families(key: Optional[str]) -> Tuple[str, ...]:
    """The families of a weight format, two for one of two formats (`fp8+mxfp4-experts`, DeepSeek-V4's FP8 with
    MXFP4 experts: `precision: fp4` and `fp8` both describe it); `mixed:` keys (group targets not read) none."""
    key = (key or "").lower()
    parts = key.split("+") if "+" in key and not key.startswith("mixed:") else [key]
    found = [family(part) for part in parts]
    return tuple(dict.fromkeys(f for f in found if f is not None)) if all(found) else ()


def family(key: Optional[str]) -> Optional[str]:
    """A weight format's family as `model.precision` names it (ctxlint.physics.weights keys), None if none."""
    key = (key or "").lower()
    if "+" in key:
        return None  # two formats: families()
    if key in ("bf16", "fp16", "fp32"):
        return "16-bit"
    for prefix, name in (("nvfp4", "nvfp4"), ("mxfp4", "mxfp4"), ("mxfp8", "mxfp8"), ("fp8", "fp8"),
                         ("int8", "int8"), ("awq", "int4"), ("gptq-int4", "int4"), ("w4a16", "int4"),
                         ("int4", "int4"), ("bnb-4bit", "int4")):
        if key.startswith(prefix):
            return name
    return None


def _text(node: Optional[Node]) -> Optional[str]:
    value = node.value if node is not None and node.kind == SCALAR else None
    return value.strip() if isinstance(value, str) and value.strip() else None


def _map(node: Optional[Node], key: str) -> Optional[Node]:
    child = node.get(key) if node is not None and node.kind == MAP else None
    return child if child is not None and child.kind == MAP else None


def model_of(root: Node, model: Node, configs: List[Optional[Node]], file: str,
             spans: ScalarSpans, engine: str = "sglang", config_key: str = "sglang_config") -> Tuple[Optional[Val[str]],
                                                                                              Unresolved]:
    """(the model's id where the recipe names it, or None with why it is not known and which field would say)."""
    path_node = model.get("path")
    path = _text(path_node)
    if path is None:
        return None, [("model.path is not a name", path_node.source(file))]
    if path.startswith("hf:") and len(path) > 3:
        at = str(path_node.value).find("hf:") + 3
        return Val(path[3:], spans.source(path_node, at, at + len(path) - 3)), []
    repo = _map(_map(root, "identity"), "model")
    repo_node = repo.get("repo") if repo is not None else None
    if _text(repo_node) is not None:
        return Val(_text(repo_node), repo_node.source(file)), []
    if "/" in path:
        return Val(path, path_node.source(file)), []
    # srtctl's get_served_model_name order: prefill, aggregated, decode (configs come prefill, decode, agg)
    ordered = sorted((c for c in configs if c is not None), key=lambda c: 0 if "prefill" in c.path else
                     1 if "aggregated" in c.path or ".agg" in c.path else 2)
    served = next(((cfg.get(key), _text(cfg.get(key))) for cfg in ordered for key in _SERVED
                   if _text(cfg.get(key)) is not None), None)
    if served is None:
        return None, [(f"model.path {path!r} is an alias of the cluster's srtslurm.yaml `model_paths`, which this "
                       f"file does not hold, so the model is not known ({_settles(model, engine, config_key)})",
                       path_node.source(file))]
    node, name = served
    flag = next((_text(cfg.get("quantization")) for cfg in ordered if _text(cfg.get("quantization"))), None)
    return _by_served_name(model, path, node, name, flag, file)


def _settles(model: Node, engine: str, config_key: str) -> str:
    """Which field of the recipe would name the model, for the engine srtctl starts. TRT-LLM takes no served name
    from the recipe: srtctl's TRTLLMProtocol.get_served_model_name returns its default, the folder name of the
    path the alias stands for, and dynamo.trtllm is given `--served-model-name` that folder name
    (NVIDIA/srt-slurm@c88ef731:src/srtctl/backends/trtllm.py, core/schema.py SrtConfig.served_model_name), so
    nothing in trtllm_config names it. SGLang and vLLM take `served-model-name` from the role's config
    (backends/sglang.py and vllm.py get_served_model_name). `identity.model.repo` is the Hugging Face id srtctl
    checks the loaded checkpoint against (core/fingerprint.py verify_identity)."""
    precision = _text(model.get("precision"))
    said = f"; model.precision {precision!r} says only its format" if precision else ""
    if engine == "trtllm":
        return ("srtctl gives TRT-LLM the alias's folder name as its served name and reads none from "
                f"backend.{config_key}, so only `model.path: hf:<id>` or `identity.model.repo: <id>` would name it"
                f"{said}")
    return (f"`model.path: hf:<id>`, `identity.model.repo: <id>` or a `served-model-name` in "
            f"backend.{config_key}.prefill would name it{said}")


def _by_served_name(model: Node, path: str, node: Node, name: str, flag: Optional[str],
                    file: str) -> Tuple[Optional[Val[str]], Unresolved]:
    """The served name as the model, said so, unless model.precision contradicts its weight format."""
    precision_node = model.get("precision")
    precision = (_text(precision_node) or "").lower()
    wanted = PRECISIONS.get(precision)
    own, how = _own_format(name)
    if own == ("16-bit",) and flag is not None:
        # SGLang's and vLLM's --quantization quantizes a 16-bit checkpoint as it loads (resolution/quant_flag.py)
        from ctxlint.resolution.resolve import flag_format

        quantized = flag_format(flag)
        if quantized is not None and family(quantized.key) is not None:
            own, how = (family(quantized.key),), f"{how}; quantized as it loads by quantization {flag!r}"
    base = f"served-model-name {name} beside the cluster alias model.path {path!r}, architecture matched by name"
    if wanted is None:
        note = f"model.precision {precision!r} is no format ctxlint reads" if precision else "no model.precision"
        return Val(name, node.source(file), raw=f"{base}; {note}"), []
    if not own:
        return Val(name, node.source(file), raw=f"{base}; its weight format is not known to compare with "
                                                 f"model.precision {precision!r}"), []
    label = " with ".join(_FAMILY_LABEL[f] for f in own)
    if any(f in wanted for f in own):
        return Val(name, node.source(file), raw=f"{base}; model.precision {precision!r} agrees with its "
                                                 f"{label} weights ({how})"), []
    means = " or ".join(_FAMILY_LABEL[f] for f in wanted)
    return None, [(f"model.path {path!r} is an alias of the cluster's srtslurm.yaml `model_paths`; its "
                   f"served-model-name {name} has {label} weights ({how}) but model.precision "
                   f"{precision!r} says {means}, so the alias loads another checkpoint, which this file does not "
                   "name, and its weights are not known (write `hf:<id>` or identity.model.repo)",
                   precision_node.source(file))]


def _own_format(name: str) -> Tuple[Tuple[str, ...], str]:
    """(the served name's weight-format families, how ctxlint knows it): the built-in catalog's resolution by
    name, else what the name's own quantization tag says; ((), "") when neither tells."""
    from ctxlint.resolution.names import parse_ref
    from ctxlint.resolution.resolve import Context, resolve

    found = resolve(name, Context(hf_cache=()))  # the catalog and the name only: no file or cache of this machine
    fmt = found.weights or (getattr(found.arch, "weight_format", None) if found.arch is not None else None)
    if fmt is not None and families(fmt.key):
        return families(fmt.key), found.how
    ref = parse_ref(name)
    if ref is not None and ref.weights is not None and families(ref.weights.key):
        return families(ref.weights.key), f"{ref.weights.label} by its name"
    return (), ""
