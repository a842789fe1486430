"""The model the capacity stage (ctxlint.capacity) derives a deployment's pools for.

The resolution (ctxlint.resolution: user facts, a config.json beside the file, the lock file, the catalog, the
name), then what the manifest itself says of the architecture laid over it: a config.json it names
(spec.model.config) and inline facts (spec.model.architecture). Apart from the pools themselves: it is imported with
the physics, on a run's first deployment (capacity._physics).
"""
from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, List, Optional

from ctxlint.findings import Diagnostic
from ctxlint.loader import PARSE_ERROR
from ctxlint.model import Deployment, Val
from ctxlint.physics.models import arch_from_mapping, with_overrides
from ctxlint.resolution.resolve import Context, resolve
from ctxlint.resolution.weight_account import flag_format

from .records import replace

if TYPE_CHECKING:
    from ctxlint.capacity import CapacityEnv
    from ctxlint.physics.models import ModelArch


def resolved_model(dep: Deployment, env: CapacityEnv, diagnostics: List[Diagnostic]):
    """The deployment's model resolution, with the manifest's config.json and inline facts laid over it (a problem
    reading either is added to `diagnostics`)."""
    facts = dep.model
    directory = os.path.dirname(dep.file) if dep.file not in ("-", "") else ""
    ctx = Context(directory=directory, user_models=env.models, lock=env.lock, hf_cache=env.hf_cache,
                  labels=dep.labels, known_files=env.known_files, served_name=served_name(dep))
    resolution = resolve(facts.id.value if facts.id is not None else None, ctx)
    if facts.stated_format is not None and resolution.arch is not None:  # srt-slurm's model.precision (rare)
        from ctxlint.resolution.stated_format import with_stated
        resolution = with_stated(resolution, facts.stated_format, flag_format(facts.stated_format.quantization))
    if resolution.problem and facts.id is not None:
        diagnostics.append(Diagnostic(PARSE_ERROR, resolution.problem, facts.id.source, dep.display_name))
    arch = resolution.arch
    if facts.config_path is not None:
        from_file = config_file_arch(dep, facts.config_path, diagnostics)
        if from_file is not None:
            arch = from_file
            resolution = replace(resolution, arch=arch, via="config.json",
                                 how=f"architecture from {facts.config_path.value} (spec.model.config)")
    inline = {key: val.value for key, val in facts.architecture}
    if inline:
        try:
            arch = with_overrides(arch, inline) if arch is not None else arch_from_mapping(
                {"name": facts.id.value if facts.id else dep.display_name or "model", **inline})
            resolution = replace(resolution, arch=arch, via=resolution.via or "manifest",
                                 how=(resolution.how + "; " if resolution.arch is not None else "")
                                 + "facts from spec.model.architecture")
        except (TypeError, ValueError, KeyError):
            pass  # incomplete inline facts: reported below as not derivable
    return resolution


def config_file_arch(dep: Deployment, path: Val[str], diagnostics: List[Diagnostic]) -> Optional[ModelArch]:
    """The architecture of the config.json at `path` (relative to the manifest), or None with a parse-error."""
    from ctxlint.physics.hf_config import arch_from_hf_config

    base = os.path.dirname(dep.file) if dep.file not in ("-", "") else os.getcwd()
    full = os.path.join(base, path.value)
    try:
        with open(full, encoding="utf-8") as handle:
            config = json.load(handle)
        return arch_from_hf_config(config, name=path.value)
    except (OSError, UnicodeDecodeError) as exc:
        problem = f"cannot read {path.value}: {getattr(exc, 'strerror', None) or exc}"
    except json.JSONDecodeError as exc:
        problem = f"{path.value} is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
    except (ValueError, TypeError, KeyError) as exc:
        problem = f"{path.value} lacks the architecture facts ctxlint needs: {exc}"
    diagnostics.append(Diagnostic(PARSE_ERROR, f"spec.model.config: {problem}", path.source, dep.display_name))
    return None


def served_name(dep: Deployment) -> Optional[str]:
    """The first name vLLM's or SGLang's --served-model-name gives (the name the API answers to; vLLM takes several,
    the first being the one it reports), for the resolver to try when the model is an opaque local path
    (resolution/served_name.py). Other engines' names are not read: only these two are checked to load nothing by it."""
    engine = dep.engine.name.value if dep.engine.name is not None else None
    if engine not in ("vllm", "sglang"):
        return None
    for role in dep.roles:
        served = role.arg("served_model_name")
        value = served.value if served is not None else None
        first = value[0] if isinstance(value, (list, tuple)) and value else value
        if isinstance(first, str) and first.strip():
            return first.strip()
    return None
