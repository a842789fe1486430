"""VLLM_PP_LAYER_PARTITION (vLLM) and SGLANG_PP_LAYER_PARTITION (SGLang) values the engine refuses at start-up
(physics/pp_partition.py): a part that is no integer, a number of parts other than the PP size, or (the model known)
a sum other than its layer count. get_pp_indices raises ValueError while the model's layers are built, so the
engine never serves (vllm-project/vllm@5a6541d: vllm/distributed/utils.py; sglang==0.5.23:
sglang/srt/distributed/utils.py). SGLang 0.5.23 ignores its variable at PP 1, earlier code did not: not judged there."""
from __future__ import annotations

from typing import List, Optional

from ctxlint.findings import Diagnostic
from ctxlint.model import Deployment
from ctxlint.physics.models import ModelArch
from ctxlint.physics.pp_partition import VARS, even_split, refusal

_NAMES = {"vllm": "vLLM", "sglang": "SGLang"}
_PP_SETTINGS = ("pipeline_parallel_size", "pp_size")  # vLLM's and SGLang's names of the PP size


def refusals(dep: Deployment, arch: Optional[ModelArch], engine: str = "vllm") -> List[Diagnostic]:
    out: List[Diagnostic] = []
    var = VARS[engine]
    layers = arch.num_layers if arch is not None and arch.num_layers else None
    for role in dep.roles:
        val = role.arg(var)
        if val is None or not isinstance(val.value, str):
            continue
        if any(name in role.unresolved_settings for name in _PP_SETTINGS):
            continue  # the PP size is written but not known (`$(PP)`, CTX008): 1 is no more likely than any other
        pp = role.parallelism.pp
        if engine == "sglang" and pp <= 1:
            continue
        err = refusal(val.value, pp, layers)
        if not err:
            continue
        fix = f"write {pp} layer count(s) that sum to {layers}, one per PP stage ({_NAMES[engine]}'s own split is " \
              f"{','.join(map(str, even_split(layers, pp, engine)))})" if layers else \
            f"write {pp} layer count(s), one per PP stage, that sum to the model's layer count"
        out.append(Diagnostic(
            "engine-rejects-value", f"{_NAMES[engine]} would refuse to start: {var}={val.value} at "
            f"pipeline-parallel size {pp}: get_pp_indices raises ValueError('{err}') while it builds the model's "
            f"layers: {fix}", val.source, dep.display_name))
    return out
