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
    A model whose config states a longer length under another key that the
    engine takes as the model's length (`model_max_length`: Command R v01
    states 131,072 beside max_position_embeddings 8,192; SGLang reads it
    first; vLLM starts with it from 0.8.3 and accepts a --max-model-len up to
    it since 0.4, vllm-project/vllm#3727) is checked
    against that length: the config does not say which one it was trained for.
    For a model the catalog knows to ship RoPE scaling (Llama 3.x, DeepSeek V3,
    Gemma 3), vLLM's and SGLang's limit is the length they derive by their own
    rule (Llama 3's `llama3` scaling is not applied: 131,072 stays 131,072), and
    a larger context length is checked against that. SGLang applies no RoPE
    factor when the scaling states `original_max_position_embeddings` (as
    Qwen's model cards write it in `--json-model-override-args`), so such an
    override covers the positions but leaves SGLang's own limit at the
    config's length key: a longer context is refused until the same override
    sets that key (`"max_position_embeddings": N`) or the switch is set. vLLM
    from 0.30 applies no YaRN factor (the config's max_position_embeddings is
    the length) and sets a `rope_scaling` in `--hf-overrides` only after the
    config is read, so that override alone leaves the limit at the config's
    length too: on a release known to be 0.30 or later such a context is
    reported, and the advice adds `"max_position_embeddings": N` to the same
    override (a release not known is not assumed to refuse). An ALiBi model (MPT,
    BLOOM, Baichuan 13B: physics.alibi) has no rotary embedding, so no RoPE
    scaling is advised: above the length vLLM or SGLang derives from its config
    (MPT's max_seq_len, BLOOM's seq_length) the engine refuses to start unless
    its switch is set, and a RoPE factor in its override lets it start but
    stretches nothing. A BLOOM config with no position key has no length vLLM
    enforces: it takes a given --max-model-len as is (and 2,048 only when none
    is given). A model with a learned absolute position table (GPT-2 and
    distilgpt2, OPT, GPTBigCode: physics.alibi) has one row per trained
    position and no rotary embedding: no RoPE scaling is advised, and since a
    position past the table does not exist, the switch that lets the engine
    start above the length is not offered as a way to serve it. On llama.cpp
    the limit
    is the GGUF's context_length times the RoPE scaling set (`--rope-scale N`
    alone stretches by N, `--rope-freq-scale X` by 1/X, `--rope-scaling none`
    not at all), and whether llama-server caps each slot at the context_length
    depends on the release: builds before b6925 do not; b6925 to at least
    b8850 do whatever RoPE scaling is set; from b10754 YaRN scaling lifts the
    cap. A context the RoPE scaling covers is an error only on a release known
    to cap it (a `server-bNNNN` image tag or spec.engine.version); with the
    release unknown it is not reported. A context it does not cover is an
    error on every release, and the advice (YaRN flags plus
    `--override-kv <arch>.context_length=int:N`) works on all of them.

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

from typing import Iterator, Optional

from ctxlint.findings import Problem
from ctxlint.model import Deployment, fmt
from ctxlint.physics.alibi import alibi_family, learned_table_family
from ctxlint.rules._engine import (LONG_CONTEXT_OVERRIDES, ROPE_HINT, engine_id, long_context_override, position_limit,
                                  sglang_limit, vllm_limit, vllm_stated_length, vllm_yarn_keeps_length)

ID = "CTX109"
NAME = "context-exceeds-trained-positions"
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
    for role in dep.roles:
        ctx = role.context_length
        if ctx is None or long_context_override(engine, role) is not None:
            continue
        family = alibi_family(dep.arch) if engine != "llamacpp" else ""
        if family and dep.model.max_position_embeddings is not None:
            yield from _alibi(dep, engine, role, family)
            continue
        table = learned_table_family(dep.arch) if engine != "llamacpp" else ""
        if table and dep.model.max_position_embeddings is not None:
            yield from _learned(dep, engine, role, table)
            continue
        found = position_limit(dep, engine, role)  # only for a role it applies to
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
        if engine == "llamacpp":  # only a llama.cpp role pays for the import
            from ctxlint.rules._llamacpp_positions import llamacpp_positions

            yield from llamacpp_positions(dep, role, found)
            continue
        limit, factor, base, where = found
        derived = sglang_limit(dep, role) if engine == "sglang" else None
        own = derived if engine == "sglang" else vllm_limit(dep, role) if engine == "vllm" and ctx.value > limit \
            else None
        stated = own[0] if own is not None else 0
        if engine == "vllm" and own is not None and own[2]:  # a user's length up to model_max_length, every release
            stated = max(stated, vllm_stated_length(dep, role) or 0)
        if own is not None and where is None and own[2] not in ("", "max_position_embeddings") \
                and limit < ctx.value <= stated:
            # The model's own config states this length under another key, which the engine takes as the model's
            # length and starts with (CohereForAI/c4ai-command-r-v01: model_max_length 131,072, its advertised
            # 128K, beside max_position_embeddings 8,192; SGLang reads that key first, vLLM from 0.8.3 lets it
            # override the smallest key and accepts a user's --max-model-len up to it since #3727 (0.4), and a
            # release not known is not assumed older): which of the two lengths it was trained for is not known, so
            # no error rests on the smaller
            continue
        if ctx.value <= limit:
            if derived is not None and ctx.value > derived[0]:
                yield _refused("sglang", dep, role, derived, limit)
            elif engine == "vllm":
                found_vllm = vllm_limit(dep, role)
                if found_vllm is not None and ctx.value > found_vllm[0]:
                    yield _refused("vllm", dep, role, found_vllm, limit)
            continue
        how = f"the RoPE scaling in {where}" if where else "its RoPE scaling factor"
        hint = ROPE_HINT.get(engine or '', 'the engine RoPE scaling setting')
        if derived is not None and derived[2]:  # SGLang takes no factor with the original length: the key too
            hint = f"{hint[:-2]}, \"{derived[2]}\": {ctx.value}}}'"
        elif engine == "vllm" and vllm_yarn_keeps_length(dep):  # vLLM >= 0.30 takes YaRN's length from the key
            hint = f"{hint[:-2]}, \"max_position_embeddings\": {ctx.value}}}'"
        declare = "(spec.model.rope_scaling_factor)" if dep.input_format == "native" else \
            f"({hint} with F >= {ctx.value / base:.2f})"
        yield Problem(
            f"{fmt(ctx.value)} > {fmt(base)} x {factor:g} = {fmt(limit)}: the {role.label} context "
            f"length {ctx.show()} exceeds the model's trained positions times {how} by "
            f"{fmt(ctx.value - limit)} tokens. Lower it to {fmt(limit)}, or declare the RoPE scaling the "
            f"model is actually served with {declare}",
            ctx.source, dep.display_name)


# What each engine derives and refuses above, and what raises it (_refused): SGLang's ValueError unless
# SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN (model_config.py _derive_context_length; a rope_scaling with
# original_max_position_embeddings takes no factor: physics.context_sglang.sglang_derived); vLLM's unless
# VLLM_ALLOW_LONG_MAX_MODEL_LEN (vllm/config/model.py _get_and_verify_max_len; from 0.30 a YaRN rope_scaling in
# --hf-overrides leaves the length at the config's key, physics.context._vllm_rule, and the key in the same override
# raises it: a flat override updates the config before the length is derived,
# vllm-project/vllm@v0.30.0:vllm/transformers_utils/config.py get_config, config.update(hf_overrides_kw)).
# (engine, its length's name, the override flag, what the key is, the switch)
_REFUSALS = {"sglang": ("SGLang", "context_length", "--json-model-override-args", "SGLang's length key",
                        "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN"),
             "vllm": ("vLLM", "max_model_len", "--hf-overrides", "the length key vLLM reads",
                      "VLLM_ALLOW_LONG_MAX_MODEL_LEN")}


def _refused(engine: str, dep: Deployment, role, derived, covered: int) -> Problem:
    """Within the RoPE scaling's reach but above the length the engine derives: it refuses to start. The advice is
    what raises that length: the key it reads, set in the override beside the RoPE scaling, or its switch."""
    name, length, flag, what, switch = _REFUSALS[engine]
    ctx, (tokens, why, key) = role.context_length, derived
    key_hint = f"\"{key}\": {ctx.value} in {flag} ({what}, beside the RoPE scaling), or " if key else ""
    derives = f"the length {name}" if engine == "sglang" else f"the {length} {name}"
    return Problem(
        f"{fmt(ctx.value)} > {fmt(tokens)}: the {role.label} context length {ctx.show()} exceeds {derives} derives "
        f"for this model by {fmt(ctx.value - tokens)} tokens ({why}), and {name} refuses to start above it "
        f"(\"User-specified {length} ... is greater than the derived {length}\"), though the RoPE scaling covers "
        f"{fmt(covered)} positions. Set {key_hint}{switch}=1, or lower it to {fmt(tokens)}",
        ctx.source, dep.display_name)


def _alibi(dep: Deployment, engine: Optional[str], role, family: str) -> Iterator[Problem]:
    """An ALiBi model (physics.alibi): no RoPE scaling stretches its positions, so none is advised. vLLM and
    SGLang derive its length from the config's keys as for any model (vLLM: the smallest, MPT's max_seq_len;
    vllm/config/model.py _get_and_verify_max_len) and refuse a longer one unless their switch is set; a RoPE
    factor in their override still multiplies that length (the engine starts) but the model ignores it."""
    trained = dep.model.max_position_embeddings.value
    alibi = f"{family} places tokens by ALiBi attention biases, not a rotary embedding, so no RoPE scaling " \
        "stretches its positions"
    yield from _unstretched(
        dep, engine, role, alibi,
        lambda name, switch, limit: f"Lower it to {fmt(limit)}; {name} starts above it only with {switch}=1, and "
        f"ALiBi then extrapolates past the {fmt(trained)} positions the model was trained on (no position table to "
        "overrun, but no training at those lengths either)",
        f"but {alibi}: past them ALiBi extrapolates")


def _learned(dep: Deployment, engine: Optional[str], role, family: str) -> Iterator[Problem]:
    """A learned absolute position table (physics.alibi): one row per trained position, no rotary embedding. vLLM
    and SGLang derive the length from the config's keys as for any model and refuse a longer one unless their
    switch is set; with the switch (or a RoPE factor in their override, which multiplies the derived length) they
    start, but a position past the table is an index it does not have: nothing there to serve or stretch."""
    rows = dep.model.max_position_embeddings.value
    table = f"{family} adds a learned position embedding, a table of {fmt(rows)} rows (one per position), not a " \
        "rotary embedding, so no RoPE scaling stretches its positions and a position past the table does not exist"
    yield from _unstretched(
        dep, engine, role, table,
        lambda name, switch, limit: f"Lower it to {fmt(min(limit, rows))}: {switch}=1 lets {name} start above it, "
        "but not serve a position the table has no row for",
        f"but {table}")


def _unstretched(dep: Deployment, engine: Optional[str], role, why: str, above_limit, past_trained: str
                 ) -> Iterator[Problem]:
    """CTX109 for a model whose positions no RoPE scaling stretches (`why` says how it places tokens): above the
    length vLLM or SGLang derives, which they refuse to start past (`above_limit(name, switch, limit)` says what
    to do); else above the trained positions (`past_trained` says what happens there)."""
    ctx, trained = role.context_length, dep.model.max_position_embeddings.value
    derived = sglang_limit(dep, role) if engine == "sglang" else vllm_limit(dep, role) if engine == "vllm" \
        else None
    if derived is not None and ctx.value > derived[0]:
        name, switch = _REFUSALS[engine][0], _REFUSALS[engine][4]
        yield Problem(
            f"{fmt(ctx.value)} > {fmt(derived[0])}: the {role.label} context length {ctx.show()} exceeds the length "
            f"{name} derives for this model by {fmt(ctx.value - derived[0])} tokens ({derived[1]}), and {name} "
            f"refuses to start above it. {why}. {above_limit(name, switch, derived[0])}",
            ctx.source, dep.display_name)
    elif ctx.value > trained:
        starts = f"; {_REFUSALS[engine][0]} starts with it ({derived[1]})" if derived is not None else ""
        yield Problem(
            f"{fmt(ctx.value)} > {fmt(trained)}: the {role.label} context length {ctx.show()} exceeds the "
            f"{fmt(trained)} positions this model was trained on by {fmt(ctx.value - trained)} tokens{starts}, "
            f"{past_trained}. Lower it to {fmt(trained)}",
            ctx.source, dep.display_name)
