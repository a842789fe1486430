"""CTX109, CTX303 and CTX304 read what they compare only once a role is one they apply to (a context length
without an override, an override, a stated max_num_batched_tokens): each must report what its replaced loop
(kept below, which read everything first) reported, on every sample and corpus deployment and on variants
of them with the settings these rules read added, changed or removed."""
from __future__ import annotations

from pathlib import Path
from typing import Iterator, List

from conftest import SHARED

from ctxlint.engine import Settings, lint_paths
from ctxlint.findings import Problem
from ctxlint.model import Deployment, Val, fmt
from ctxlint.records import replace
from ctxlint.rules import ctx109_context_exceeds_trained_positions as ctx109
from ctxlint.rules import ctx303_long_context_override_without_rope_scaling as ctx303
from ctxlint.rules import ctx304_batched_tokens_below_model_len as ctx304
from ctxlint.rules._engine import (LONG_CONTEXT_OVERRIDES, ROPE_HINT, engine_context, engine_id, int_arg, label,
                                   long_context_override, position_limit, shown)
from ctxlint.rules._llamacpp_positions import llamacpp_positions

ROOT = Path(__file__).resolve().parents[1]


def _ctx303(dep: Deployment, options) -> Iterator[Problem]:
    engine = engine_id(dep)
    if engine is None:
        return
    for role in dep.roles:
        override = long_context_override(engine, role)
        ctx = engine_context(engine, role)
        found = position_limit(dep, engine, role)
        if override is None or ctx is None or found is None:
            continue
        limit, factor, base, where = found
        if ctx[0] <= limit:
            continue
        scaling = (f"the RoPE scaling set in {where} (x{factor:g}) covers only {fmt(limit)}" if where
                   else "no RoPE scaling is set")
        yield Problem(
            f"{fmt(ctx[0])} > {fmt(base)} x {factor:g} = {fmt(limit)}: {override[0]} lets {label(engine)} start "
            f"the {role.label} role with {ctx[2]} {shown(ctx[1], ctx[0])}, {fmt(ctx[0] - limit)} tokens past the "
            f"model's trained positions, and {scaling}. Positions beyond {fmt(limit)} give NaNs or garbage "
            f"(RoPE) or CUDA out-of-bounds errors (absolute positions). Add "
            f"{ctx303.ROPE_HINT.get(engine, 'RoPE scaling')} with F >= {ctx[0] / base:.2f}, or lower {ctx[2]} "
            f"to {fmt(limit)} and drop the override",
            override[1].source, dep.display_name)


def _ctx109(dep: Deployment, options) -> Iterator[Problem]:
    # the loop as it stood before this change, with the SGLang override rule merged meanwhile (sweep 45) and the
    # vLLM >= 0.30 YaRN rule (feat-yarn)
    engine = engine_id(dep)
    for role in dep.roles:
        ctx = role.context_length
        found = position_limit(dep, engine, role)
        if ctx is None or long_context_override(engine, role) is not None:
            continue
        if found is None:
            limit = role.context_limit
            if limit is not None and ctx.value > limit.tokens:
                yield Problem(
                    f"{fmt(ctx.value)} > {fmt(limit.tokens)}: the {role.label} context length {ctx.show()} exceeds the "
                    f"maximum the engine derives for this model by {fmt(ctx.value - limit.tokens)} tokens "
                    f"({limit.why}), and the engine refuses to start above it. Lower it to {fmt(limit.tokens)}; the "
                    f"engine starts above it only with {LONG_CONTEXT_OVERRIDES.get(engine or '', 'its override')}=1, "
                    "which serves positions the model was not trained for unless RoPE scaling stretches them",
                    ctx.source, dep.display_name)
            continue
        if engine == "llamacpp":
            yield from llamacpp_positions(dep, role, found)
            continue
        limit, factor, base, where = found
        derived = ctx109.sglang_limit(dep, role) if engine == "sglang" else None
        if ctx.value <= limit:
            if derived is not None and ctx.value > derived[0]:
                yield ctx109._refused("sglang", dep, role, derived, limit)
            elif engine == "vllm":
                found_vllm = ctx109.vllm_limit(dep, role)
                if found_vllm is not None and ctx.value > found_vllm[0]:
                    yield ctx109._refused("vllm", dep, role, found_vllm, limit)
            continue
        how = f"the RoPE scaling in {where}" if where else "its RoPE scaling factor"
        hint = ROPE_HINT.get(engine or '', 'the engine RoPE scaling setting')
        if derived is not None and derived[2]:
            hint = f"{hint[:-2]}, \"{derived[2]}\": {ctx.value}}}'"
        elif engine == "vllm" and ctx109.vllm_yarn_keeps_length(dep):
            hint = f"{hint[:-2]}, \"max_position_embeddings\": {ctx.value}}}'"
        declare = "(spec.model.rope_scaling_factor)" if dep.input_format == "native" else \
            f"({hint} with F >= {ctx.value / base:.2f})"
        yield Problem(
            f"{fmt(ctx.value)} > {fmt(base)} x {factor:g} = {fmt(limit)}: the {role.label} context "
            f"length {ctx.show()} exceeds the model's trained positions times {how} by "
            f"{fmt(ctx.value - limit)} tokens. Lower it to {fmt(limit)}, or declare the RoPE scaling the "
            f"model is actually served with {declare}",
            ctx.source, dep.display_name)


