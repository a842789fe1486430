"""A long-context override switch used to serve past the model's trained positions without RoPE scaling.

Why:
    vLLM and SGLang refuse a context length above what the model config
    derives, unless `VLLM_ALLOW_LONG_MAX_MODEL_LEN=1` or
    `SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1` turns the refusal into a
    warning (llama.cpp: `--override-kv <arch>.context_length=int:N`). The
    engines' own text: positions beyond the derived length "lead to nan" with
    RoPE and "cause a CUDA array out-of-bounds error" with absolute positions.
    The override is only safe next to a matching RoPE scaling (vLLM
    `--hf-overrides`/`--rope-scaling`, SGLang `--json-model-override-args`,
    llama.cpp `--rope-scaling yarn --rope-scale`). CTX109 reports the same
    overrun when no override is set. An ALiBi model (MPT, BLOOM, Baichuan 13B)
    has no rotary embedding to scale and no position table to overrun: past
    its trained length ALiBi extrapolates, and the finding says so instead of
    advising RoPE scaling. A model with a learned absolute position table
    (GPT-2 and distilgpt2, OPT, GPTBigCode: physics.alibi) has nothing for RoPE
    scaling to stretch either, and a position past its table does not exist:
    the finding advises lowering the length (a RoPE factor in the override
    does not cover it).

Example (bad):
    ```yaml
    model: {max_position_embeddings: 131072}
    engine: {name: vllm}
    serving:
      roles:
        - role: unified
          context_length: 262144
          engine_args: {VLLM_ALLOW_LONG_MAX_MODEL_LEN: "1"}
    ```

Example (good):
    ```yaml
    model: {max_position_embeddings: 131072}
    engine: {name: vllm}
    serving:
      roles:
        - role: unified
          context_length: 262144
          engine_args:
            VLLM_ALLOW_LONG_MAX_MODEL_LEN: "1"
            hf_overrides: '{"rope_scaling": {"rope_type": "yarn", "factor": 2.0,
                            "original_max_position_embeddings": 131072}}'
    ```

Options:
    None.
"""
from __future__ import annotations

from typing import Iterator

from ctxlint.findings import Problem
from ctxlint.model import Deployment, fmt
from ctxlint.physics.alibi import alibi_family, learned_table_family
from ctxlint.rules._engine import (ROPE_HINT, engine_context, engine_id, label, long_context_override,
                                  position_limit, shown)

ID = "CTX303"
NAME = "long-context-override-without-rope-scaling"
SEVERITY = "error"
SCOPE = "deployment"
TAGS = ()
INPUTS = ("engine", "model", "roles[].context_length", "roles[].engine_args")
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}


def check(dep: Deployment, options) -> Iterator[Problem]:
    if getattr(dep.resolution, "via", "") != "served":
        return _check(dep, options)
    from ctxlint.rules._served import if_served  # only over a served-name resolution

    return if_served(dep, _check(dep, options))  # a model named only by its served name: warnings (_served.py)


def _check(dep: Deployment, options) -> Iterator[Problem]:
    engine = engine_id(dep)
    if engine is None:
        return
    for role in dep.roles:
        # the override first: few roles turn it on, and the context and the positions are read only then
        override = long_context_override(engine, role)
        if override is None:
            continue
        ctx = engine_context(engine, role)
        found = position_limit(dep, engine, role) if ctx is not None else None
        if found is None:
            continue
        limit, factor, base, where = found
        family = alibi_family(dep.arch) if engine != "llamacpp" else ""
        if family and ctx[0] > dep.model.max_position_embeddings.value:
            # ALiBi (physics.alibi): no rotary embedding for RoPE scaling to stretch, no position table to overrun
            trained = dep.model.max_position_embeddings.value
            yield Problem(
                f"{fmt(ctx[0])} > {fmt(trained)}: {override[0]} lets {label(engine)} start the {role.label} role "
                f"with {ctx[2]} {shown(ctx[1], ctx[0])}, {fmt(ctx[0] - trained)} tokens past the {fmt(trained)} "
                f"positions the model was trained on. {family} places tokens by ALiBi attention biases, not a rotary "
                "embedding: no RoPE scaling applies and no position table is overrun, so ALiBi extrapolates to "
                f"lengths the model was not trained at. Lower {ctx[2]} to {fmt(trained)} and drop the override, or "
                "suppress this finding where that extrapolation was measured and accepted",
                override[1].source, dep.display_name)
            continue
        if family:
            continue
        table = learned_table_family(dep.arch) if engine != "llamacpp" else ""
        if table and dep.model.max_position_embeddings is not None:
            # a learned position table (physics.alibi): no RoPE to scale, whatever factor is set; no row past it
            rows = dep.model.max_position_embeddings.value
            if ctx[0] > rows:
                yield Problem(
                    f"{fmt(ctx[0])} > {fmt(rows)}: {override[0]} lets {label(engine)} start the {role.label} role "
                    f"with {ctx[2]} {shown(ctx[1], ctx[0])}, {fmt(ctx[0] - rows)} tokens past the {fmt(rows)} "
                    f"positions the model was trained on. {table} adds a learned position embedding, a table of "
                    f"{fmt(rows)} rows (one per position), not a rotary embedding: no RoPE scaling applies, and a "
                    f"position past the table does not exist. Lower {ctx[2]} to {fmt(rows)} and drop the override",
                    override[1].source, dep.display_name)
            continue
        if ctx[0] <= limit:
            continue
        scaling = (f"the RoPE scaling set in {where} (x{factor:g}) covers only {fmt(limit)}" if where
                   else "no RoPE scaling is set")
        yield Problem(
            f"{fmt(ctx[0])} > {fmt(base)} x {factor:g} = {fmt(limit)}: {override[0]} lets {label(engine)} start "
            f"the {role.label} role with {ctx[2]} {shown(ctx[1], ctx[0])}, {fmt(ctx[0] - limit)} tokens past the "
            f"model's trained positions, and {scaling}. Positions beyond {fmt(limit)} give NaNs or garbage "
            f"(RoPE) or CUDA out-of-bounds errors (absolute positions). Add "
            f"{ROPE_HINT.get(engine, 'RoPE scaling')} with F >= {ctx[0] / base:.2f}, or lower {ctx[2]} "
            f"to {fmt(limit)} and drop the override",
            override[1].source, dep.display_name)
