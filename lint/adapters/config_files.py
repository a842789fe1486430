"""Engine config files that a command names (`vllm serve --config cfg.yaml`, SGLang `--config`,
TRT-LLM `--extra_llm_api_options`) and that sit in the checked tree.

A container sees its own paths; the file on disk is found through the mounts the
input format declares (compose `volumes: ["./cfg.yaml:/app/cfg.yaml"]`), or, for a
relative path, beside the manifest. Keys read from the file point into that file,
so a finding on a config-file value names the config file's line and column.
A file the container's own script writes from a here-document (`cat <<'EOF' > cfg.yaml`) is
read from the script, its keys pointing inside it. A file that is not found is reported by the
workload core as unresolved (CTX008); one the script writes from a here-document ctxlint does not
take as written (a body the shell expands) is reported so, at the here-document's line.
"""
from __future__ import annotations

import os
import posixpath
from typing import TYPE_CHECKING, Any, Callable, Dict, Mapping, Optional, Sequence, Tuple

from ctxlint.adapters.upward import folders_up
from ctxlint.engines.heredocs import declined_files, written_files
from ctxlint.loader import parse_text
from ctxlint.file_reader import read_path
from ctxlint.model import Source
from ctxlint.nodes import MAP, SCALAR, SEQ, Node, dotted_sources

if TYPE_CHECKING:
    from ctxlint.adapters.scalar_spans import ScalarSpans

Found = Optional[Tuple[Any, Dict[str, Source]]]
Reader = Callable[[str], Found]
MAX_CONFIG_BYTES = 1 << 20  # engine configs are small; anything bigger is not one


def tree_reader(manifest: str, mounts: Optional[Mapping[str, str]] = None, first: Optional[Reader] = None) -> Reader:
    """A config reader for containers of `manifest`: `first` (e.g. ConfigMaps), then the tree."""
    base = os.path.dirname(manifest) if manifest not in ("-", "") and not manifest.startswith("<") else None

    def read(path: str) -> Found:
        found = first(path) if first is not None else None
        if found is not None or base is None:
            return found
        found = mounted_file(path, base, mounts or {})
        return load(found) if found is not None else None
    return read


def script_reader(script: str) -> Reader:
    """A config reader for a launch script's engine command. The shell resolves a relative path against the
    directory the script is run from, which the script does not say: beside the script (as beside a manifest), else,
    for a path that names a folder (`./tuning/cfg.yaml`, `configs/x.yaml`), the nearest folder above the script
    from which the path leads to a file, as when a repository's scripts are run from its root (`bash
    tuning/serve.sh`). A bare file name, an absolute path or one that climbs (`..`) is read beside the script only.
    The keys read point into the file found, so every finding on them names it."""
    beside = tree_reader(script)
    start = os.path.dirname(os.path.abspath(script)) if script not in ("-", "") and not script.startswith("<") \
        else None

    def read(path: str) -> Found:
        found = beside(path)
        if found is not None or start is None:
            return found
        above = _above(path, start)
        return load(above) if above is not None else None
    return read


_LEVELS = 8  # folders above a script that a repository-relative path is looked for in (a script sits a few deep)


def _above(path: str, start: str) -> Optional[str]:
    wanted = posixpath.normpath(path)
    parts = wanted.split("/")
    if posixpath.isabs(wanted) or len(parts) < 2 or ".." in parts:
        return None
    # the folders above the script, as upward.folders_up bounds them (the script's own folder is read elsewhere)
    for folder in folders_up(start, _LEVELS + 1)[1:]:
        candidate = os.path.join(folder, *parts)
        if os.path.isfile(candidate):
            return candidate
    return None


def mounted_file(path: str, base: str, mounts: Mapping[str, str]) -> Optional[str]:
    """The file on disk behind a container's `path`: through a bind mount (`mounts`, container path -> host path
    relative to `base`, the manifest's directory), else a relative path beside the manifest; None when none is
    there. An engine config file (`--config`) and a script a compose service runs are found alike."""
    return next((c for c in _candidates(path, base, mounts) if os.path.isfile(c)), None)


