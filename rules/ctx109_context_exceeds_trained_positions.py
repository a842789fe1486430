"""An engine context length above the model's trained positions times its RoPE scaling.

Why:
    Positions beyond what the model was trained for (max_position_embeddings,
    stretched by the RoPE scaling factor) give garbage or NaNs with relative
    position encodings and out-of-bounds errors with absolute ones. vLLM and
    SGLang refuse to start unless an override is set
    (`VLLM_ALLOW_LONG_MAX_MODEL_LEN=1`, `SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1`);
    with the override, long requests silently degrade. When a role sets that
    override, CTX303 long-context-override-without-rope-scaling reports it
    instead (with the engine's own RoPE settings), so this rule skips the role.
    For a model the catalog knows to ship RoPE scaling (Llama 3.x, DeepSeek V3,
    Gemma 3), vLLM's and SGLang's limit is the length they derive by their own
    rule (Llama 3's `llama3` scaling is not applied: 131,072 stays 131,072), and
    a larger context length is checked against that. llama-server caps each
    slot at the model's training context (the GGUF's context_length) whatever
    RoPE scaling is set, so there the limit is the trained length itself and
    the fix that lifts it is `--override-kv <arch>.context_length=int:N` with
    RoPE scaling (`--rope-scale N` alone already stretches by N).

Example (bad):
    ```yaml
    model: {max_position_embeddings: 131072, rope_scaling_factor: 1.0}
    serving:
      roles: [{role: unified, context_length: 262144}]
    ```

Example (good):
    ```yaml
    model: {max_position_embeddings: 131072, rope_scaling_factor: 2.0}
    serving:
      roles: [{role: unified, context_length: 262144}]
    ```

Options:
    None.
"""
from __future__ import annotations

from typing import Iterator

from ctxlint.findings import Problem
from ctxlint.model import Deployment, fmt
from ctxlint.rules._engine import LONG_CONTEXT_OVERRIDES, ROPE_HINT, engine_id, long_context_override, position_limit

ID = "CTX109"
NAME = "context-exceeds-trained-positions"
SEVERITY = "error"
SCOPE = "deployment"
TAGS = ()
INPUTS = ("engine", "model", "roles[].context_length", "roles[].engine_args")
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}


def check(dep: Deployment, options) -> Iterator[Problem]:
    engine = engine_id(dep)
    for role in dep.roles:
        ctx = role.context_length
        found = position_limit(dep, engine, role)
        if ctx is None or long_context_override(engine, role) is not None:
            continue
        if found is None:
            limit = role.context_limit  # a RoPE-scaled model: the engine's own derived maximum
            if limit is not None and ctx.value > limit.tokens:
                # no RoPE advice: with `original_max_position_embeddings` SGLang takes no factor, and vLLM from 0.30
                # takes yarn's config value as is, so a scaling override may not raise the limit; the engines' own
                # switch (CTX303 then checks the scaling) is what starts them above it
                yield Problem(
                    f"{fmt(ctx.value)} > {fmt(limit.tokens)}: the {role.label} context length {ctx.show()} exceeds the "
                    f"maximum the engine derives for this model by {fmt(ctx.value - limit.tokens)} tokens "
                    f"({limit.why}), and the engine refuses to start above it. Lower it to {fmt(limit.tokens)}; the "
                    f"engine starts above it only with {LONG_CONTEXT_OVERRIDES.get(engine or '', 'its override')}=1, "
                    "which serves positions the model was not trained for unless RoPE scaling stretches them",
                    ctx.source, dep.display_name)
            continue
        if engine == "llamacpp":
            yield from _llamacpp(dep, role, found)
            continue
        limit, factor, base, where = found
        if ctx.value <= limit:
            continue
        how = f"the RoPE scaling in {where}" if where else "its RoPE scaling factor"
        declare = "(spec.model.rope_scaling_factor)" if dep.input_format == "native" else \
            f"({ROPE_HINT.get(engine or '', 'the engine RoPE scaling setting')} with F >= {ctx.value / base:.2f})"
        yield Problem(
            f"{fmt(ctx.value)} > {fmt(base)} x {factor:g} = {fmt(limit)}: the {role.label} context "
            f"length {ctx.show()} exceeds the model's trained positions times {how} by "
            f"{fmt(ctx.value - limit)} tokens. Lower it to {fmt(limit)}, or declare the RoPE scaling the "
            f"model is actually served with {declare}",
            ctx.source, dep.display_name)


def _llamacpp(dep: Deployment, role, found) -> Iterator[Problem]:
    """llama-server caps every slot at the model's training context whatever RoPE scaling is set
    (ggml-org/llama.cpp@fb4026604c67c682f552337ec9b91eced0abd35a:tools/server/server-context.cpp: `if (n_ctx_slot >
    n_ctx_train) { SRV_WRN("the slot context (%d) exceeds the training context of the model (%d) - capping\\n", ...);
    n_ctx_slot = n_ctx_train; }`, n_ctx_train = llama_model_n_ctx_train = hparams.n_ctx_train, the GGUF's
    context_length). So RoPE flags alone do not lift the window; `--override-kv <arch>.context_length` (CTX303's
    case, skipped above) raises n_ctx_train itself. Builds of early 2025 had no cap
    (ggml-org/llama.cpp@61e588abcc3e418681e9528b46d61f5b23225fe2:examples/server/server.cpp: `n_ctx_slot = n_ctx /
    params_base.n_parallel`), where the RoPE stretch alone decided."""
    ctx, limit, factor, _, where = role.context_length, *found
    trained = dep.model.max_position_embeddings.value
    if ctx is None or ctx.value <= trained:
        return
    if where and limit >= ctx.value:
        how = f"the x{factor:g} RoPE scaling set with --{where.replace('_', '-')} covers it, but "
        fix = f"--override-kv <arch>.context_length=int:{ctx.value} (the RoPE scaling already set covers it)"
    else:
        how = f"the x{factor:g} RoPE scaling set with --{where.replace('_', '-')} does not cover it and " if where \
            else ""
        fix = (f"--override-kv <arch>.context_length=int:{ctx.value} with --rope-scaling yarn --rope-scale F "
               f"--yarn-orig-ctx {trained} (F >= {ctx.value / trained:.2f})")
    yield Problem(
        f"{fmt(ctx.value)} > {fmt(trained)}: the {role.label} context length {ctx.show()} exceeds the model's "
        f"training context (n_ctx_train, the GGUF's context_length) by {fmt(ctx.value - trained)} tokens; "
        f"{how}llama-server caps each slot at n_ctx_train (\"the slot context ... exceeds the training context of "
        f"the model ... - capping\"), so requests above {fmt(trained)} tokens are refused. Lower it to "
        f"{fmt(trained)}, or raise the training context the server caps at: {fix}",
        ctx.source, dep.display_name)
