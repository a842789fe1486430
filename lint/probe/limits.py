"""Boundaries read from a linted deployment, through the engine's own pipeline.

`--manifest FILE` accepts every input `check` reads (native manifest, Kubernetes,
Helm values, compose, engine command lines): the file goes through loader ->
adapters -> model -> capacity exactly as in `check`, with the same config file, so
the probe tests the window, pool and gateway cap that `check` read, never a second
parse.
"""
from __future__ import annotations

import os
from typing import List, Optional

from ..records import replace
from ctxlint.model import Deployment, Role
from ctxlint.probe.cases import Boundaries
from ctxlint.probe.errors import ProbeError

PROMPT_ROLES = ("unified", "prefill")  # the roles that must hold a whole prompt first


def boundaries_from_manifest(path: str, deployment: Optional[str] = None) -> Boundaries:
    from ctxlint.config import ConfigError, load_config
    from ctxlint.discover import PathError
    from ctxlint.engine import InternalError, lint_paths

    if not os.path.isfile(path):
        raise ProbeError(f"--manifest {path}: no such file")
    try:
        settings = load_config(os.path.dirname(os.path.abspath(path)), None, False).settings()
        report = lint_paths([path], replace(settings, keep_deployments=True))
    except (ConfigError, PathError, InternalError) as exc:
        raise ProbeError(f"--manifest {path}: {exc}") from None
    broken = [f for f in report.findings if f.rule == "CTX001"]
    if broken:
        f = broken[0]
        raise ProbeError(f"{f.file}:{f.line}:{f.column}: {f.message}")
    dep = _choose(report.deployments, path, deployment)
    window = dep.advertised.context_window
    window_source = window.source if window is not None else None
    window_value = window.value if window is not None else None
    if window_value is None:  # no advertised window: the engine's own context length is the promise
        contexts = [r.context_length for r in dep.roles if r.context_length is not None]
        if contexts:
            smallest = min(contexts, key=lambda v: v.value)
            window_value, window_source = smallest.value, smallest.source
    pooled = [r for r in dep.roles_of(*PROMPT_ROLES) if r.pool is not None] or \
        [r for r in dep.roles if r.pool is not None]
    # the pool as one request can fill it (the engine's reserve off, e.g. vLLM's null block): a request of the
    # whole logged pool never gets its last block, so "pool" and "pool+1" straddle what one request can hold
    role: Optional[Role] = min(pooled, key=lambda r: r.pool.request_floor) if pooled else None
    cap = dep.gateway.max_prompt_tokens
    if window_value is None and role is None and cap is None:
        raise ProbeError(f"--manifest {path}: the deployment states no context window and no KV pool "
                         "can be read or derived (see `ctxlint check`); pass --window/--pool")
    name = f" (deployment {dep.display_name})" if dep.display_name else ""
    return Boundaries(
        window=window_value, window_source=window_source,
        pool=role.pool.request_floor if role else None, pool_high=role.pool.request_ceiling if role else None,
        pool_source=role.pool.source if role else None, prompt_cap=cap.value if cap is not None else None,
        cap_source=cap.source if cap is not None else None, origin=f"{path}{name}")


def _choose(deployments: List[Deployment], path: str, wanted: Optional[str]) -> Deployment:
    if wanted is not None:
        for dep in deployments:
            if dep.display_name == wanted:
                return dep
        names = ", ".join(str(d.display_name) for d in deployments) or "none"
        raise ProbeError(f"--deployment {wanted}: not in {path} (deployments: {names})")
    if not deployments:
        raise ProbeError(f"--manifest {path}: no deployment found in it")
    if len(deployments) > 1:
        names = ", ".join(str(d.display_name) for d in deployments)
        raise ProbeError(f"--manifest {path} holds {len(deployments)} deployments ({names}): name one with "
                         "--deployment")
    return deployments[0]
