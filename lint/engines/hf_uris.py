"""The model repository an `hf://` URI names, as `hf download` reads it.

`hf download` takes an `hf://[<TYPE>/]<ID>[@<REVISION>][/<PATH>]` URI in place of REPO (huggingface_hub 2.5.0:
src/huggingface_hub/cli/download.py, which branches on the `hf://` prefix; utils/_hf_uris.py parse_hf_uri; the
branch first ships in the 1.19.0 wheel, huggingface/huggingface_hub#4297, and the 1.18.0 wheel's cli/download.py
has none, so an older `hf` fails on it as an invalid repository id; 1.19.0's parser splits a URI as 2.5.0's does). The
URI then decides the repository type, the revision and the file: `--repo-type` or `--revision` beside it, or a
file path in it beside positional file names, stop the command (CLIError).

Read here the way parse_hf_uri reads it, for model repositories only:
- no type prefix is a model; `models/` names one too; `datasets/`, `spaces/`, `kernels/`, `buckets/` (and the
  singular spellings, which it refuses) are not;
- `ORG/NAME` is the id; an `@` right after it starts the revision, up to the next `/` (a special ref,
  `refs/pr/N` or `refs/convert/X`, holds slashes itself: left unknown here, as is an empty one);
- what follows is the path in the repository, and a URI that ends in `/` names a folder (download.py appends the
  `/` back, so `hf download` takes it as a subfolder); a path with an empty segment (`ORG/NAME//file`, as
  `hf://$REPO/$DIR/$FILE` with an empty DIR writes it) is refused (HfUri.__post_init__), so None.
Anything else is None: unknown, as before.
"""
from __future__ import annotations

from typing import NamedTuple, Optional

_PREFIX = "hf://"
_OTHER_TYPES = ("datasets", "spaces", "kernels", "buckets", "model", "dataset", "space", "kernel", "bucket")


class RepoUri(NamedTuple):
    repo: str  # ORG/NAME
    revision: str  # "" when the URI names none
    path: str  # the path in the repository, "" for the whole; a folder ends in "/"


def model_uri(text: str) -> Optional[RepoUri]:
    """The model repository, revision and path an `hf://` URI names, or None (the module docstring)."""
    if not text.startswith(_PREFIX):
        return None
    body = text[len(_PREFIX):]
    first, slash, rest = body.partition("/")
    if first in _OTHER_TYPES:
        return None
    if first == "models" and slash:
        body = rest
    folder = body.endswith("/")
    location = body.strip("/")
    at = location.find("@")
    revision = ""
    if at == -1 or location[:at].count("/") > 1:  # an `@` in a file name is the file's
        parts = location.split("/", 2)
        repo = "/".join(parts[:2])
        path = parts[2] if len(parts) > 2 else ""
    else:
        repo, after = location[:at], location[at + 1:]
        if after.startswith("refs/"):
            return None
        revision, _, path = after.partition("/")
        if not revision or "%" in revision:  # parse_hf_uri unquotes it: `feature%2Ffoo` is `feature/foo`
            return None
    org, _, name = repo.partition("/")
    if not org or not name or "/" in name:
        return None
    if path.startswith("/") or "//" in path:  # an empty segment: HfUri refuses the path, and hf stops
        return None
    return RepoUri(repo, revision, path + "/" if path and folder else path)
