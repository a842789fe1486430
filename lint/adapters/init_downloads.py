"""The model an init container downloads into the directory the engine then serves.

    initContainers:                                   containers:
      - image: ghcr.io/volcano-sh/downloader:v0.2.0     - command: [python3, -m, vllm.entrypoints.openai.api_server,
        args: [--source, hf://Qwen/Qwen3-0.6B,                       --model, /tmp/cache/Qwen3, ...]
               --output-dir, /tmp/cache/Qwen3]

The engine's `--model /tmp/cache/Qwen3` is a local path, which names no model; the pod's init container says
which one it is. Two downloaders are read, both writing a Hugging Face repository's snapshot into the directory
given (huggingface_hub `snapshot_download(repo_id, local_dir=...)`):
- kthena's downloader (volcano-sh/kthena@3cc057284c34469fcb0ed22a12dac84b1d120719:python/kthena/downloader/
  app.py: `-s/--source` "'<namespace>/<repo_name>' or 'hf://<namespace>/<repo_name>'", `-o/--output-dir`;
  huggingface.py calls snapshot_download with `repo_id=` the source and `local_dir=` the output dir; base.py
  get_downloader sends every source but `s3://`, `obs://`, `pvc://` and `ms://` to Hugging Face): an `hf://`
  source in any image, a bare `org/name` one only in kthena's own image (`volcano-sh/downloader`), as another
  tool's `--source` may mean something else;
- the Hugging Face CLI, `huggingface-cli download REPO --local-dir DIR` or `hf download REPO --local-dir DIR`, as a
  command or inside an `sh -c` script; `hf` also takes a model's `hf://` URI for REPO (engines/hf_uris.py), but
  not with `--revision`, `--repo-type` or a file argument beside a URI that names a file (hf stops: nothing read).
An engine model path that names such a directory is read as the repository, its text kept as the value's raw form
(`/tmp/cache/Qwen3 (= Qwen/Qwen3-0.6B)` in messages). The files are where the init container's `volumeMounts` put
them: the engine's path names them when it lies at the same place of the same volume (its name, `subPath` and the
path below the mount), wherever each container mounts it; a path on another volume, or on a container's own
filesystem while the other's is a volume, is not the download. Two containers that mount nothing there are matched
by their paths (a trailing `/` aside). A reference ctxlint cannot resolve, two
repositories written to one directory, or any other downloader leave the path as it was.
"""
from __future__ import annotations

import posixpath
import re
import shlex
from typing import Dict, List, Optional, Sequence, Tuple

from ..records import replace
from ctxlint.adapters.workload import EngineRole
from ctxlint.model import Val
from ctxlint.nodes import MAP, SCALAR, SEQ, Node

_REPO = re.compile(r"[A-Za-z0-9][\w.-]*/[\w.-]+")
_CLI = ("huggingface-cli", "hf")


Place = Tuple[str, str]  # (volume, path inside it), ("", absolute path) off any volume


def downloaded_models(pod: Optional[Node]) -> Dict[Place, str]:
    """{where: repository} of the pod's init containers' downloads (`_place`; a place given two repositories: left
    out)."""
    items = pod.get("initContainers") if pod is not None and pod.kind == MAP else None
    found: Dict[Place, Optional[str]] = {}
    for c in items.value if items is not None and items.kind == SEQ else []:
        if c.kind != MAP:
            continue
        image = c.get("image")
        kthena = image is not None and image.kind == SCALAR and "volcano-sh/downloader" in str(image.value)
        for repo, where in _downloads(_words(c), kthena):
            key = _place(c, where)
            found[key] = repo if found.get(key, repo) == repo else None
    return {k: v for k, v in found.items() if v is not None}


def with_downloaded_models(roles: List[EngineRole], pod: Optional[Node],
                           container: Optional[Node] = None) -> List[EngineRole]:
    """The roles (of `container`, whose volume mounts place their paths), an engine model path that an init
    container fills read as the repository it downloads."""
    if not roles or pod is None or pod.kind != MAP or pod.get("initContainers") is None:
        return roles
    downloads = downloaded_models(pod)
    out = []
    for r in roles:
        path = r.model.value if r.model is not None and isinstance(r.model.value, str) else ""
        repo = downloads.get(_place(container, path)) if path.startswith("/") else None
        out.append(replace(r, model=Val(repo, r.model.source, raw=path)) if repo else r)
    return out


