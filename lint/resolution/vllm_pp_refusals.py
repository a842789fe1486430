"""VLLM_PP_LAYER_PARTITION values vLLM refuses at start-up (physics/pp_partition.py): a part that is no integer,
a number of parts other than the PP size, or (the model known) a sum other than its layer count. get_pp_indices
raises ValueError while the model's layers are built, so the engine never serves (vllm-project/vllm@5a6541d:
vllm/distributed/utils.py)."""
from __future__ import annotations

from typing import List, Optional

from ctxlint.findings import Diagnostic
from ctxlint.model import Deployment
from ctxlint.physics.models import ModelArch
from ctxlint.physics.pp_partition import ENV, even_split, refusal


def refusals(dep: Deployment, arch: Optional[ModelArch]) -> List[Diagnostic]:
    out: List[Diagnostic] = []
    layers = arch.num_layers if arch is not None and arch.num_layers else None
    for role in dep.roles:
        val = role.arg(ENV)
        if val is None or not isinstance(val.value, str):
            continue
        pp = role.parallelism.pp
        err = refusal(val.value, pp, layers)
        if not err:
            continue
        fix = f"write {pp} layer count(s) that sum to {layers}, one per PP stage (vLLM's own split is " \
              f"{','.join(map(str, even_split(layers, pp)))})" if layers else \
            f"write {pp} layer count(s), one per PP stage, that sum to the model's layer count"
        out.append(Diagnostic(
            "engine-rejects-value", f"vLLM would refuse to start: {ENV}={val.value} at pipeline-parallel size {pp}: "
            f"get_pp_indices raises ValueError('{err}') while it builds the model's layers: {fix}",
            val.source, dep.display_name))
    return out
