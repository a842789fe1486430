"""Ray Serve apps whose settings live in the user's own code (crds_kuberay.py, ray_serve.py): an
`import_path` of the user's module, or a head container running `serve run module:app`, on a vLLM image or with
vLLM installed by the app's runtime_env. The file holds no engine settings for them: the deployment is kept
(engine vLLM, the actors' `num_gpus`) and CTX008 names what could not be read. Imported by the KubeRay reader
(crds_kuberay._Reader) only for such an app.
"""
from __future__ import annotations

import re
from typing import Any, List, Optional

from ctxlint.adapters.crd_common import int_val, scalar, seq
from ctxlint.adapters.ray_llm_args import pip_vllm
from ctxlint.adapters.workload import EngineRole, Workload
from ctxlint.model import UNIFIED, Accelerators, Role, Source, Val
from ctxlint.nodes import MAP, Node


def custom_app(reader: Any, app: Node, index: int, place) -> List[Workload]:
    """A Serve app of the user's own (its `import_path`) on vLLM: its engine and GPUs, its settings unknown
    (`reader`: the cluster's crds_kuberay._Reader)."""
    path = app.get("import_path")
    env = app.dig("runtime_env", "env_vars")
    installed = pip_vllm(app.get("runtime_env"))
    if not reader.vllm(str(scalar(path) or "")) and installed is None:
        return []
    names = [str(k) for k in (env.value if env is not None and env.kind == MAP else {})
             if not str(k).startswith("VLLM_") and str(k) not in ("LD_LIBRARY_PATH", "PATH", "HF_HOME")]
    names += [n for n in reader.container_env if n not in names]
    deployment = next((d for d in seq(app.get("deployments")) if d.kind == MAP), None)
    gpus = int_val(deployment.dig("ray_actor_options", "num_gpus"), reader.file) if deployment is not None \
        else None
    count = Val(gpus.value, place(deployment.dig("ray_actor_options", "num_gpus")), raw=gpus.raw) \
        if gpus is not None else None
    where = place(path) if path is not None else place(app)
    label = scalar(app.get("name")) if isinstance(scalar(app.get("name")), str) else f"applications[{index}]"
    held = reader.code_in_file(str(scalar(path) or ""))
    where_code = f"{held}, which ctxlint does not interpret" if held else "which this file does not hold"
    what = f"Ray Serve app {scalar(path) or label}" + (f" reads {', '.join(names)}" if names else "") + \
        f" in its own code, {where_code}: its model and engine settings are not known"
    engine = Val("vllm", where, raw="a custom Ray Serve app on " + (
        "vLLM from runtime_env pip" if installed is not None and not reader.vllm(str(scalar(path) or ""))
        else "a vLLM image"))
    version = Val(installed[0], place(installed[1]), raw=str(installed[1].value)) \
        if installed is not None and installed[0] else None
    role = EngineRole(Role(role=Val(UNIFIED, where), accelerators=Accelerators(reader.worker_type, count),
                           source=where, name=str(label)), engine, version, None,
                      [(what, _first_named(env, names, place) or where)])
    return [reader.workload(str(label), [role], reader.replicas(deployment, place), app)]


def _first_named(env: Optional[Node], names: List[str], place) -> Optional[Source]:
    """Where the first variable the message names is (not LD_LIBRARY_PATH above it), else the block."""
    if env is None or env.kind != MAP:
        return None
    keys = env.keys
    return next((place(keys[n]) for n in names if n in keys), place(env))


def serve_run(reader: Any) -> List[Workload]:
    """A head container that runs `serve run module:app` (no serveConfigV2) for a vLLM image."""
    for c in seq(reader.head_pod.get("containers") if reader.head_pod is not None else None):
        text = " ".join(str(scalar(i)) for k in ("command", "args") for i in seq(c.get(k)))
        text += " " + str(scalar(c.get("command")) or "") + str(scalar(c.get("args")) or "")
        found = re.search(r"\bserve\s+run\s+(\S+)", text)
        if c.kind != MAP or found is None or not reader.vllm(found.group(1)):
            continue
        where = c.source(reader.file)
        what = f"Ray Serve app {found.group(1)} (serve run) is configured in its own code, which this file " \
            "does not hold: its model and engine settings are not known"
        role = EngineRole(Role(role=Val(UNIFIED, where), accelerators=Accelerators(reader.worker_type, None),
                               source=where), Val("vllm", where, raw="serve run"), None, None, [(what, where)])
        return [reader.workload(None, [role], None, c)]
    return []