def _place(c: Optional[Node], path: str) -> Place:
    """Where an absolute `path` of container `c` lies: (volume, path inside it) under the deepest of its
    `volumeMounts` that holds it (its `subPath` in front), or ("", the path) when none does."""
    path = posixpath.normpath(path) if path.startswith("/") else path.rstrip("/") or path
    mounts = c.get("volumeMounts") if c is not None and c.kind == MAP else None
    best: Optional[Tuple[int, str, str]] = None
    for m in mounts.value if mounts is not None and mounts.kind == SEQ else []:
        if m.kind != MAP:
            continue
        # a subPathExpr ($(POD_NAME)) is matched as written
        name, at, sub = m.get("name"), m.get("mountPath"), m.get("subPath") or m.get("subPathExpr")
        if not all(n is None or n.kind == SCALAR for n in (name, at, sub)) or name is None or at is None:
            continue
        at_path = str(at.value or "")
        if not at_path.startswith("/"):
            continue
        at_path = posixpath.normpath(at_path)
        if path == at_path or path.startswith(at_path.rstrip("/") + "/"):
            if best is None or len(at_path) > best[0]:
                inside = posixpath.normpath(posixpath.join(str(sub.value or "") if sub is not None else "",
                                                           path[len(at_path):].lstrip("/")))
                best = (len(at_path), str(name.value), "" if inside == "." else inside)
    return (best[1], best[2]) if best is not None else ("", path)


def _words(c: Node) -> List[List[str]]:
    """The container's command lines: `command` + `args` as words, and each `sh -c` script's words."""
    words: List[str] = []
    for key in ("command", "args"):
        node = c.get(key)
        items = node.value if node is not None and node.kind == SEQ else [node] if node is not None else []
        words += [str(i.value) for i in items if i is not None and i.kind == SCALAR and i.value is not None]
    lines = [words]
    for w in words:
        if any(w.startswith(p) or f" {p} " in w or f"\n{p} " in w or f";{p} " in w for p in _CLI):
            try:
                lines.append(shlex.split(w, comments=True))
            except ValueError:  # an unclosed quote: the script is not read
                continue
    return lines


def _downloads(lines: Sequence[List[str]], kthena: bool):
    for words in lines:
        for i, w in enumerate(words):
            source = words[i + 1] if w in ("--source", "-s") and i + 1 < len(words) else ""
            if source.startswith("hf://") or kthena and source and "://" not in source:
                repo, out = source.removeprefix("hf://"), _after(words, ("--output-dir", "-o"))
            elif w.rsplit("/", 1)[-1] in _CLI and i + 2 < len(words) and words[i + 1] == "download":
                repo, out = words[i + 2], _after(words[i:], ("--local-dir",))
                if repo.startswith("hf://") and w.rsplit("/", 1)[-1] == "hf":  # a model's URI names its repository
                    from ctxlint.engines.hf_uris import model_uri

                    uri = model_uri(repo)
                    repo = uri.repo if uri is not None and not _uri_refused(words[i + 3:], uri.path) else ""
            else:
                continue
            if out and _REPO.fullmatch(repo) and "$" not in out + repo:
                yield repo, out


# what hf refuses beside an `hf://` URI (huggingface_hub 2.5.0 cli/download.py: CLIError): the type and revision
# options, which the URI gives, and a file argument when the URI names a path
_URI_REFUSED = ("--revision", "--repo-type", "--type")
_END = ("&&", "||", "|", ";")


def _uri_refused(rest: Sequence[str], path: str) -> bool:
    """Whether `hf download URI REST...` stops before it downloads (REST up to the end of its command)."""
    for k, w in enumerate(rest):
        if w in _END or w.endswith(";"):
            break
        if w.split("=", 1)[0] in _URI_REFUSED:
            return True
        if k == 0 and path and not w.startswith("-"):  # a file right after a URI that names one
            return True
    return False


def _after(words: Sequence[str], flags: Sequence[str]) -> Optional[str]:
    for i, w in enumerate(words):
        if w in flags and i + 1 < len(words):
            return words[i + 1]
        for f in flags:
            if w.startswith(f + "="):
                return w[len(f) + 1:]
    return None
