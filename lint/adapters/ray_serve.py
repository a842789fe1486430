"""Ray Serve configs on their own: a `serve deploy` file or an Anyscale service, whose top-level
`applications` run Ray Serve LLM (`import_path: ray.serve.llm:build_openai_app` with
`args.llm_configs`, or `build_pd_openai_app` with `prefill_config`/`decode_config`).

Each LLMConfig is read exactly as inside a KubeRay RayService (crds_kuberay): `model_loading_config`
names the model, `engine_kwargs` are vLLM's settings, `accelerator_type` the device,
`deployment_config` the replicas (ray-project/ray python/ray/llm/_internal/serve: LLMServingArgs,
PDServingArgs). A file that is one LLMConfig (`model_loading_config` at the top, as `llm_configs:
[path.yaml]` names one) is read too; a config that names a file is read where that file is checked,
and applications of other kinds are not read: their engine is not in the file.
"""
from __future__ import annotations

from ..records import replace
from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.scalar_spans import ScalarSpans
from ctxlint.adapters.workload_groups import deployments_from
from ctxlint.loader import LoadedFile
from ctxlint.nodes import MAP, SEQ

NAME = "ray-serve"


def adapt(loaded: LoadedFile) -> AdaptResult:
    result = AdaptResult()
    roots = [doc.root for doc in loaded.documents if doc.root.kind == MAP and doc.root.get("kind") is None and (
        doc.root.get("applications") is not None and doc.root.get("applications").kind == SEQ
        or doc.root.get("model_loading_config") is not None and doc.root.get("model_loading_config").kind == MAP)]
    if not roots:
        return result
    from ctxlint.adapters.crds_kuberay import serve_config  # only a Serve config pays for the KubeRay reader

    spans = ScalarSpans(loaded.path, loaded.text)
    workloads = [replace(w, input_format=NAME) for root in roots for w in serve_config(root, spans, result)]
    result.extend(deployments_from(loaded.path, workloads))
    return result
