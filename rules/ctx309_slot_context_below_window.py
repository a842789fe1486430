"""llama.cpp slots whose share of the context is smaller than the requests the deployment promises.

Why:
    llama-server splits `--ctx-size` evenly over `--parallel` slots unless the
    KV cache is unified (`--kv-unified`, the default only when the slot count
    is auto): each request sees n_ctx / n_parallel tokens, and a longer one
    fails with HTTP 400 "the request exceeds the available context size"
    (exceed_context_size_error). `-c 32768 -np 4` serves 8,192-token requests
    (engines.md §5.2). The pool is read as the capacity physics reads it
    (ctxlint.physics.llamacpp): without `-c`, `--kv-unified-per-slot N` sizes
    it to n_parallel x N, and from build b11434 `--fit` sizes it to the
    trained context x n_parallel, so each slot holds the trained context. A
    build not stated (or older) may split the trained context instead: this
    error needs every reading the build allows to fall short, and how far
    `--fit` cuts the pool to memory is CTX210's band, not this rule's.

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
    train = dep.model.max_position_embeddings.value if dep.model.max_position_embeddings is not None else 0
    version = str(dep.engine.version.value) if dep.engine.version is not None else None
    for role in dep.roles:
        slots = int_arg("llamacpp", role, "n_parallel", "parallel")
        if slots is None or slots[0] <= 1:
            continue  # one slot, or auto (-1), where the KV cache is unified by default
        unified = bool_arg(role, "kv_unified")
        if unified is not None and unified[0]:
            continue
        settings = {k: v.value for k, v in role.engine_args}
        settings.update(n_parallel=slots[0], kv_unified=False)
        for name in ("ctx_size", "kv_unified_per_slot"):  # as the engine reads them (a string from the environment)
            found = int_arg("llamacpp", role, name)
            settings[name] = found[0] if found is not None else None
        # the pool before --fit's memory cut (an estimate: CTX210's band), as the physics reads it, build by build;
        # imported here: only a llama.cpp role of several slots needs it, and every run imports this rule (issue 15)
        from ctxlint.physics.llamacpp import per_slot, readings

        pools = [(r, r.cells // r.streams, per_slot(r.cells, r)) for r in readings(settings, train, version)]
        if any(r.cells <= 0 for r, _, _ in pools):
            continue  # no -c and no trained context known
        need = max_request(dep)
        if role.context_length is not None and (need is None or role.context_length.value > need[0]):
            need = (role.context_length.value, f"the {role.label} context length {role.context_length.show()}")
        # a share that holds the need, capped below it by --kv-unified-per-slot, is the role's context length
        # (adapters/engine_roles.py), which CTX104 holds against the window
        if need is None or any(share >= need[0] for _, share, _ in pools):
            continue  # some reading the build allows holds it: no definite error (the band is the build's)
        reading, share, capped = pools[0]
        total = int_arg("llamacpp", role, "ctx_size")
        written = reading.why if reading.why != "ctx_size" else \
            f"ctx_size {shown(total[1], total[0])}" if total is not None else f"n_ctx {fmt(reading.cells)}"
        other = "".join(f"; {fmt(r.cells)} / {slots[0]} = {fmt(s)} on the other reading this build allows ({r.why})"
                        for r, s, _ in pools[1:])
        yield Problem(
            f"{fmt(reading.cells)} / {slots[0]} = {fmt(share)} < {fmt(need[0])}: llama.cpp gives each of the "
            f"{slots[0]} slots {fmt(share)} tokens ({written}, split because the KV cache is not unified"
            f"{f', capped at {fmt(capped)} by kv_unified_per_slot' if capped < share else ''}{other}), "
            f"below {need[1]}; longer requests fail with exceed_context_size_error. "
            + (f"Raise kv_unified_per_slot to {fmt(need[0])} (it sizes the pool and caps every slot)"
               if reading.cap is not None and reading.why != "ctx_size"
               else f"Raise ctx_size to {fmt(need[0] * slots[0])}, set kv_unified: true, or lower parallel"),
            slots[1].source, dep.display_name)
