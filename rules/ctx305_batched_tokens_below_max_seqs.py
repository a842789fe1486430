"""vLLM with max_num_batched_tokens below max_num_seqs: the engine refuses to start.

Why:
    Every running sequence needs at least one token of the step's budget, so
    vLLM's SchedulerConfig raises "max_num_batched_tokens (N) must be greater
    than or equal to max_num_seqs (M)." at startup (engines.md §1.2d). When
    max_num_seqs is not set its default is at least 256 on GPUs (1,024 on
    70 GiB+ devices other than A100).

Example (bad):
    ```yaml
    engine: {name: vllm}
    serving:
      roles:
        - role: unified
          engine_args: {max_num_batched_tokens: 128, max_num_seqs: 256}
    ```

Example (good):
    ```yaml
    engine: {name: vllm}
    serving:
      roles:
        - role: unified
          engine_args: {max_num_batched_tokens: 8192, max_num_seqs: 256}
    ```

Options:
    None.
"""
from __future__ import annotations

from typing import Iterator

from ctxlint.findings import Problem
from ctxlint.model import Deployment, fmt
from ctxlint.rules._engine import engine_id, int_arg, shown

ID = "CTX305"
NAME = "batched-tokens-below-max-seqs"
SEVERITY = "error"
SCOPE = "deployment"
TAGS = ()
INPUTS = ("engine", "roles[].accelerators", "roles[].engine_args")
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}

GPU_DEFAULT_MAX_NUM_SEQS = 256  # the smaller of vLLM's GPU defaults (get_batch_defaults, engines.md §1.1)


def check(dep: Deployment, options) -> Iterator[Problem]:
    if engine_id(dep) != "vllm":
        return
    for role in dep.roles:
        batched = int_arg("vllm", role, "max_num_batched_tokens")
        if batched is None:
            continue
        seqs = int_arg("vllm", role, "max_num_seqs")
        if seqs is not None:
            limit, what = seqs[0], f"max_num_seqs {shown(seqs[1], seqs[0])}"
        elif not _tpu(role):
            limit, what = GPU_DEFAULT_MAX_NUM_SEQS, f"the default max_num_seqs (at least {GPU_DEFAULT_MAX_NUM_SEQS} on GPUs)"
        else:
            continue
        if batched[0] >= limit:
            continue
        yield Problem(
            f"{fmt(batched[0])} < {fmt(limit)}: the {role.label} max_num_batched_tokens "
            f"{shown(batched[1], batched[0])} is below {what}; vLLM refuses to start "
            f"(\"max_num_batched_tokens must be greater than or equal to max_num_seqs\"). Raise "
            f"max_num_batched_tokens to at least {fmt(limit)}, or lower max_num_seqs",
            batched[1].source, dep.display_name)


def _tpu(role) -> bool:
    kind = role.accelerators.type
    return kind is not None and "tpu" in str(kind.value).lower()
