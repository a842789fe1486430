"""Tensor parallelism that does not divide the attention heads, or more GPUs than a replica has.

Why:
    Engines split attention heads evenly across tensor-parallel ranks; vLLM and
    SGLang refuse to start when the head count is not divisible by the TP size.
    And an engine that needs tensor x pipeline x data GPUs cannot start on a
    replica that has fewer. A vLLM pod given `--data-parallel-size-local` runs
    that many of the data-parallel ranks, and one given `--data-parallel-rank`
    (external load balancing) runs that one rank: data counts only those.
    SGLang's DP attention splits the heads over the attention group only: tensor
    parallel size / DP-attention width ranks, not all of the tensor-parallel ones.

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
INPUTS = ("engine", "model", "roles[].accelerators", "roles[].parallelism", "roles[].engine_args")
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}


def _attention_groups(dep: Deployment, role) -> int:
    """SGLang's DP-attention width (0: off): each group of tensor parallel size / width ranks holds all the heads.
    sglang-0.5.5.post2 wheel: sglang/srt/layers/dp_attention.py compute_dp_attention_world_info (attn_tp_size =
    tp_size // dp_size with --enable-dp-attention) and sglang/srt/models/deepseek_v2.py:1124 (`num_heads %
    attn_tp_size`); the width as physics/reserve_sglang.dp_attention_width reads it (0.5.22's --attn-dp-size too)."""
    if dep.engine.name is None or dep.engine.name.value != "sglang":
        return 0
    from ctxlint.physics.reserve_sglang import dp_attention_width
    return dp_attention_width({key: val.value for key, val in role.engine_args})


def check(dep: Deployment, options) -> Iterator[Problem]:
    for role in dep.roles:
        par = role.parallelism
        tp, used = par.tp, par.gpus
        heads = dep.arch.num_attention_heads if dep.arch is not None else None
        width = _attention_groups(dep, role)
        split = tp // width if width > 1 and tp % width == 0 else tp
        if par.tensor is not None and heads and heads % split:
            what = f"tensor parallel size {tp} does" if split == tp else \
                f"the {split} ranks of a DP-attention group (tensor parallel size {tp} / DP-attention width {width}) do"
            yield Problem(
                f"{heads} % {split} = {heads % split}: {dep.arch.name} has {heads} attention heads, which {what} "
                f"not divide; the engine refuses to start. Use a divisor of {heads}",
                par.tensor.source, dep.display_name)
        count = role.accelerators.count
        if count is not None and used > count.value:
            where = par.tensor or par.pipeline or par.data or count
            how = f" ({count.raw})" if count.raw and count.raw != str(count.value) else ""  # 4 chips x 2 ...
            yield Problem(
                f"{used} > {count.value}: the {role.label} engine needs tensor x pipeline x data = {used} GPUs "
                f"but a replica has {count.value}{how}. Lower the parallel sizes or raise the accelerator count",
                where.source, dep.display_name)
