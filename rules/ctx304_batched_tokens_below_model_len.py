"""vLLM with chunked prefill off and max_num_batched_tokens below max_model_len: the engine refuses to start.

Why:
    Without chunked prefill a prompt must fit in one scheduler step, so vLLM's
    SchedulerConfig raises "max_num_batched_tokens (N) is smaller than
    max_model_len (M). This effectively limits the maximum sequence length to
    max_num_batched_tokens and makes vLLM reject longer sequences." at startup
    (engines.md §1.2d). Chunked prefill is on by default in the V1 engine
    (vLLM >= 0.8.0); on older V0 releases it was on only for contexts above
    32,768 tokens, so an explicit max_num_batched_tokens below a shorter
    max_model_len fails there too.

Example (bad):
    ```yaml
    engine: {name: vllm, version: "0.11.0"}
    serving:
      roles:
        - role: unified
          context_length: 32768
          engine_args: {enable_chunked_prefill: false, max_num_batched_tokens: 8192}
    ```

Example (good):
    ```yaml
    engine: {name: vllm, version: "0.11.0"}
    serving:
      roles:
        - role: unified
          context_length: 32768
          engine_args: {max_num_batched_tokens: 8192}   # chunked prefill on (default)
    ```

Options:
    None.
"""
from __future__ import annotations

from typing import Iterator, Optional

from ctxlint.findings import Problem
from ctxlint.model import Deployment, Role, fmt
from ctxlint.rules._engine import bool_arg, engine_context, engine_id, int_arg, shown
from ctxlint.versions import parse_version

ID = "CTX304"
NAME = "batched-tokens-below-model-len"
SEVERITY = "error"
SCOPE = "deployment"
TAGS = ()
INPUTS = ("engine", "roles[].context_length", "roles[].engine_args")
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}

V1_DEFAULT = parse_version("0.8.0")  # the V1 engine (chunked prefill always on by default) became the default
V0_LONG_CONTEXT = 32768  # V0 turned chunked prefill on by itself above this max_model_len [U]


def check(dep: Deployment, options) -> Iterator[Problem]:
    if engine_id(dep) != "vllm":
        return
    for role in dep.roles:
        batched = int_arg("vllm", role, "max_num_batched_tokens")
        if batched is None:  # most roles leave it to vLLM: the context is read only beside a stated one
            continue
        ctx = engine_context("vllm", role)
        if ctx is None or batched[0] >= ctx[0]:
            continue
        why = _chunking_off(dep, role, ctx[0])
        if why is None:
            continue
        yield Problem(
            f"{fmt(batched[0])} < {fmt(ctx[0])}: the {role.label} max_num_batched_tokens "
            f"{shown(batched[1], batched[0])} is below max_model_len with chunked prefill off ({why}); vLLM "
            f"refuses to start (\"max_num_batched_tokens ({batched[0]}) is smaller than max_model_len "
            f"({ctx[0]})\"). Raise max_num_batched_tokens to {fmt(ctx[0])}, or enable chunked prefill",
            batched[1].source, dep.display_name)


def _chunking_off(dep: Deployment, role: Role, max_model_len: int) -> Optional[str]:
    chunked = bool_arg(role, "enable_chunked_prefill")
    if chunked is not None:
        return None if chunked[0] else "enable_chunked_prefill is false"
    version = parse_version(dep.engine.version.value) if dep.engine.version is not None else None
    v1 = bool_arg(role, "VLLM_USE_V1")
    if version is not None and version < V1_DEFAULT and not (v1 and v1[0]) and max_model_len <= V0_LONG_CONTEXT:
        return f"the V0 default of vLLM {version} for max_model_len <= {fmt(V0_LONG_CONTEXT)}"
    return None
