"""The model a NIMService serves from the NIMCache it names, when its own image and environment name none.

A NIMService names its cache in `spec.storage.nimCache.name` (a NIMCache of its namespace), and the multi-LLM
image (`nvidia/llm-nim`) names no model of its own: the cache holds it. For a cache whose source is a Hugging Face
repository (`spec.source.hf`: `namespace` and `modelName`), k8s-nim-operator sets the service's
NIM_MODEL_PATH to `hf://<namespace>/<modelName>` (NVIDIA/k8s-nim-operator@f63f74d7ad22eaea7943cc640e545f4ccdbb8077:
api/apps/v1alpha1/nimcache_types.go GetHFUri, IsUniversalNIM; internal/controller/platform/standalone/
nimservice.go), under the service's own `env`, which wins (internal/utils MergeEnvVars): so the cache is
read only when the service sets neither NIM_MODEL_PATH nor NIM_MODEL_NAME. The cache is looked up in the
service's file, else in one other file of its directory (crd_refs.NIM_CACHE), as KServe runtimes are.
An NGC source (`spec.source.ngc`) names a puller image and profiles, not a Hugging Face repository, and a
NeMo DataStore source a repository of that service: neither is read.
"""
from __future__ import annotations

from typing import List, Optional

from ctxlint.adapters.crd_common import scalar
from ctxlint.adapters.workload import EnvVar
from ctxlint.model import Val
from ctxlint.nodes import MAP, Node

# the variables a NIM reads its model from (crds_nim, which takes them from here)
MODEL_VARS = ("NIM_MODEL_PATH", "NIM_MODEL_NAME")


def cached_model(cache: Optional[Node], env: List[EnvVar], file: str) -> Optional[Val[str]]:
    """`<namespace>/<modelName>` of a NIMCache's Hugging Face source, placed at `modelName`; None when the
    service's environment names its model itself, or the cache holds no Hugging Face model."""
    if cache is None or any(v.name in MODEL_VARS for v in env):
        return None
    hf = cache.dig("spec", "source", "hf")
    if hf is None or hf.kind != MAP:
        return None
    namespace, name = scalar(hf.get("namespace")), hf.get("modelName")
    if not isinstance(namespace, str) or not namespace.strip() or not isinstance(scalar(name), str) \
            or not scalar(name).strip():
        return None  # a dataset (`datasetName`), or a name the file does not spell out
    repo = f"{namespace.strip().strip('/')}/{scalar(name).strip().strip('/')}"
    cache_name = scalar(cache.dig("metadata", "name"))
    return Val(repo, name.source(file),
               raw=f"NIMCache {cache_name} spec.source.hf: hf://{repo} (k8s-nim-operator sets NIM_MODEL_PATH to it)")
