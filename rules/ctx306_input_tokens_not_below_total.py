"""TGI with max_input_tokens not below max_total_tokens: the launcher refuses to start.

Why:
    max_total_tokens is a request's prompt plus output, so TGI's launcher
    requires "`max_input_tokens`(N) must be < `max_total_tokens`(M)"
    (launcher/src/main.rs; the router checks again after warmup). The same
    holds for the deprecated max_input_length and for the MAX_INPUT_TOKENS /
    MAX_TOTAL_TOKENS environment variables.

Example (bad):
    ```yaml
    engine: {name: tgi}
    serving:
      roles:
        - role: unified
          engine_args: {max_input_tokens: 8192, max_total_tokens: 8192}
    ```

Example (good):
    ```yaml
    engine: {name: tgi}
    serving:
      roles:
        - role: unified
          engine_args: {max_input_tokens: 7168, max_total_tokens: 8192}
    ```

Options:
    None.
"""
from __future__ import annotations

from typing import Iterator

from ctxlint.findings import Problem
from ctxlint.model import Deployment, fmt
from ctxlint.rules._engine import TGI_INPUT_NAMES, engine_context, engine_id, int_arg, shown

ID = "CTX306"
NAME = "input-tokens-not-below-total"
SEVERITY = "error"
SCOPE = "deployment"
TAGS = ()
INPUTS = ("engine", "roles[].context_length", "roles[].engine_args")
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}


def check(dep: Deployment, options) -> Iterator[Problem]:
    if engine_id(dep) != "tgi":
        return
    for role in dep.roles:
        given = int_arg("tgi", role, *TGI_INPUT_NAMES)
        total = int_arg("tgi", role, "max_total_tokens", "MAX_TOTAL_TOKENS") or engine_context("tgi", role)
        if given is None or total is None or given[0] < total[0]:
            continue
        yield Problem(
            f"{fmt(given[0])} >= {fmt(total[0])}: the {role.label} {given[2]} {shown(given[1], given[0])} is not "
            f"below max_total_tokens {shown(total[1], total[0])}; TGI refuses to start "
            f"(\"`max_input_tokens`({given[0]}) must be < `max_total_tokens`({total[0]})\"). Lower it to at most "
            f"{fmt(total[0] - 1)}, leaving room for the output",
            given[1].source, dep.display_name)
