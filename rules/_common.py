"""Helpers shared by rules: the request sizes a deployment must hold."""
from __future__ import annotations

from typing import Iterable, Iterator, Optional, Tuple

from ctxlint.findings import Diagnostic, Problem
from ctxlint.held import admission_hang, starts_and_hangs
from ctxlint.model import Deployment, Role, Source, fmt


def from_diagnostics(diagnostics: Iterable[Diagnostic], kind: str) -> Iterator[Problem]:
    """The input rules report what the loader and the adapters recorded."""
    for diag in diagnostics:
        if diag.kind == kind:
            yield Problem(diag.message, diag.source, diag.deployment, fix=diag.fix, severity=diag.severity)


def cited(other: Source, here: Source) -> str:
    """Where another value is written, for a finding at `here`: `line N` in the same file, else `file:N` as
    the reporters print paths (a prefill script beside the decode one: its line alone points into the
    wrong file)."""
    return f"line {other.line}" if other.file == here.file else f"{other.file}:{other.line}"


def max_prompt(dep: Deployment) -> Optional[Tuple[int, str, Source]]:
    """The longest prompt clients may send: the window, or a lower gateway cap.

    Returns (tokens, what limits it, where that limit is written).
    """
    window, cap = dep.advertised.context_window, dep.gateway.max_prompt_tokens
    if cap is not None and (window is None or cap.value < window.value):
        return cap.value, f"the gateway cap {fmt(cap.value)}", cap.source
    if window is not None:
        return window.value, f"the advertised window {fmt(window.value)}", window.source
    return None


def max_request(dep: Deployment) -> Optional[Tuple[int, str]]:
    """The most KV one request can need: prompt plus output, bounded by the window."""
    window, output = dep.advertised.context_window, dep.advertised.max_output_tokens
    prompt = max_prompt(dep)
    if window is None or prompt is None:
        return None
    if output is not None and prompt[0] + output.value < window.value:
        return (prompt[0] + output.value,
                f"prompt up to {fmt(prompt[0])} + output up to {fmt(output.value)} = {fmt(prompt[0] + output.value)}")
    if output is not None:
        return window.value, (f"prompt up to {fmt(prompt[0])} + output up to {fmt(output.value)}, "
                              f"bounded by the window {fmt(window.value)}")
    return window.value, f"the advertised window {fmt(window.value)}"


def smallest_pool(roles: Iterable[Role]) -> Optional[Role]:
    """The role whose pool holds the least for one request (Pool.request: the pool less the engine's reserve)."""
    with_pool = [r for r in roles if r.pool is not None]
    return min(with_pool, key=lambda r: r.pool.request) if with_pool else None


def gateway_field(dep: Deployment) -> str:
    """Where a deployment of this input format states its gateway prompt cap, for advice."""
    if dep.input_format == "native":
        return "spec.gateway.max_prompt_tokens"
    return "and state it with the annotation ctxlint.io/gateway-max-prompt-tokens"


def context_text(role: Role) -> str:
    """The role's context length for messages: as written, or the engine default and where it comes from."""
    ctx = role.context_length
    if ctx is None:
        return "?"
    default = role.context_default
    if default is not None:
        return f"{fmt(ctx.value)} (its default: {default.why}; nothing sets {default.setting})"
    return ctx.show()


def context_fix(role: Role, limit: int) -> str:
    """How to lower the role's context length to `limit`, naming the setting."""
    default = role.context_default
    if default is not None:
        return f"set {default.setting} {fmt(limit)} (or less)"
    return f"lower the context length to {fmt(limit)}"


def over(need: int, role: Role) -> bool:
    """An error: the need exceeds even the most one request can hold in the role's pool (at its band's top)."""
    return role.pool is not None and need > role.pool.request_ceiling


def pool_text(role: Role, pause: str = "") -> str:
    """The role's pool as the engine logs it, and what one request can hold of it when that is less (then
    followed by `pause`, e.g. "," before the sentence goes on)."""
    if role.pool is None:
        return "?"
    holds = role.pool.holds()
    return role.pool.describe() + (holds + pause if holds else "")


def pool_for(need: int, role: Role) -> int:
    """The pool (as the engine logs it) in which one request of `need` tokens fits: `need` plus what the
    engine keeps back of it."""
    pool = role.pool
    if pool is not None and pool.logged is not None:  # a logged figure of a model with window layers
        return pool.logged.logged_for(need)
    cap = role.capacity if pool is not None and pool.origin == "derived" else None
    if getattr(cap, "window_groups", None):  # DeepSeek-V4 on vLLM: its window groups cost more the longer the request
        from ctxlint.physics.pool import window_cost
        block = cap.block_size  # its own blocks and its window groups', and the null block
        return -(-need // block) * block + window_cost(cap.window_groups, block, cap.kv_bytes_per_token_per_gpu,
                                                       need) + block
    if pool is not None and pool.origin == "derived" and pool.request_ceiling > 0 and \
            admission_hang(role, need):  # vLLM 0.19's admission check: the windows cost per token, as the rest
        return -(-need * pool.ceiling // pool.request_ceiling)
    return need if pool is None else need + max(0, pool.ceiling - pool.request_ceiling)


# vLLM 0.19.x with a model with window layers: its admission check reserves every KV cache group for the whole
# request, windows too (scheduler_reserve_full_isl; ctxlint.physics.logged), while its startup check counts
# window groups up to their window (CTX101, CTX201).
VLLM_ADMISSION = ("vLLM starts (its startup check counts the window layers only up to their window), and a "
                  "request longer than {held} tokens is never admitted: vLLM 0.19's admission check "
                  "(scheduler_reserve_full_isl) reserves every KV cache group for the whole request, so it waits "
                  "at the head of the queue while health checks pass (vllm#39734; --no-scheduler-reserve-full-isl "
                  "or vLLM 0.20 admits it)")


def admission_text(engine: Optional[str], role: Role, need: int) -> str:
    """VLLM_ADMISSION for a request of `need` tokens the engine starts with and never admits, else ''."""
    if not starts_and_hangs(engine, role, need) or not admission_hang(role, need):
        return ""
    return VLLM_ADMISSION.format(held=fmt(role.pool.request_ceiling))