def _candidates(path: str, base: str, mounts: Mapping[str, str]):
    wanted = posixpath.normpath(path)
    for target, host in mounts.items():
        target = posixpath.normpath(target)
        if wanted == target:
            yield os.path.normpath(os.path.join(base, host))
        elif wanted.startswith(target.rstrip("/") + "/"):
            yield os.path.normpath(os.path.join(base, host, wanted[len(target) + 1:]))
    if not posixpath.isabs(wanted):
        yield os.path.normpath(os.path.join(base, wanted))


def load(file: str) -> Found:
    """A YAML/JSON mapping file -> (plain data, {dotted key: Source in that file})."""
    loaded = read_path(file, max_bytes=MAX_CONFIG_BYTES)
    if loaded.diagnostics or len(loaded.documents) != 1 or loaded.documents[0].root.kind != MAP:
        return None
    root = loaded.documents[0].root
    return root.plain(), dotted_sources(root, lambda node: node.source(file))


def written_by_script(spans: "ScalarSpans", nodes: Sequence[Node], texts: Sequence[str], path: str) -> Found:
    """The file at `path` when the container's own script writes it from a here-document
    (engines/heredocs.py): (plain data, {dotted key: Source inside the script}), or None."""
    wanted = posixpath.normpath(path)
    for node, text in zip(nodes, texts):
        body = written_files(text).get(wanted) if isinstance(text, str) else None
        if body is None:
            continue
        inner = parse_text(text[body[0]:body[1]], spans.file)
        if inner.diagnostics or len(inner.documents) != 1 or inner.documents[0].root.kind != MAP:
            return None
        root = inner.documents[0].root
        return root.plain(), dotted_sources(root, spans.within(node, text, body[0]))
    return None


def declined_by_script(spans: "ScalarSpans", nodes: Sequence[Node], texts: Sequence[str], path: str) -> Optional[str]:
    """Why the file at `path`, which the container's own script writes from a here-document, is not read
    (engines/heredocs.py declined_files), with the here-document's line in the file; None when no
    here-document writes it."""
    wanted = posixpath.normpath(path)
    for node, text in zip(nodes, texts):
        found = declined_files(text).get(wanted) if isinstance(text, str) and "<<" in text else None
        if found is not None:
            line = spans.source(node, found[0], found[0] + 2, text).line
            return f"written by the here-document at line {line}{found[1]}"
    return None


def compose_mounts(service: Node, interpolate: Optional[Callable[[str], Optional[str]]] = None,
                   twice: Optional[str] = None) -> Dict[str, str]:
    """Container path -> host path (relative to the compose file) from a service's bind mounts. `interpolate`:
    Compose's interpolation of a written path (`${CONFIG_DIR:-../configs}/vllm` is its default when the host
    sets nothing, as everywhere else in the file); None for a path that needs the host's value: not followed.
    `twice`: what a target mounted twice maps to (the daemon refuses "Duplicate mount point"); else the last."""
    out: Dict[str, str] = {}
    seen = set()

    def put(inside: str, host: str) -> None:
        key = inside.rstrip("/") or "/"
        out[inside] = twice if twice is not None and key in seen else host
        seen.add(key)
    volumes = service.get("volumes") if service.kind == MAP else None

    def path(text: str) -> Optional[str]:
        return interpolate(text) if interpolate is not None and "$" in text else text

    for item in volumes.value if volumes is not None and volumes.kind == SEQ else ():
        if item.kind == SCALAR and isinstance(item.value, str):
            written = path(item.value)
            parts = written.split(":") if written is not None else []
            if len(parts) >= 2 and parts[0].startswith((".", "/", "~")):
                put(parts[1], parts[0])
        elif item.kind == MAP:
            source, target = item.get("source"), item.get("target")
            if source is not None and target is not None and isinstance(source.value, str) \
                    and isinstance(target.value, str):
                host, inside = path(source.value), path(target.value)
                if host is not None and inside is not None:
                    put(inside, host)
    return out
