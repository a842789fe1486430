"""What each custom-resource adapter reads, as data: its API groups and kinds.

Two readers: `adapters.adapt_file` imports a custom-resource adapter only for a file that holds
one of its objects (a one-file pre-commit run would otherwise import eleven adapters it never
uses: issue 15), and the pod-template fallback leaves these kinds to their adapters.
A group matches as the adapters' `is_kind` tests it: the apiVersion's group ends with it.
"""
from __future__ import annotations

from typing import Dict, FrozenSet, Iterable, Set, Tuple

from ctxlint.adapters.crd_common import objects, scalar
from ctxlint.nodes import MAP

_KSERVE_RUNTIMES = ("ServingRuntime", "ClusterServingRuntime")

# adapter module -> ((API group, kinds), ...): every object kind its adapt() reads.
CRD_KINDS: Dict[str, Tuple[Tuple[str, Tuple[str, ...]], ...]] = {
    "crds_dynamo": (("nvidia.com", ("DynamoGraphDeployment",)),),
    "crds_kserve": (("serving.kserve.io", ("InferenceService", *_KSERVE_RUNTIMES, "LLMInferenceService",
                                           "LLMInferenceServiceConfig")),),
    "crds_kubeai": (("kubeai.org", ("Model",)),),
    "crds_aibrix": (("orchestration.aibrix.ai", ("StormService", "RoleSet", "RayClusterFleet")),),
    "crds_kaito": (("kaito.sh", ("Workspace", "InferenceSet", "MultiRoleInference")),),
    "crds_kuberay": (("ray.io", ("RayService", "RayCluster")),),
    "crds_llmd": (("llm-d.ai", ("ModelService",)),),
    "crds_nim": (("apps.nvidia.com", ("NIMService",)), ("serving.kserve.io", ("InferenceService", *_KSERVE_RUNTIMES))),
    "crds_ome": (("ome.io", (*_KSERVE_RUNTIMES, "InferenceService", "ClusterBaseModel", "BaseModel")),),
    "crds_rbg": (("workloads.x-k8s.io", ("RoleBasedGroup",)),),
    "crds_vllm_runtime": (("production-stack.vllm.ai", ("VLLMRuntime",)),),
}
# Adapters that also read a file of one mapping with neither apiVersion nor kind (Helm values).
READS_VALUES = frozenset({"crds_nim"})
# Adapters that read only files whose text holds this string.
TEXT_MARKERS: Dict[str, str] = {"triton_trtllm": "launch_triton_server.py"}
# The adapter of shell scripts (LoadedFile.shell): the only one a script reaches, and it reads nothing else.
SHELL = "shell_script"


def handled_kinds() -> Dict[str, Tuple[str, ...]]:
    """API group -> kinds some custom-resource adapter reads (plus ctxlint's own manifest)."""
    out: Dict[str, Tuple[str, ...]] = {}
    for reads in CRD_KINDS.values():
        for group, kinds in reads:
            out[group] = tuple(dict.fromkeys(out.get(group, ()) + kinds))
    out["ctxlint"] = ("ModelDeployment",)
    return out


def present(loaded) -> Set[Tuple[str, str]]:
    """(API group, kind) of every Kubernetes-style object in the file."""
    found = set()
    for obj in objects(loaded):
        kind, api = scalar(obj.get("kind")), scalar(obj.get("apiVersion"))
        if isinstance(kind, str) and isinstance(api, str):
            found.add((api.split("/")[0], kind))
    return found


def reads_file(adapter: str, loaded, kinds_present: Iterable[Tuple[str, str]]) -> bool:
    """Whether `adapter` could find anything in the file; True for adapters not listed here."""
    if loaded.shell or adapter == SHELL:
        return loaded.shell and adapter == SHELL
    marker = TEXT_MARKERS.get(adapter)
    if marker is not None:
        return marker in loaded.text
    reads = CRD_KINDS.get(adapter)
    if reads is None:
        return True
    if any(kind in kinds and group.endswith(suffix)
           for group, kind in kinds_present for suffix, kinds in reads):
        return True
    return adapter in READS_VALUES and _values_file(loaded)


def selected(names: Iterable[str], loaded) -> Tuple[str, ...]:
    """The adapters of `names` that `reads_file` accepts for this file, in order: each (group,
    kind) present is matched against every adapter's groups once per run, not once per adapter
    per file (reads_file, the oracle of the tests, scans them for each of the 23 adapters)."""
    if loaded.shell:
        return (SHELL,) if SHELL in names else ()
    matched: Set[str] = set()
    for pair in present(loaded):
        matched |= _pair_readers(pair)
    out = []
    for name in names:
        marker = TEXT_MARKERS.get(name)
        if marker is not None:
            if marker in loaded.text:
                out.append(name)
        elif name == SHELL:
            continue
        elif name not in CRD_KINDS or name in matched or name in READS_VALUES and _values_file(loaded):
            out.append(name)
    return tuple(out)


_PAIR_READERS: Dict[Tuple[str, str], FrozenSet[str]] = {}


def _pair_readers(pair: Tuple[str, str]) -> FrozenSet[str]:
    """The custom-resource adapters that read objects of this (API group, kind)."""
    found = _PAIR_READERS.get(pair)
    if found is None:
        group, kind = pair
        found = frozenset(adapter for adapter, reads in CRD_KINDS.items()
                          if any(kind in kinds and group.endswith(suffix) for suffix, kinds in reads))
        if len(_PAIR_READERS) < 4096:  # a file of made-up kinds must not grow it without bound
            _PAIR_READERS[pair] = found
    return found


def _values_file(loaded) -> bool:
    if len(loaded.documents) != 1 or loaded.documents[0].root.kind != MAP:
        return False
    root = loaded.documents[0].root
    return root.get("apiVersion") is None and root.get("kind") is None
