"""The names of what kustomize overlays build, as findings give them: the files an overlay is read from, named as the
run names its own (kustomize_overlays, kustomize_patch_files), and the deployments of overlays that kustomize gives
one name."""
from __future__ import annotations

import os
from typing import Any, List

from ctxlint.model import Val


def named(path: str, like: str) -> str:
    """`path` (absolute) as the run names its files: relative to the current directory where the file `like` (the
    one it was given, a workload or a patch) is named relatively, as a finding on any file of the run is; else as is."""
    if os.path.isabs(like):
        return path
    try:
        return os.path.relpath(path)
    except ValueError:  # another drive (Windows)
        return path


def told_apart(made: List[Any], paths: List[str], workload: str, alone: Any = None) -> None:
    """Overlays of one base that give its workload one name (none with a namePrefix or nameSuffix of its own: one
    overlay a namespace or a cluster) are told apart by their directory from the base's parent, as device_options
    names a workload's options (`vllm [prod]`, `vllm [staging]`): their findings at the base's lines were alike by
    place and deployment. `alone`: the base read alone beside them, keeping its name."""
    names = [m.name.value for m in made + ([alone] if alone is not None else []) if m is not None and m.name]
    top = os.path.dirname(os.path.dirname(os.path.abspath(workload)))
    for m, path in zip(made, paths):
        if m.name is not None and names.count(m.name.value) > 1:
            where = os.path.relpath(os.path.dirname(os.path.abspath(path)), top).replace(os.sep, "/")
            m.name = Val(f"{m.name.value} [{where}]", m.name.source)