def _ctx304(dep: Deployment, options) -> Iterator[Problem]:
    if engine_id(dep) != "vllm":
        return
    for role in dep.roles:
        batched = int_arg("vllm", role, "max_num_batched_tokens")
        ctx = engine_context("vllm", role)
        if batched is None or ctx is None or batched[0] >= ctx[0]:
            continue
        why = ctx304._chunking_off(dep, role, ctx[0])
        if why is None:
            continue
        yield Problem(
            f"{fmt(batched[0])} < {fmt(ctx[0])}: the {role.label} max_num_batched_tokens "
            f"{shown(batched[1], batched[0])} is below max_model_len with chunked prefill off ({why}); vLLM "
            f"refuses to start (\"max_num_batched_tokens ({batched[0]}) is smaller than max_model_len "
            f"({ctx[0]})\"). Raise max_num_batched_tokens to {fmt(ctx[0])}, or enable chunked prefill",
            batched[1].source, dep.display_name)


# (name, value) pairs a variant sets on every role: the switches and settings the three rules read
SETTINGS = [("VLLM_ALLOW_LONG_MAX_MODEL_LEN", "1"), ("SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN", "true"),
            ("VLLM_ALLOW_LONG_MAX_MODEL_LEN", "0"), ("max_num_batched_tokens", 512), ("max_num_batched_tokens", "2M"),
            ("max_model_len", 1_000_000), ("context_length", 262_144), ("enable_chunked_prefill", "false"),
            ("override_kv", "llama.context_length=int:1000000"), ("ctx_size", 500_000), ("rope_scaling", "yarn")]


def _variants(dep: Deployment) -> Iterator[Deployment]:
    yield dep
    if not dep.roles:
        return
    source = dep.source
    for k in range(len(SETTINGS)):
        extra = tuple((name, Val(value, source)) for name, value in SETTINGS[k:k + 3])
        roles = tuple(replace(r, engine_args=r.engine_args + extra) for r in dep.roles)
        yield replace(dep, roles=roles)
        yield replace(dep, roles=roles, model=replace(dep.model, max_position_embeddings=Val(32_768, source)))
        yield replace(dep, roles=tuple(replace(r, context_length=None) for r in roles))
    yield replace(dep, model=replace(dep.model, max_position_embeddings=None))


def _deployments() -> List[Deployment]:
    paths = [str(ROOT / "samples")] + ([str(SHARED / "corpus")] if (SHARED / "corpus").is_dir() else [])
    return lint_paths(paths, Settings()).deployments


def test_each_rule_reports_what_its_replaced_loop_reported():
    checked = {ctx109: 0, ctx303: 0, ctx304: 0}
    for dep in _deployments():
        for variant in _variants(dep):
            for module, replaced in ((ctx109, _ctx109), (ctx303, _ctx303), (ctx304, _ctx304)):
                new = [(p.message, p.source) for p in module.check(variant, {})]
                assert new == [(p.message, p.source) for p in replaced(variant, {})], (dep.file, module.ID)
                checked[module] += len(new)
    assert all(checked.values()), checked  # each rule reports on some variant
