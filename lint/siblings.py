"""Read-only context for files named one by one, as pre-commit passes the staged files.

The prefill and decode halves of one deployment often sit in sibling files, and the
rules about disaggregated serving (CTX102, CTX108, ...) need both. A hook that is
given only the staged half would never pair it: `check deploy/` finds CTX108 and the
hook misses it. So when a named file holds a half whose other half is not in the
run, the other YAML/JSON files and shell scripts of its directory are read as context: they are
paired and checked with it. Their findings are reported only where they are about a deployment a
file passed holds a value of (engine._about_named): the staged half's deployment is never reported
clean while its findings sit in the other half's file.
Excluded and hidden files are not read; a directory walked in full needs nothing.
A named gateway file (LiteLLM, Kong, an InferencePool, ...) gets its siblings as context too: the
engines its routes reach are usually in them; so does a KServe or OME InferenceService whose runtime
is in none of the files passed, and a runtime none of their services names (adapters/crd_refs.py), and
a workload that reads a ConfigMap none of them holds, or a ConfigMap none of their workloads reads
(adapters/config_map_refs.py).
"""
from __future__ import annotations

import os
from typing import Callable, Collection, Dict, List, Optional, Sequence, Set

from ctxlint.discover import PATTERNS
from ctxlint.model import DECODE, PREFILL, Deployment, Source
from ctxlint.pairing import half, hinted, pair_key

MAX_SIBLINGS = 256  # as discover.PAIRING_BLOCK: halves further apart are not paired in a full run either


def needs_context(named: Collection[str], deployments: Dict[str, Sequence[Deployment]]) -> bool:
    """Does a named file hold a prefill or decode half whose other half no file of the run holds?"""
    kinds: Dict[tuple, Set[str]] = {}
    for deps in deployments.values():
        for dep in deps:
            kind = half(dep) or hinted(dep)
            if kind is not None and pair_key(dep) is not None:
                kinds.setdefault(pair_key(dep), set()).add(kind)
    for path in named:
        for dep in deployments.get(path, ()):
            kind = half(dep) or hinted(dep)
            if kind is not None and pair_key(dep) is not None and \
                    (DECODE if kind == PREFILL else PREFILL) not in kinds[pair_key(dep)]:
                return True
    return False


def sibling_files(named: Sequence[str], present: Collection[str], excluded: Callable[[str], bool]) -> List[str]:
    """The YAML/JSON files and scripts beside the named ones that the run does not read, in name order."""
    seen = {os.path.abspath(p) for p in present}
    out: List[str] = []
    for folder in dict.fromkeys(os.path.dirname(p) for p in named):
        try:
            names = sorted(os.listdir(folder or "."))
        except OSError:
            continue  # the named file was read; an unlistable directory only means no context
        for name in names:
            path = os.path.join(folder, name)
            if name.startswith(".") or not name.lower().endswith(PATTERNS) or not os.path.isfile(path) \
                    or os.path.abspath(path) in seen or excluded(path):
                continue
            seen.add(os.path.abspath(path))
            out.append(path)
    return out[:MAX_SIBLINGS]


def context_files(named: Sequence[str], deployments: Dict[str, Sequence[Deployment]], present: Collection[str],
                  excluded: Callable[[str], bool], max_bytes: int, gateways: Sequence[str] = (),
                  loose: Sequence[str] = (), wanted: Optional[Callable[[str], bool]] = None) -> list:
    """The sibling files to read as context for `named` (LoadedFiles), or none when nothing is unpaired.

    gateways: named files that hold gateway routes; their engines (and Services) usually sit in
    sibling files, so those are read too, for the join (ctxlint.stack).
    loose: named files with an InferenceService whose runtime (or base model) no file of the run
    holds, or with a runtime no service of the run names (adapters.crd_refs.Refs.loose), and the
    same for ConfigMaps and the workloads that read them (adapters.config_map_refs.Maps.loose): the
    other side is usually a sibling file."""
    from ctxlint.file_reader import read_path

    if not named or not (gateways or loose or needs_context(named, deployments)):
        return []
    paths = sibling_files(named, present, excluded)
    if wanted is not None and not gateways and not needs_context(named, deployments):
        # only a cross-file join asks: a sibling whose bytes cannot complete it is not parsed (joins.Joins.wanted)
        paths = [p for p in paths if wanted(_raw_text(p, max_bytes))]
    return [read_path(path, max_bytes=max_bytes) for path in paths]


