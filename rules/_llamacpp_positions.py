"""CTX109 context-exceeds-trained-positions on llama.cpp (rules/ctx109_context_exceeds_trained_positions.py): a
context above the GGUF's context_length, against the RoPE stretch its flags set and the slot cap of the llama-server
release.

Apart from the rule because llama-server's limit is its own question (a cap that came and went by build number,
which no other engine has), and because only a llama.cpp role needs it: the rule imports it for one."""
from __future__ import annotations

import re
from typing import Iterator, Optional

from ctxlint.findings import Problem
from ctxlint.model import Deployment, fmt

# llama-server's slot cap by release (the b-numbers are llama.cpp's build tags, `server-bNNNN` images):
# - before b6925 no cap: `n_ctx_slot = n_ctx / params_base.n_parallel`
#   (ggml-org/llama.cpp@61e588abcc3e418681e9528b46d61f5b23225fe2:examples/server/server.cpp), the RoPE stretch decides;
# - from cd5e3b57 (b6925, a llama-server's system_fingerprint "b6925-cd5e3b575") the slot is capped at n_ctx_train
#   whatever RoPE flags are set (https://github.com/ggml-org/llama.cpp/issues/17459), still so at b8850
#   (https://github.com/ggml-org/llama.cpp/issues/22140; https://github.com/ggml-org/llama.cpp/pull/22145, which would
#   drop the cap, was closed unmerged);
# - at b10754 (43d87ff2d) the cap sits in n_ctx_slot() (`std::min(res, llama_model_n_ctx_train(model_tgt))`), but
#   llama_init_from_model first sets n_ctx_train = n_ctx_orig_yarn / rope_freq_scale when the scaling type is YaRN
#   and the scale differs from the GGUF's (src/llama-context.cpp, as quoted in
#   https://github.com/meta-models/meta-oss-cookbook/issues/37): YaRN lifts the cap, linear scaling does not.
# The builds between b8850 and b10754, and where the YaRN lift first shipped, are unknown: there a covered context
# is not reported (uncertainty widens a band, it never flips a verdict to an error).
CAP_FROM, CAP_SEEN, YARN_LIFT_SEEN = 6925, 8850, 10754
CAPS = "caps each slot at n_ctx_train (\"the slot context ... exceeds the training context of the model ... - " \
    "capping\")"


def _build(dep: Deployment) -> Optional[int]:
    """The llama.cpp build number of a `bNNNN` release (image tag `server-b4500`, spec.engine.version), or None."""
    version = dep.engine.version.value if dep.engine.version is not None else None
    m = re.fullmatch(r"b(\d+)", str(version or "").strip().lower())
    return int(m.group(1)) if m else None


def _capped(build: Optional[int], kind: Optional[str]) -> bool:
    """True only where the release certainly caps a covered context at n_ctx_train."""
    if build is None or build < CAP_FROM:
        return False
    if build <= CAP_SEEN:
        return True
    # from b10754 an explicit non-YaRN type keeps the cap; without --rope-scaling the GGUF's type decides (unknown)
    return build >= YARN_LIFT_SEEN and kind is not None and kind != "yarn"


def llamacpp_positions(dep: Deployment, role, found) -> Iterator[Problem]:
    """llama.cpp: above the GGUF's context_length, an error where positions go past the RoPE stretch (every release)
    or where this deployment's known release caps the slot; see the release notes above."""
    ctx, (limit, factor, base, where) = role.context_length, found
    trained = dep.model.max_position_embeddings.value
    if ctx is None or ctx.value <= trained:
        return
    scaling = f"the x{factor:g} RoPE scaling set with --{where.replace('_', '-')}" if where else \
        f"the model's own x{factor:g} RoPE scaling"
    head = f"{fmt(ctx.value)} > {fmt(trained)}: the {role.label} context length {ctx.show()} exceeds the model's " \
        f"training context (n_ctx_train, the GGUF's context_length) by {fmt(ctx.value - trained)} tokens; "
    kv = f"--override-kv <arch>.context_length=int:{ctx.value}"
    if limit >= ctx.value:
        kind = role.arg("rope_scaling")
        kind = str(kind.value).strip().lower() if kind is not None else None
        build = _build(dep)
        if build is None or not _capped(build, kind):
            return
        why = "" if build <= CAP_SEEN else f"; from b{YARN_LIFT_SEEN} only YaRN scaling lifts it"
        yield Problem(
            f"{head}{scaling} covers it, but llama-server b{build} {CAPS}{why}, so requests above {fmt(trained)} "
            f"tokens are refused. Lower it to {fmt(trained)}, or add {kv}",
            ctx.source, dep.display_name)
        return
    short = f"{scaling} stretches it only to {fmt(limit)}" if factor > 1 else "no RoPE scaling stretches it"
    yield Problem(
        f"{head}{short}, so positions past it were not trained for, and llama-server b{CAP_FROM} to at least "
        f"b{CAP_SEEN} also caps each slot at n_ctx_train. Lower it to {fmt(trained)}, or set RoPE scaling that covers "
        f"it and lift the cap on every release: --rope-scaling yarn --rope-scale F --yarn-orig-ctx {base} "
        f"(F >= {ctx.value / base:.2f}) {kv}",
        ctx.source, dep.display_name)
