"""What to do about a model reference the resolver could not resolve, each way matching the step of resolve.py
that would then find it: its config.json or GGUF file where `_beside` reads one, the lock file for a Hub id, or
`models:` in .ctxlint.yaml. Apart from resolve.py because only an unresolved model (and `ctxlint models`, and a
model found only in the local Hugging Face cache, which LOCK_HINT asks to pin) needs these words.
"""
from __future__ import annotations

import os

from ctxlint.resolution.names import ModelRef, hub_uri

LOCK_HINT = "run `ctxlint models lock` to record its architecture from the Hugging Face Hub"


def unresolved_hint(ref: ModelRef) -> str:
    """What would resolve a model the resolver could not: where its config.json or GGUF file would be read, or
    the lock file, or `models:`."""
    if ref.via == "gguf":  # a file, never a folder with a config.json in it, and not a Hub id to lock
        return f"{gguf_hint(ref)}; or add the model under `models:` in .ctxlint.yaml"
    name = os.path.basename(ref.written.rstrip("/"))
    if ref.via == "uri" and not hub_uri(ref):  # `_beside` reads only the folder's name beside the deploy file
        return (f"a storage URI ({ref.written}): put the model's config.json in a folder {name}/ beside the deploy "
                "file, or add the model under `models:` in .ctxlint.yaml")
    if ref.local:  # `_beside`: the path itself (on this machine, or from the deploy file's folder), or its name
        stem = ref.written.rstrip("/")
        where = "" if "$" in stem or "`" in stem else f"at {stem}/config.json" + (  # `$ROOT/NAME`: model_folder.py
            "" if os.path.isabs(stem) else " from the deploy file's folder") + ", or "
        return (f"a local path: put the model's config.json {where}in a folder {name}/ beside the deploy file, "
                "or add the model under `models:` in .ctxlint.yaml")
    return f"{LOCK_HINT} (`pip install 'ctxlint[hub]'`), or add it under `models:` in .ctxlint.yaml"


def gguf_hint(ref: ModelRef) -> str:
    """Where a GGUF file would be read from (`_beside`): the path as written (an absolute one, or relative to the
    deploy file's folder; `~` is the serving host's home, not expanded, and a path with a part the file does not
    give, `${MODELS}/NAME.gguf`, is no place: engines/model_folder.py) and its name beside the deploy file."""
    stem = ref.written.rstrip("/")
    name = os.path.basename(stem)
    places = [f"as {name} beside the deploy file"]
    if stem != name and "://" not in stem and not stem.startswith("~") and "$" not in stem and "`" not in stem:
        places.insert(0, f"at {stem}" if os.path.isabs(stem) else f"at {stem} from the deploy file's folder")
    return (f"a GGUF file, whose header ctxlint reads (install `ctxlint[gguf]`) when it finds the file "
            f"{' or '.join(places)}")
