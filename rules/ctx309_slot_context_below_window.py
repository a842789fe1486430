"""llama.cpp slots whose share of the context is smaller than the requests the deployment promises.

Why:
    llama-server splits `--ctx-size` evenly over `--parallel` slots unless the
    KV cache is unified (`--kv-unified`, the default only when the slot count
    is auto): each request sees n_ctx / n_parallel tokens, and a longer one
    fails with HTTP 400 "the request exceeds the available context size"
    (exceed_context_size_error). `-c 32768 -np 4` serves 8,192-token requests
    (engines.md §5.2).

Example (bad):
    ```yaml
    advertised: {context_window: 32768}
    engine: {name: llamacpp}
    serving:
      roles:
        - role: unified
          engine_args: {ctx_size: 32768, n_parallel: 4}
    ```

Example (good):
    ```yaml
    advertised: {context_window: 32768}
    engine: {name: llamacpp}
    serving:
      roles:
        - role: unified
          engine_args: {ctx_size: 131072, n_parallel: 4}
    ```

Options:
    None.
"""
from __future__ import annotations

from typing import Iterator

from ctxlint.findings import Problem
from ctxlint.model import Deployment, fmt
from ctxlint.rules._common import max_request
from ctxlint.rules._engine import bool_arg, engine_id, int_arg, shown

ID = "CTX309"
NAME = "slot-context-below-window"
SEVERITY = "error"
SCOPE = "deployment"
TAGS = ()
INPUTS = ("advertised.context_window", "advertised.max_output_tokens", "gateway.max_prompt_tokens", "engine",
          "model", "roles[].context_length", "roles[].engine_args")
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}


def check(dep: Deployment, options) -> Iterator[Problem]:
    if engine_id(dep) != "llamacpp":
        return
    for role in dep.roles:
        slots = int_arg("llamacpp", role, "n_parallel", "parallel")
        if slots is None or slots[0] <= 1:
            continue  # one slot, or auto (-1), where the KV cache is unified by default
        unified = bool_arg(role, "kv_unified")
        if unified is not None and unified[0]:
            continue
        total = int_arg("llamacpp", role, "ctx_size")
        if total is not None and total[0] > 0:
            n_ctx, written = total[0], f"ctx_size {shown(total[1], total[0])}"
        elif dep.model.max_position_embeddings is not None:
            n_ctx = dep.model.max_position_embeddings.value
            written = f"ctx_size 0 = the model's trained context {fmt(n_ctx)}"
        else:
            continue
        per_slot = n_ctx // slots[0]
        need = max_request(dep)
        if role.context_length is not None and (need is None or role.context_length.value > need[0]):
            need = (role.context_length.value, f"the {role.label} context length {role.context_length.show()}")
        if need is None or per_slot >= need[0]:
            continue
        yield Problem(
            f"{fmt(n_ctx)} / {slots[0]} = {fmt(per_slot)} < {fmt(need[0])}: llama.cpp gives each of the "
            f"{slots[0]} slots {fmt(per_slot)} tokens ({written}, split because the KV cache is not unified), "
            f"below {need[1]}; longer requests fail with exceed_context_size_error. Raise ctx_size to "
            f"{fmt(need[0] * slots[0])}, set kv_unified: true, or lower parallel",
            slots[1].source, dep.display_name)
