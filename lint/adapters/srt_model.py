"""What an srt-slurm recipe names as its model, and how that reading was made.

srtctl (NVIDIA/srt-slurm@c88ef731636890ff6385a783e152c1790e15b194) loads the checkpoint `model.path` names:
`hf:<id>` is that Hugging Face id (core/runtime.py), else `identity.model.repo` is the id srtctl verifies at
run time, else a path with `/` names it by its last segments, as any engine's path does. A bare name is an
alias of the cluster's srtslurm.yaml `model_paths` (core/config.py resolve_config_with_defaults), which the
recipe does not hold: the checkpoint is whatever the alias points to there. The recipe's `served-model-name`
(the first of prefill, aggregated, decode, as get_served_model_name picks it) is only the name the API answers
to (backends/sglang.py passes it as --served-model-name), so it names the architecture by name, not the
checkpoint. `model.precision` is the recipe's word for the checkpoint's format (core/schema.py ModelConfig
requires it; docs/config-reference.md: "Model precision (informational: fp4, fp8, fp16, bf16)"; srtctl makes
no engine flag of it). It goes to the resolver beside the model (ctxlint.model.StatedFormat), which weighs it
against the model's own format (resolution/stated_format.py): where the id names only the architecture (a
served name, a path's folder) it sets the checkpoint's format, and where they disagree the weights are a band
over both, so `dsfp4` served as the FP8 `deepseek-ai/DeepSeek-R1` with `precision: fp4` is weighed as NVFP4 up
to FP8 instead of left unknown.
"""
from __future__ import annotations

from typing import List, Optional, Tuple

from ctxlint.model import Source, StatedFormat, Val
from ctxlint.nodes import MAP, SCALAR, Node
from ctxlint.resolution.catalog import repo_named

from .scalar_spans import ScalarSpans

_SERVED = ("served-model-name", "served_model_name")
Unresolved = List[Tuple[str, Source]]


def _text(node: Optional[Node]) -> Optional[str]:
    value = node.value if node is not None and node.kind == SCALAR else None
    return value.strip() if isinstance(value, str) and value.strip() else None


def _map(node: Optional[Node], key: str) -> Optional[Node]:
    child = node.get(key) if node is not None and node.kind == MAP else None
    return child if child is not None and child.kind == MAP else None


def model_of(root: Node, model: Node, configs: List[Optional[Node]], file: str,
             spans: ScalarSpans, engine: str = "sglang",
             config_key: str = "sglang_config") -> Tuple[Optional[Val[str]], Unresolved, StatedFormat]:
    """(the model's id where the recipe names it, or None with why it is not known and which field would say;
    what model.precision says of the checkpoint, for the resolver)."""
    path_node = model.get("path")
    path = _text(path_node)
    precision = model.get("precision")
    word = Val(_text(precision), precision.source(file)) if _text(precision) is not None else None
    flag = next((_text(cfg.get("quantization")) for cfg in configs if cfg is not None
                 and _text(cfg.get("quantization"))), None)
    stated = StatedFormat(word, True, quantization=flag)
    if path is None:
        return None, [("model.path is not a name", path_node.source(file))], stated
    if path.startswith("hf:") and len(path) > 3:
        at = str(path_node.value).find("hf:") + 3
        return Val(path[3:], spans.source(path_node, at, at + len(path) - 3)), [], stated
    repo = _map(_map(root, "identity"), "model")
    repo_node = repo.get("repo") if repo is not None else None
    if _text(repo_node) is not None:
        return Val(_text(repo_node), repo_node.source(file)), [], stated
    stated = StatedFormat(word, False, quantization=flag)  # a folder's or a served name: the architecture only
    if "/" in path:
        return Val(path, path_node.source(file)), [], stated
    # srtctl's get_served_model_name order: prefill, aggregated, decode (configs come prefill, decode, agg). It
    # reads all three of backend.<config> whichever roles run (backends/sglang.py, vllm.py get_served_model_name),
    # so an aggregated recipe's `prefill:` block names it too
    backend = _map(_map(root, "backend"), config_key)
    ordered = [c for c in (_map(backend, mode) for mode in ("prefill", "aggregated", "decode")) if c is not None]
    ordered += sorted((c for c in configs if c is not None and all(c is not o for o in ordered)), key=lambda c: 0
                      if "prefill" in c.path else 1 if "aggregated" in c.path or ".agg" in c.path else 2)
    served = next(((cfg.get(key), _text(cfg.get(key))) for cfg in ordered for key in _SERVED
                   if _text(cfg.get(key)) is not None), None)
    if served is None or engine == "trtllm":  # srtctl reads no served name for TRT-LLM (_settles)
        named = _hub_name(path)
        if named is not None:
            return Val(path, path_node.source(file), raw=named), [], stated
        return None, [(f"model.path {path!r} is an alias of the cluster's srtslurm.yaml `model_paths`, which this "
                       f"file does not hold, so the model is not known ({_settles(model, engine, config_key)})",
                       path_node.source(file))], stated
    node, name = served
    return Val(name, node.source(file), raw=f"served-model-name {name} beside the cluster alias model.path "
                                            f"{path!r}, architecture matched by name"), [], stated


def _hub_name(alias: str) -> Optional[str]:
    """How a cluster alias names the architecture when it is, letter for letter (case and `_`/`-` aside), the
    name of exactly one Hugging Face repository ctxlint's catalog holds (`DeepSeek-R1-0528`, deepseek-ai's); None
    otherwise. srtctl reads a bare `model.path` as the key of srtslurm.yaml `model_paths`, else as a folder of
    that name (core/config.py resolve_config_with_defaults, core/validation.py _preflight_model's "literal"
    source), so such an alias names the checkpoint as a folder `/models/DeepSeek-R1-0528` would: the architecture
    by name, its format left to model.precision (the StatedFormat made above). A shorthand (`dsr1`), a name with a
    format tag the catalog does not hold as a repository (`minimax-m2.5-fp8`) or one two organisations' repos
    share (catalog.py drops such bare names) stays unknown."""
    matched = repo_named(alias) if "/" not in alias else None
    if matched is None:
        return None
    return (f"model.path {alias!r}, a cluster alias of srtslurm.yaml `model_paths` (or a folder of that name), is "
            f"the exact name of the Hugging Face repository {matched}: architecture matched by that name, format "
            f"from model.precision")


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
