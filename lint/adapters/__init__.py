"""Adapters: one module per input format, each turning loaded documents into the
normalized deployment model. A new input format is one module listed here.

Each module has NAME and `adapt(loaded: LoadedFile) -> AdaptResult`; it picks the
documents it understands and ignores the rest.
"""
from __future__ import annotations

from ctxlint.adapters import (compose, crds_aibrix, crds_dynamo, crds_kaito, crds_kserve, crds_kubeai, crds_kuberay,
                              crds_llmd, crds_nim, crds_ome, crds_rbg, crds_vllm_runtime, engine_files, gw_catalogs,
                              gw_k8s, gw_litellm, gw_routers, helm_values, kubernetes, native, pod_templates, skypilot, triton_trtllm)
from ctxlint.adapters.base import AdaptResult
from ctxlint.loader import LoadedFile

ADAPTERS = (native, kubernetes, crds_dynamo, crds_kserve, crds_kubeai, crds_aibrix, crds_kaito, crds_kuberay,
            crds_llmd, crds_nim, crds_ome, crds_rbg, crds_vllm_runtime, helm_values, compose, skypilot, engine_files,
            triton_trtllm, pod_templates, gw_litellm, gw_k8s, gw_catalogs, gw_routers)


def adapt_file(loaded: LoadedFile) -> AdaptResult:
    result = AdaptResult()
    for adapter in ADAPTERS:
        result.extend(adapter.adapt(loaded))
    return result
