"""What a role's command line leaves unknown or its engine refuses: the reader's last step for one engine
invocation, which adds the values it could not resolve (an unset `$(VAR)`, an engine config file the manifest
does not hold, an OpenShift Template parameter) to the role, and says each value the engine's release would
refuse ("engine-rejects-value").

Apart from workload.py, and imported by it only for a command that has such a value (or runs LMDeploy, whose
release is asked for here): most commands state every setting the checks read, and a one-file run of them never
imports this module (issue 15)."""
from __future__ import annotations

import re

from ctxlint.adapters.config_files import declined_by_script
from ctxlint.adapters.crd_common import in_template
from ctxlint.adapters.engine_roles import RELEVANT_SETTINGS
from ctxlint.adapters.workload import ENGINE_REJECTS
from ctxlint.engines.images import release_below
from ctxlint.engines.specs import spec_for
from ctxlint.findings import Diagnostic, Fix
from ctxlint.fixes import spelling_exists

_TEMPLATE_PARAM = re.compile(r"\$\{\{?[A-Za-z_][A-Za-z0-9_]*\}\}?")
# Unresolved values matter only for settings the checks read.
_RELEVANT_TAGS = {"context", "kv_pool", "memory", "model"}


def role_problems(reader, inv, det, found, named, model, image, docker_image, tokens, out, where) -> None:
    """Add to role `found` (an EngineRole of invocation `inv`, detected as `det`) what `reader` (workload._Reader)
    could not resolve, and to `out` (the Reading) the engine's refusals. `named` is the model a folder name
    matched (engines/model_folder.py), `model` the role's model, `where` the reader's Positions.placer."""
    spec = spec_for(inv.engine, inv.launcher, inv.subcommand)
    missing = reader.config_missing
    config_ref = missing is not None and inv.config_file is not None and inv.config_file.value is None
    if missing is not None and inv.config_file is not None and not config_ref:
        why = declined_by_script(reader.c.spans, reader.item_nodes, reader.item_texts, missing) \
            or "engine settings in a file this manifest does not hold"
        found.unresolved.append((f"{inv.config_file.flag_spelling} {missing} ({why})", where(inv.config_file)))
    for problem in inv.unresolved:
        if named is not None and problem.token_index == named[0]:
            continue  # the model, matched by the folder name its path types (model_from says so)
        flag = spec.by_name(problem.flag) if problem.flag else None
        if config_ref and flag is not None and flag.name in spec.config_flags:
            text, at = reader.unresolved_text(problem, flag, tokens)
            found.unresolved.append((f"{text}: engine settings in a file ctxlint cannot name", at))
            continue
        if flag is None and problem.flag is None and problem.ref is not None and model is None:
            found.unresolved.append(reader.unresolved_text(problem, None, tokens))  # perhaps the model
            continue
        if flag is None or not (set(flag.tags) & _RELEVANT_TAGS or flag.name in RELEVANT_SETTINGS):
            continue
        found.unresolved.append(reader.unresolved_text(problem, flag, tokens))
    release = found.version.value if found.version is not None else None
    templated = in_template(reader.c.node.path)  # OpenShift fills `${PARAM}` in when it processes it
    image_named = image if image is not None else docker_image.text if docker_image is not None else None
    below = release_below(image_named) if release is None and inv.errors else None
    # LMDeploy's refusals that turn on the model are made per deployment (resolution/lmdeploy_refusals.py)
    asks = inv.errors or det.engine == "lmdeploy"
    unknown = reader.release_unknown(det.engine, image_named) if release is None and asks else None
    found.release_unknown = unknown
    for problem in inv.errors:
        from ctxlint.adapters.engine_refusals import refusal, unsure  # only a refused value asks

        text = refusal(det.engine, release, problem, below, unknown)
        param = _TEMPLATE_PARAM.search(problem.message) if templated else None
        if text is None or param is not None:
            if param is not None:  # OpenShift sets it when it processes the template: not known here
                found.unresolved.append((f"{problem.message.split(': ')[0]} {param.group(0)} (an OpenShift "
                                         "Template parameter)", reader.problem_source(problem, tokens)))
            continue
        certain = problem.fix is not None and spelling_exists(det.engine, release, problem.fix[1])
        out.diagnostics.append(Diagnostic(ENGINE_REJECTS, text, reader.problem_source(problem, tokens), None,
                                          Fix(*problem.fix) if certain else None,
                                          severity="warning" if unsure(release, problem, unknown) else None))
