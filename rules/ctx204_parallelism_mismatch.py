"""Tensor parallelism that does not divide the attention heads, or more GPUs than a replica has.

Why:
    Engines split attention heads evenly across tensor-parallel ranks; vLLM and
    SGLang refuse to start when the head count is not divisible by the TP size.
    And an engine that needs tensor x pipeline x data GPUs cannot start on a
    replica that has fewer. A vLLM pod given `--data-parallel-size-local` runs
    that many of the data-parallel ranks, and one given `--data-parallel-rank`
    (external load balancing) runs that one rank: data counts only those.

Example (bad):
    ```yaml
    model: {id: meta-llama/Llama-3.1-70B-Instruct}    # 64 attention heads
    serving:
      roles:
        - role: unified
          accelerators: {type: H100, count: 4}
          parallelism: {tensor: 6}                    # 64 % 6 != 0, and 6 > 4 GPUs
    ```

Example (good):
    ```yaml
    model: {id: meta-llama/Llama-3.1-70B-Instruct}
    serving:
      roles:
        - role: unified
          accelerators: {type: H100, count: 4}
          parallelism: {tensor: 4}
    ```

Options:
    None.
"""
from __future__ import annotations

from typing import Iterator

from ctxlint.findings import Problem
from ctxlint.model import Deployment

ID = "CTX204"
NAME = "parallelism-mismatch"
SEVERITY = "error"
SCOPE = "deployment"
TAGS = ()
INPUTS = ("model", "roles[].accelerators", "roles[].parallelism")
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}


def check(dep: Deployment, options) -> Iterator[Problem]:
    for role in dep.roles:
        par = role.parallelism
        tp, used = par.tp, par.gpus
        heads = dep.arch.num_attention_heads if dep.arch is not None else None
        if par.tensor is not None and heads and heads % tp:
            yield Problem(
                f"{heads} % {tp} = {heads % tp}: {dep.arch.name} has {heads} attention heads, which tensor "
                f"parallel size {tp} does not divide; the engine refuses to start. Use a divisor of {heads}",
                par.tensor.source, dep.display_name)
        count = role.accelerators.count
        if count is not None and used > count.value:
            where = par.tensor or par.pipeline or par.data or count
            how = f" ({count.raw})" if count.raw and count.raw != str(count.value) else ""  # 4 chips x 2 ...
            yield Problem(
                f"{used} > {count.value}: the {role.label} engine needs tensor x pipeline x data = {used} GPUs "
                f"but a replica has {count.value}{how}. Lower the parallel sizes or raise the accelerator count",
                where.source, dep.display_name)
