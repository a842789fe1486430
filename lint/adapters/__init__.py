"""Adapters: one module per input format, each turning loaded documents into the
normalized deployment model. A new input format is one module listed here.

Each module has NAME and `adapt(loaded: LoadedFile) -> AdaptResult`; it picks the
documents it understands and ignores the rest. A custom-resource adapter is imported the
first time a file holds one of the kinds it reads (adapters/kinds.py): a pre-commit run on
one Deployment never pays for the other operators' modules.
"""
from __future__ import annotations

from importlib import import_module
from types import ModuleType
from typing import Any, Dict, Optional, Tuple

from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.kinds import selected
from ctxlint.loader import LoadedFile

# Every adapter, in the order their deployments are reported.
ADAPTERS: Tuple[str, ...] = (
    "native", "kubernetes", "crds_dynamo", "crds_kserve", "crds_kubeai", "crds_llmaz", "crds_aibrix", "crds_kaito", "crds_kuberay",
    "crds_llmd", "crds_nim", "crds_ome", "crds_rbg", "crds_vllm_runtime", "crds_hyperpod", "crds_llmkube", "helm_values",
    "gitops",
    "compose",
    "akash_sdl", "skypilot", "dstack", "ray_serve", "truss", "srt_recipe",
    "engine_files", "triton_trtllm", "pod_templates", "gw_litellm", "gw_k8s", "gw_catalogs", "gw_routers",
    "shell_script", "systemd_unit", "lmi_properties", "cloudformation")
_LOADED: Dict[str, ModuleType] = {}


def adapter(name: str) -> ModuleType:
    """The adapter module `name` (one of ADAPTERS), imported on first use."""
    module = _LOADED.get(name)
    if module is None:
        module = _LOADED[name] = import_module(f"ctxlint.adapters.{name}")
    return module


def all_adapters() -> Tuple[ModuleType, ...]:
    return tuple(adapter(name) for name in ADAPTERS)


# Adapters whose objects name objects of other files (an InferenceService its runtime): their adapt() takes the
# group's crd_refs.Refs as well.
READS_REFS = frozenset({"crds_kserve", "crds_ome", "crds_nim"})
# Adapters whose pods read ConfigMaps that may sit in other files: their adapt() takes the group's
# config_map_refs.Maps as well.
READS_MAPS = frozenset({"kubernetes", "pod_templates", "engine_files"})


def adapt_file(loaded: LoadedFile, refs: Optional[Any] = None, maps: Optional[Any] = None) -> AdaptResult:
    """The file's deployments; `refs`: the crd_refs.Refs of the files checked with it (else its own); `maps`:
    their config_map_refs.Maps (else the file's own ConfigMaps)."""
    result = AdaptResult()
    for name in selected(ADAPTERS, loaded):
        module = adapter(name)
        if refs is not None and name in READS_REFS:
            found = module.adapt(loaded, refs)
        else:
            found = module.adapt(loaded, maps) if maps is not None and name in READS_MAPS else module.adapt(loaded)
        # most of a file's ~12 adapters find nothing in it: their seven empty lists are not merged
        if found.deployments or found.diagnostics or found.routes or found.services or found.body_limits \
                or found.scripts or found.dockerfiles:
            result.extend(found)
    return result
