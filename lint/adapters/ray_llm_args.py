"""Where a Ray Serve application's LLMConfigs are, and which vLLM release its runtime_env installs.

An application runs Ray Serve LLM when its builder is Ray's own (`import_path` under `ray.serve.llm` or
`ray.llm`, e.g. `ray.serve.llm:build_openai_app` or the release tests'
`ray.llm._internal.serve.deployments.prefill_decode_disagg.prefill_decode_disagg:build_app`), or when its
`args` hold LLMConfigs under the names Ray's builders take them by (`llm_configs[]` of LLMServingArgs,
`llm_config`, `prefill_config` + `decode_config` of PDServingArgs): a user's builder that wraps Ray's
(`builder:builder` calling `LLMConfig(**config["llm_config"])` and `build_openai_app`). Such a builder's
args are read only where they have LLMConfig's shape: a `model_loading_config` mapping naming `model_id`
(ModelLoadingConfig's one required field) or `model_source`. That field name and its contents are Ray's
own (ray-project/ray@697db261a21ae1af89c705bcc3a941e9e5c845c7:python/ray/llm/_internal/serve/core/
configs/llm_config.py: LLMConfig's model_loading_config, engine_kwargs, accelerator_type,
deployment_config, runtime_env, ...), so nothing is guessed from a name alone; the builder's own code may
still change them, which callers say.
"""
from __future__ import annotations

import re
from typing import List, Optional, Tuple

from ctxlint.adapters.crd_common import scalar, seq
from ctxlint.model import DECODE, PREFILL, UNIFIED
from ctxlint.nodes import MAP, SCALAR, Node

RAY_BUILDERS = ("ray.serve.llm", "ray.llm.")
HALVES = ((PREFILL, "prefill_config"), (DECODE, "decode_config"))


def ray_builder(import_path: str) -> bool:
    """One of Ray's own builders, whose args are LLMConfigs by their contract."""
    return import_path.strip().startswith(RAY_BUILDERS)


def llm_config_shaped(node: Optional[Node]) -> bool:
    loading = node.get("model_loading_config") if node is not None and node.kind == MAP else None
    return loading is not None and loading.kind == MAP and any(
        isinstance(scalar(loading.get(key)), str) for key in ("model_id", "model_source"))


def llm_configs(app: Node) -> Tuple[bool, List[Tuple[str, Node, int]]]:
    """(whether the app is Ray Serve LLM's, its LLMConfigs as (role kind, node, index)). Ray's builders are
    read whatever their configs hold (an entry without a model gives a row without one; an entry that is a
    path is read where that file is checked); any other builder only where an arg has LLMConfig's shape."""
    args = app.get("args")
    if args is None or args.kind != MAP:
        return False, []
    own = ray_builder(str(scalar(app.get("import_path")) or ""))
    fits = (lambda n: n.kind == MAP) if own else llm_config_shaped
    found = [(UNIFIED, c, i) for i, c in enumerate(seq(args.get("llm_configs"))) if fits(c)]
    single = args.get("llm_config")
    found += [(UNIFIED, single, 0)] if single is not None and fits(single) else []
    halves = [(kind, args.get(key)) for kind, key in HALVES]
    if all(n is not None and fits(n) for _, n in halves) or own:  # a prefill half alone is no PD app of a user's
        found += [(kind, n, 0) for kind, n in halves if n is not None and fits(n)]
    named = any(args.get(key) is not None for key in ("llm_configs", "llm_config", "prefill_config", "decode_config"))
    return bool(found) or own and named, found


# -- the vLLM release a runtime_env installs ------------------------------------------------------------------
_PIN = re.compile(r"^\s*vllm(?:\[[\w,-]+\])?\s*(?:==\s*([0-9][\w.+-]*)(?![\w.*+-]))?\s*(?:[<>=!~;*.].*)?$",
                  re.IGNORECASE)  # `vllm==0.4.*` installs vLLM, of no one release


def pip_vllm(runtime_env: Optional[Node]) -> Optional[Tuple[str, Node]]:
    """A Ray Serve app's runtime_env that installs vLLM (`pip: ["vllm==0.4.3"]`, or `pip: {packages: [...]}`,
    or `uv:`): (its pinned version or "", the requirement's node), else None."""
    if runtime_env is None or runtime_env.kind != MAP:
        return None
    for key in ("pip", "uv"):
        spec = runtime_env.get(key)
        if spec is not None and spec.kind == MAP:
            spec = spec.get("packages")
        for item in seq(spec):
            found = _PIN.match(item.value) if item.kind == SCALAR and isinstance(item.value, str) else None
            if found is not None:
                return found.group(1) or "", item
    return None


def config_vllm(app: Node, config: Node) -> Optional[Tuple[str, Node]]:
    """The vLLM an LLMConfig's replicas install. Ray Serve LLM sets the replica's runtime_env to the build's
    (the app's) updated by the deployment_config's `ray_actor_options.runtime_env`, then by the LLMConfig's own
    `runtime_env` (ray-project/ray@898d8a70ab378bb7a47965c96b3f868d043d63c1:python/ray/llm/_internal/serve/
    core/server/llm_server.py get_deployment_options), and Serve merges the app's runtime_env under each
    deployment's key by key (ray-project/ray@062cd2b8e78ffdd491e8d41a438b01c83711c2ca:python/ray/serve/
    _private/application_state.py, override_runtime_envs_except_env_vars): so the first of those that sets
    `pip` (or `uv`) decides, and one that installs other packages only means vLLM is the image's."""
    actor = config.dig("deployment_config", "ray_actor_options", "runtime_env")
    for env in (config.get("runtime_env"), actor, app.get("runtime_env")):
        if env is not None and env.kind == MAP and any(env.get(k) is not None for k in ("pip", "uv")):
            return pip_vllm(env)
    return None
