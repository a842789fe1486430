"""What the files of one directory group look up in each other, for engine._lint_group.

Two joins cross files: a KServe or OME InferenceService and the runtime (and base model) it names
(adapters/crd_refs.py), and a workload and the ConfigMaps its containers read variables from
(adapters/config_map_refs.py). Each is built only for a group whose text names what it looks up, so
a run over files of other kinds (most of a tree, a one-file pre-commit run of a plain Deployment)
does no more than these substring searches and never imports either module.
"""
from __future__ import annotations

from typing import Any, Callable, Collection, Optional, Sequence

from ctxlint.loader import LoadedFile

# crd_refs.MARKERS and config_map_refs.MARKERS (tests/adapters/test_sibling_runtimes.py and
# test_sibling_config_maps.py keep them equal)
REF_MARKERS = ("InferenceService", "ServingRuntime", "BaseModel", "nimCache", "NIMCache")
MAP_MARKERS = ("configMapKeyRef", "configMapRef", "configMap")
MAP_HOLDER = "ConfigMap"
MAP_GENERATOR = "configMapGenerator"  # a kustomization's (config_map_refs.GENERATOR)


def refs_of(files: Sequence[LoadedFile]) -> Any:
    """crd_refs.Refs of the files, or None when no file names an object it looks up."""
    if not any(not f.shell and any(m in f.text for m in REF_MARKERS) for f in files):
        return None
    from ctxlint.adapters.crd_refs import Refs

    return Refs(files)


def maps_of(files: Sequence[LoadedFile], named: Collection[str] = ()) -> Any:
    """config_map_refs.Maps of the files, or None when no file reads a ConfigMap that another may hold; a file
    named alone (pre-commit) that reads or holds one gets them too, to tell whether its directory completes it."""
    reads = [f for f in files if not f.shell and any(m in f.text for m in MAP_MARKERS)]
    holds = [f for f in files if not f.shell and (MAP_HOLDER in f.text or MAP_GENERATOR in f.text)]
    alone = any(f.path in named for f in (*reads, *holds))
    if not alone and (len(files) < 2 or not reads or not holds):
        return None
    from ctxlint.adapters.config_map_refs import Maps

    return Maps(list(files))


class Joins:
    """The group's Refs and Maps (either None when the group needs it not)."""

    def __init__(self, files: Sequence[LoadedFile], named: Collection[str] = ()) -> None:
        self.refs, self.maps = refs_of(files), maps_of(files, named)

    def loose(self, loaded: LoadedFile) -> bool:
        """Whether the file names (or holds) what only its directory's other files may complete."""
        return (self.refs is not None and self.refs.loose(loaded)) or (self.maps is not None and
                                                                      self.maps.loose(loaded))

    def wanted(self, loose: Sequence[LoadedFile]) -> Callable[[str], bool]:
        """Whether a sibling's raw text may hold the other side of what the `loose` files name or hold: one that
        names no InferenceService/runtime marker (when a runtime is missing), no `configMapKeyRef`/`configMapRef`
        (when a held ConfigMap is read by no workload) or no `ConfigMap` (when a read one is defined nowhere) is not
        parsed. A Deployment that holds a chat-template ConfigMap it mounts, checked alone, had its whole directory
        read and adapted (a one-file pre-commit run of a GKE sample took ~35 ms more)."""
        markers: list = []
        if self.refs is not None and any(self.refs.loose(f) for f in loose):
            markers += REF_MARKERS
        if self.maps is not None:
            for f in loose:
                reads, holds = self.maps.loose_sides(f)
                markers += ([MAP_HOLDER, MAP_GENERATOR] if reads else []) + (list(MAP_MARKERS) if holds else [])
        found = tuple(dict.fromkeys(markers))
        return lambda text: any(m in text for m in found)

    def joined(self, group: Sequence[LoadedFile], context: Sequence[LoadedFile]) -> Optional["Joins"]:
        """The joins over the group and its context files, or None when the context changes nothing."""
        refs = type(self.refs)([*group, *context]) if self.refs is not None and refs_of(context) is not None \
            else self.refs
        maps = maps_of([*group, *context]) if self.maps is not None else None
        if refs is self.refs and maps is None:
            return None
        out = Joins.__new__(Joins)
        out.refs, out.maps = refs, maps if maps is not None else self.maps
        return out

    def involves(self, loaded: LoadedFile) -> bool:
        """Whether the file holds or names something these joins look up (it reads anew once they change)."""
        return (self.refs is not None and self.refs.involves(loaded)) or (self.maps is not None and
                                                                         self.maps.involves(loaded))
