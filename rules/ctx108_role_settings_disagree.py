"""Prefill and decode roles disagree on context length or KV-cache dtype.

Why:
    In a disaggregated deployment one request crosses both roles. If their
    context lengths differ, a request can pass prefill and be rejected (or
    truncated) by decode, or the reverse. If their KV dtypes differ, the KV
    that prefill transfers is not what decode expects: engines either refuse
    the transfer, convert it at a cost, or read it wrong.

Example (bad):
    ```yaml
    roles:
      - {role: prefill, context_length: 1048576, kv_cache_dtype: fp8}
      - {role: decode, context_length: 524288, kv_cache_dtype: bf16}
    ```

Example (good):
    ```yaml
    roles:
      - {role: prefill, context_length: 1048576, kv_cache_dtype: fp8}
      - {role: decode, context_length: 1048576, kv_cache_dtype: fp8}
    ```

Options:
    None.
"""
from __future__ import annotations

from typing import Iterator

from ctxlint.findings import Problem
from ctxlint.model import DECODE, PREFILL, Deployment, fmt
from ctxlint.rules._common import cited

ID = "CTX108"
NAME = "role-settings-disagree"
SEVERITY = "warning"
SCOPE = "deployment"
TAGS = ()
INPUTS = ("disaggregation", "roles[].context_length", "roles[].kv_cache_dtype")
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}

_FIELDS = (("context_length", "context length"), ("kv_cache_dtype", "KV-cache dtype"))


def check(dep: Deployment, options) -> Iterator[Problem]:
    if not dep.disaggregated:
        return
    roles = dep.roles_of(PREFILL) + dep.roles_of(DECODE)
    for attr, words in _FIELDS:
        stated = [(role, getattr(role, attr)) for role in roles if getattr(role, attr) is not None]
        if not stated:
            continue
        first_role, first = stated[0]
        for role, val in stated[1:]:
            if val.value == first.value:
                continue
            yield Problem(
                f"{role.label} {words} {fmt(val.value)} differs from {first_role.label} {fmt(first.value)} "
                f"({cited(first.source, val.source)}): a request can pass one side of the handoff and fail the other. "
                f"Use the same {words} on every prefill and decode role",
                val.source, dep.display_name)