def _raw_text(path: str, max_bytes: int) -> str:
    """The file's bytes as text for a marker search (ASCII markers: latin-1 never fails); "" when unreadable."""
    try:
        with open(path, "rb") as handle:
            return handle.read(max_bytes + 1).decode("latin-1")
    except OSError:
        return ""


def held_spans(deployments: Sequence[Deployment], context: Collection[str]) -> Dict[str, List[tuple]]:
    """file -> (first, last, name) of the lines of the values each deployment holds there, for the deployments a
    file outside `context` holds a value of: where a finding in a context file is about a deployment the run
    counts. A finding's deployment name alone does not tell (two deployments of one name in two namespaces; a
    refused flag's finding names none, and sits on the flag's line, before its value's), nor its place alone
    (two services running one runtime: each one's finding at the runtime's value)."""
    spans: Dict[str, List[tuple]] = {}
    for dep in deployments:
        if all(f in context for f in dep.files):
            continue
        lines: Dict[str, List[int]] = {}
        _walk(dep, lines, set())
        for file, found in lines.items():
            spans.setdefault(file, []).append((min(found), max(found), dep.display_name))
    return spans


def role_spans(deployments: Sequence[Deployment]) -> Dict[str, List[tuple]]:
    """file -> (first, last, name) of the lines of the values each deployment's roles and model hold there: where
    its launches are written. Unlike held_spans, a deployment's own source (a script's first line, shared by every
    launch the script makes) is left out, so the launches of one file keep apart."""
    spans: Dict[str, List[tuple]] = {}
    for dep in deployments:
        lines: Dict[str, List[int]] = {}
        _walk((dep.roles, dep.model.id), lines, set())
        for file, found in lines.items():
            spans.setdefault(file, []).append((min(found), max(found), dep.display_name))
    return spans


def launch_lines(deployments: Sequence[Deployment]) -> Dict[str, List[tuple]]:
    """file -> (line, name) of each deployment's roles' own lines (a launch's first line) there. A word of a launch
    after its last value (`llama-server -m a.gguf -c 4096 \\` then `  extra.gguf &`) lies outside that launch's
    role_spans, maybe inside another's (whose `"${ARGS[@]}"` holds an array written above): the launch it follows
    is the one it belongs to."""
    out: Dict[str, List[tuple]] = {}
    for dep in deployments:
        for role in dep.roles:
            if role.source is not None and role.source.file:
                out.setdefault(role.source.file, []).append((role.source.line, dep.display_name))
    return out


# the deployment model's modules (ctxlint.model and the two it re-exports from: Val and Source, Pool)
_MODEL_MODULES = frozenset(("ctxlint.model", "ctxlint.vals", "ctxlint.model_pool"))


def _walk(obj, lines: Dict[str, List[int]], seen: Set[int]) -> None:
    """The lines of a record's values, through its fields, tuples and lists (only ctxlint.model's records: the
    arch and resolution a capacity stage hangs on a deployment hold no source of a file)."""
    if isinstance(obj, Source):
        lines.setdefault(obj.file, []).append(obj.line)
        return
    if isinstance(obj, (tuple, list)):
        for item in obj:
            _walk(item, lines, seen)
        return
    fields = getattr(type(obj), "__record_fields__", None)
    if not fields or id(obj) in seen or type(obj).__module__ not in _MODEL_MODULES:
        return
    seen.add(id(obj))
    for name in fields:
        _walk(getattr(obj, name, None), lines, seen)


def about_held(finding, spans: Dict[str, List[tuple]]) -> bool:
    """Does a context file's finding sit among the lines of a counted deployment's values (of that deployment,
    when it names one)?"""
    return any(first <= finding.line <= last and (finding.deployment is None or finding.deployment == name)
               for first, last, name in spans.get(finding.file, ()))

