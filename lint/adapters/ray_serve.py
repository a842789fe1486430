"""Ray Serve configs on their own: a `serve deploy` file or an Anyscale service, whose top-level
`applications` run Ray Serve LLM (`import_path: ray.serve.llm:build_openai_app` with
`args.llm_configs`, or `build_pd_openai_app` with `prefill_config`/`decode_config`, or a builder of the
user's own whose args are shaped as LLMConfigs: ray_llm_args).

Each LLMConfig is read exactly as inside a KubeRay RayService (crds_kuberay): `model_loading_config`
names the model, `engine_kwargs` are vLLM's settings, `accelerator_type` the device,
`deployment_config` the replicas (ray-project/ray python/ray/llm/_internal/serve: LLMServingArgs,
PDServingArgs). A file that is one LLMConfig (`model_loading_config` at the top, as `llm_configs:
[path.yaml]` names one) is read too; a config that names a file is read where that file is checked,
and applications of other kinds are not read: their engine is not in the file.
"""
from __future__ import annotations

from typing import List

from ..records import replace
from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.crd_common import seq
from ctxlint.adapters.kinds import ray_serve_config
from ctxlint.adapters.scalar_spans import ScalarSpans
from ctxlint.adapters.workload_groups import deployments_from
from ctxlint.loader import LoadedFile
from ctxlint.model import Source
from ctxlint.nodes import MAP, SEQ, Node

NAME = "ray-serve"


def adapt(loaded: LoadedFile) -> AdaptResult:
    result = AdaptResult()
    roots = [doc.root for doc in loaded.documents if ray_serve_config(doc.root)]
    if not roots:
        return result
    spans = ScalarSpans(loaded.path, loaded.text)
    workloads = [replace(w, input_format=NAME) for root in roots for w in serve_config(root, spans, result)]
    result.extend(deployments_from(loaded.path, workloads))
    return result


def serve_config(root: Node, spans: ScalarSpans, result: AdaptResult) -> list:
    """A Ray Serve config's Ray Serve LLM applications (ray_llm_args), read as inside a RayService with no
    cluster beside them; other applications are not engines ctxlint reads. A file that is one LLMConfig
    (`model_loading_config` at the top, no `applications`) is read as that config."""
    from ctxlint.adapters.crds_kuberay import _Reader  # only a Serve config pays for the KubeRay reader

    reader = _Reader(root, None, spans, {}, result)

    def place(node: Node) -> Source:
        return node.source(spans.file)

    loading = root.get("model_loading_config")
    if loading is not None and loading.kind == MAP and root.get("applications") is None:  # one LLMConfig file
        w = reader.llm_config(root, root, 0, place)
        return [w] if w is not None else []
    out: List = []
    for index, app in enumerate(seq(root.get("applications"))):
        if app.kind == MAP:
            out += reader.application(app, index, place, custom=False)
    return out
