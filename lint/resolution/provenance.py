"""How the model a deployment's checks use was reached, when the file does not state it literally.

Two steps can put a model in place of what a file says, and either is an inference the user must be able to see:

* the adapter's reading of the file: srt-slurm's `served-model-name` beside a cluster alias of srtslurm.yaml's
  `model_paths`, or an alias spelled as a Hub repository's name (adapters/srt_model.py), which the model id's
  `raw` holds as a sentence; or a name the file gives that the adapter maps to a repository id (a KAITO preset),
  where `raw` is that name and does not contain the id. A `raw` that is the id as written around it (`hf://<id>`,
  `pvc://claim/<id>`) is the id stated;
* the resolver's match (resolution/resolve.py): a name matched by dropping a quantizer's suffix or by a local
  path's or a storage URI's folder name (`via` "name"), a pod label naming the model (`via` "label"), or
  vLLM's or SGLang's --served-model-name beside an opaque local path (`via` "served": resolution/served_name.py).
  Its account (`how`) starts with that step, before the weight format's.

An id the catalog holds exactly (its own id, a listed alias, a derivative with its source), a config.json, the
lock file or `models:` is the model stated: no provenance, and the output is as it was. `model_from` is "" then.
"""
from __future__ import annotations

from typing import Optional

from ctxlint.model import Deployment
from ctxlint.resolution.names import norm
from ctxlint.resolution.resolve import Resolution

_INFERRED_VIA = ("name", "label", "served")


def model_from(dep: Deployment, resolution: Optional[Resolution] = None) -> str:
    """How the model was inferred from what the file says ("" when it is stated): the adapter's step, then the
    resolver's (`resolution`, else the deployment's), joined by "; "."""
    steps = [s for s in (_read_as(dep), _matched(resolution or dep.resolution)) if s]
    return "; ".join(steps)


def _read_as(dep: Deployment) -> Optional[str]:
    val = dep.model.id
    if val is None or not isinstance(val.value, str) or not isinstance(val.raw, str) or not val.raw.strip():
        return None
    raw = val.raw.strip()
    if raw == val.value.strip():  # the id as written (a path with a space in it too: `"/data/my models/NAME"`)
        return None
    if any(ch.isspace() for ch in raw):  # the adapter's account of its reading (srt_model.py)
        return raw
    if norm(val.value) in norm(raw):  # the id as written, with a scheme or a volume before it
        return None
    return f"{raw!r} in the file, read as {val.value}"


def _matched(found: Optional[Resolution]) -> Optional[str]:
    if found is None or found.arch is None or found.via not in _INFERRED_VIA:
        return None
    return found.match or found.how.split("; ", 1)[0]  # the match itself; the weight format's account follows it
