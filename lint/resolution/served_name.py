"""The model an engine's --served-model-name names, when the path it loads names none.

A Compose service or a script often loads an opaque folder (`--model=/model`, `vllm serve /mnt/models`, SGLang's
`--model-path /data/`) and answers to a name it is given (`--served-model-name=LFM2.5-1.2B-Instruct`; sweep
k8s27: tuandung1625/llm-serving `docker-compose/*.yaml`). vLLM and SGLang use that name only as the name the API
answers to: vLLM's BaseModelPath pairs it with the model_path it loads (vllm-project/vllm@
075e9ba825513f0e50ae1a5185d6db0ee405f84e:vllm/entrypoints/openai/serving_models.py), and SGLang's defaults to the
model_path (sgl-project/sglang@469c63e54e7d94591617ef9590c6aa26d54dc1bb:python/sglang/srt/server_args.py
_handle_missing_default_values), so it says which model the operator means, not which checkpoint loads: it
names the architecture as an srt-slurm recipe's served name or a path's folder name does (adapters/srt_model.py),
and only when it is, letter for letter, one catalog repository's name or `org/name` (catalog.repo_named). A shorthand, an alias, a
format tag no repository carries (`-AWQ`) or a name two organisations share names none, and the model stays
unknown (CTX008). The checkpoint's format is not known, so the weights are a band over the formats left open, as
for a folder name with no stated format (stated_format.py): a quantized checkpoint served under its base's name
widens the band and is never read as the base's 16-bit weights. Tried last, after the folder's own name, a
config.json beside the file, `models:`, the lock file and a pod label: any of those that resolves wins.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from ctxlint.model import StatedFormat
from ctxlint.resolution import catalog
from ctxlint.resolution.names import ModelRef

from ..records import replace

if TYPE_CHECKING:
    from ctxlint.resolution.resolve import Resolution

SERVED = "served"  # Resolution.via: matched by the served name (provenance.py reads it as inferred)
_NO_FORMAT = StatedFormat(None, False, field="format stated")


def by_served_name(ref: ModelRef, served: str) -> Optional[Resolution]:
    """The architecture `served` names for the local path `ref` (a plain path, not a GGUF file or a Hugging Face
    cache folder, whose own names say more), or None."""
    if not ref.local or ref.via != "id" or not isinstance(served, str):
        return None
    repo = catalog.repo_named(served.strip())
    hit = catalog.find(repo) if repo is not None else None
    if hit is None:
        return None
    from ctxlint.resolution.resolve import _hit_resolution

    what = (f"its served name {served.strip()!r} (--served-model-name), the exact name of the repository {repo}; "
            f"the folder's own name names no model ctxlint knows")
    return replace(_hit_resolution(ref, hit, what), via=SERVED)


def with_band(found: Resolution) -> Resolution:
    """`found` with its weights a band over every format the unknown checkpoint may have (stated_format.py)."""
    from ctxlint.resolution.stated_format import with_stated

    return with_stated(found, _NO_FORMAT)
