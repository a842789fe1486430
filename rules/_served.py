"""Position limits of a model named only by vLLM's or SGLang's --served-model-name (resolution/served_name.py).

The served name gives the architecture of an opaque local path (`--model=/model`), not that folder's config.json,
and the length limits CTX109 and CTX303 compare against live there: max_position_embeddings and rope_scaling, the
keys a model card tells its users to edit in a local copy for a longer context (Qwen2.5's and Qwen3's YaRN
`rope_scaling` "added to config.json"). Over such a resolution those findings are warnings that say their
condition, never errors: the catalog's config is a guess at the folder's. What the architecture itself fixes (its
attention heads, CTX204) a fine-tune or a quantized copy keeps: those findings stay errors and say the inference
(`inferred`).
"""
from __future__ import annotations

from typing import Iterable, Iterator

from ctxlint.findings import Problem
from ctxlint.model import Deployment
from ctxlint.records import replace


def if_served(dep: Deployment, problems: Iterable[Problem]) -> Iterator[Problem]:
    resolution = dep.resolution
    if resolution is None or getattr(resolution, "via", "") != "served" or dep.arch is None:
        yield from problems
        return
    written = dep.model.id.value if dep.model.id is not None else "the model path"
    cond = (f"If {written} holds {dep.arch.name}'s own config.json (the model is named only by its "
            f"--served-model-name; a local copy's rope_scaling or max_position_embeddings may be edited): ")
    for problem in problems:
        yield replace(problem, message=cond + problem.message, severity="warning")


def inferred(dep: Deployment) -> str:
    """" (inferred: ...)" after the model's name in a finding over a served-name resolution, else "": the served
    name names the architecture, and what the architecture fixes a fine-tune or a quantized copy served under that
    name keeps, so the finding stays as it is and says where its model came from."""
    resolution = dep.resolution
    if resolution is None or getattr(resolution, "via", "") != "served":
        return ""
    from ctxlint.capacity_model import served_name

    written = dep.model.id.value if dep.model.id is not None else "the model path"
    name = served_name(dep)
    said = f" {name!r}" if name else ""
    return (f" (inferred: {written} is named only by its --served-model-name{said}; a fine-tune or quantized copy "
            "keeps the architecture's heads)")
