"""What one GPU holds of a model's weights: the checkpoint's bytes in the weight format that applies, over
TP x PP, with draft layers added and MoE experts spread further by data or expert parallelism.

`weights_per_gpu` gives the weights as a band (physics.terms.Term) with its formula and notes. It is the
model side of a memory budget, the same whatever engine serves it, which is why it sits apart from
budget.py, which subtracts it (with the engine's own terms) from the device's memory; model_side.py asks
for it once per role and device layout.
"""
from __future__ import annotations

from ..records import replace
from .models import ModelArch
from .terms import GIB, Term
from .weights import WeightFormat, gguf_mxfp4_experts, linear_bytes, weight_bytes


def weights_per_gpu(arch: ModelArch, tp: int, pp: int, draft_layers: int = 0,
                    fmt: WeightFormat | None = None, expert_split: float = 1.0,
                    expert_how: str = "", rest_replicas: int = 1,
                    stage_sizes: tuple[int, ...] | None = None) -> tuple[Term | None, str, list[str]]:
    """Checkpoint bytes / (TP x PP) in the weight format that applies, as a band (a format whose
    bits vary, GGUF mixes, a published count rounded). The routed MoE experts are further divided
    by `expert_split` (> 1 when the engine spreads them over more GPUs than TP x PP: vLLM data
    parallelism, with or without expert parallelism); the rest stays per TP x PP, or is held
    `rest_replicas` times over (SGLang's DP attention runs attention on TP / DP ranks). `stage_sizes`: the layers of
    each PP stage as VLLM_PP_LAYER_PARTITION (SGLANG_...) states them: the largest stage's share of the layers, not 1 / PP,
    is on one GPU (the embeddings and LM head counted with the layers, as in the even split)."""
    if fmt is not None and fmt.alt:
        return _spanning(arch, tp, pp, draft_layers, fmt, expert_split, expert_how, rest_replicas, stage_sizes)
    notes: list[str] = []
    if arch.total_params_b is None:
        return None, "total params unknown", ["model parameter count unknown: weights per GPU cannot be estimated"]
    params = arch.total_params_b * 1e9
    own = arch.weight_format
    fmt = fmt or own
    b = lambda x: None if x is None else x * 1e9  # noqa: E731
    split = (b(arch.embed_params_b), b(arch.lm_head_params_b), b(arch.expert_params_b), b(arch.vision_params_b))
    if arch.checkpoint_bytes and fmt.key == own.key:  # the checkpoint's own size, as published
        total = low = high = float(arch.checkpoint_bytes)
        formula = f"checkpoint {total / GIB:.2f} GiB (its own tensors) / ({tp} x {pp})"
    elif arch.weight_bytes is not None:  # a flat bytes/param the user stated
        total = low = high = params * arch.weight_bytes
        formula = f"{arch.total_params_b:g}e9 x {arch.weight_bytes:g} B / ({tp} x {pp})"
    elif arch.expert_params_b and gguf_mxfp4_experts(fmt, own):  # a GGUF that keeps MXFP4 experts (weights.py)
        total, low, high, formula = _gguf_mxfp4(arch, params, fmt, own, tp, pp, notes)
    else:
        total = weight_bytes(params, *split, fmt)
        low = weight_bytes(params, *split, fmt, bits=fmt.low) * 0.995
        high = weight_bytes(params, *split, fmt, bits=fmt.high) * 1.02  # norms, biases, padded vocab
        formula = f"{arch.total_params_b:g}e9 params as {fmt.label} = {total / GIB:.2f} GiB / ({tp} x {pp})"
        if fmt.key not in ("bf16", "fp32"):
            kept = "MoE experts only" if fmt.scope == "experts" else "MoE experts; other linear layers FP8, " \
                "embeddings and LM head at 16 bits" if fmt.scope == "experts+fp8" else "MoE experts; other linear " \
                "layers MXFP8 (8.25 bits), embeddings and LM head at 16 bits" if fmt.scope == "experts+mxfp8" else \
                "embeddings and LM head at 16 bits" if fmt.scope == "linear" else "every tensor"
            notes.append(f"weights {fmt.label}: {fmt.bits:g} bits per quantized weight ({kept})")
    if draft_layers:
        embed = (arch.vocab_size or 0) * (arch.hidden_size or 0) * 2
        per_layer = max(0.0, params - embed) / max(1, arch.num_layers)
        per_param = arch.weight_bytes if arch.weight_bytes is not None else fmt.bits / 8
        extra = draft_layers * per_layer * per_param
        total, low, high = total + extra, low + extra, high + extra
        formula += f" + {draft_layers} draft layer(s) x {per_layer / 1e9:.3f}e9 x {per_param:g} B"
        notes.append("draft weights: one target-sized decoder layer per draft layer (estimate)")
    n: float = tp * pp
    if stage_sizes and sum(stage_sizes) > 0 and max(stage_sizes) * pp != sum(stage_sizes):
        n = tp * sum(stage_sizes) / max(stage_sizes)
        formula += f"; the largest PP stage holds {max(stage_sizes)} of {sum(stage_sizes)} layers " \
                   f"(as the PP layer partition states), so x {max(stage_sizes)}/{sum(stage_sizes)} instead of / {pp}"
    share = _expert_share(arch, params, split, fmt, own) \
        if arch.num_experts and (expert_split > 1 or rest_replicas > 1) else 0.0
    if share > 0:
        # the routed experts' share is divided expert_split times more, the rest held rest_replicas times
        keep = share / expert_split + (1 - share) * rest_replicas
        if rest_replicas > 1:  # conservative: embeddings and LM head counted with attention
            formula += f"; all but the routed experts ({1 - share:.0%} of it) x {rest_replicas} ({expert_how})"
            notes.append(f"MoE: attention, dense, shared-expert, embedding and LM-head weights held "
                         f"{rest_replicas} times over ({expert_how}); routed experts split over TP x PP")
        else:
            formula += f"; routed experts ({share:.0%} of it) / {expert_split:g} more ({expert_how})"
            notes.append(f"MoE: routed experts split over TP x PP x {expert_split:g} GPUs ({expert_how}); "
                         "attention, dense and shared-expert weights replicated per DP rank")
        return Term("weights", total * keep / n, low * keep / n, high * keep / n, formula), formula, notes
    if arch.num_experts and not split[2] and (expert_split > 1 or rest_replicas > 1):
        # The routed experts' share is unknown (a published parameter count, no count by part): what one GPU holds
        # lies between all of the weights being experts and none of them. The point stays as counted; the band
        # takes in both ends, so an unknown share never makes CTX203 or CTX209 an error on its own
        # (MiniMax-M3 NVFP4 at TP 1, DP 2 with EP was "224.22 GiB > 178.06 GiB" on one B200).
        if expert_split > 1:
            low /= expert_split
            formula += f"; routed experts' share unknown: down to 1/{expert_split:g} if all were experts ({expert_how})"
        if rest_replicas > 1:
            high *= rest_replicas
            formula += f"; routed experts' share unknown: up to x {rest_replicas} if none were ({expert_how})"
        notes.append("MoE: the routed experts' share of the weights is unknown (no count by part), so the weights "
                     f"one GPU holds are a band ({expert_how})")
        return Term("weights", total / n, low / n, high / n, formula), formula, notes
    if arch.num_experts:
        notes.append("MoE: all experts resident, split over TP x PP GPUs")
    return Term("weights", total / n, low / n, high / n, formula), formula, notes


def _spanning(arch: ModelArch, tp: int, pp: int, draft_layers: int, fmt: WeightFormat, expert_split: float,
              expert_how: str, rest_replicas: int,
              stage_sizes: tuple[int, ...] | None = None) -> tuple[Term | None, str, list[str]]:
    """The weights when the checkpoint may be in any of several formats (fmt and fmt.alt): the point is fmt's,
    the band runs from the lightest format's low end to the heaviest's high end, so a format the file leaves
    open widens the verdict's band instead of deciding it."""
    term, formula, notes = weights_per_gpu(arch, tp, pp, draft_layers, replace(fmt, alt=(), alt_why=""),
                                           expert_split, expert_how, rest_replicas, stage_sizes)
    if term is None:
        return term, formula, notes
    low, high, labels = term.low, term.high, []
    for other in fmt.alt:
        found = weights_per_gpu(arch, tp, pp, draft_layers, other, expert_split, expert_how, rest_replicas,
                                stage_sizes)[0]
        if found is not None:
            low, high = min(low, found.low), max(high, found.high)
            labels.append(f"{other.label} {found.point / GIB:.2f} GiB")
    formula += f"; as {' or '.join(labels)} a GPU if {fmt.alt_why}" if labels else ""
    notes.append(f"weights {fmt.label}, or {' or '.join(o.label for o in fmt.alt)} ({fmt.alt_why}): a band over "
                 f"{low / GIB:.2f}-{high / GIB:.2f} GiB a GPU")
    return Term("weights", term.point, low, high, formula), formula, notes


def _expert_share(arch: ModelArch, params: float, split: tuple, fmt: WeightFormat, own: WeightFormat) -> float:
    """The routed experts' fraction of the weight bytes (0 when the split is unknown)."""
    embed, lm_head, experts, vision = split
    if not experts or params <= 0:
        return 0.0
    f = own if arch.checkpoint_bytes and fmt.key == own.key else fmt
    whole = weight_bytes(params, embed, lm_head, experts, vision, f)
    return min(1.0, weight_bytes(experts, 0.0, 0.0, experts, 0.0, f) / whole) if whole > 0 else 0.0


def _gguf_mxfp4(arch: ModelArch, params: float, fmt: WeightFormat, own: WeightFormat, tp: int, pp: int,
                notes: list[str]) -> tuple[float, float, float, str]:
    """A GGUF of an MXFP4-experts checkpoint: the routed experts at the bits llama.cpp leaves them, the rest at the
    GGUF's type (weights.gguf_mxfp4_experts)."""
    point, low, high = gguf_mxfp4_experts(fmt, own)
    experts = arch.expert_params_b * 1e9
    rest = params - experts
    total = (experts * point + rest * fmt.bits) / 8
    formula = (f"{arch.expert_params_b:g}e9 expert params as MXFP4 + {rest / 1e9:g}e9 as {fmt.label} = "
               f"{total / GIB:.2f} GiB / ({tp} x {pp})")
    kept = "llama.cpp's converter keeps them" if low == high else \
        f"as llama.cpp's converter keeps them; up to {high:g} bits if llama-quantize requantized them"
    notes.append(f"weights {fmt.label}: MoE experts MXFP4, 4.25 bits ({kept}); the rest {fmt.bits:g} bits")
    return total, (experts * low + rest * fmt.low) / 8 * 0.995, (experts * high + rest * fmt.high) / 8 * 1.02, formula


def whole_on_each_rank(engine: str, arch: ModelArch, tp: int, pp: int, fmt: WeightFormat, weights: Term | None,
                       formula: str, notes: list[str],
                       stage_sizes: tuple[int, ...] | None = None) -> tuple[Term | None, str]:
    """DeepSeek-V4 on vLLM: the parameters vLLM does not split over TP (arch.tp_whole_params: the fused
    wq_a/wkv and the indexer's wq_b in the checkpoint's format, the compressors' projections and the indexer's
    weights_proj at 16 bits, the compressors' ape and the hyper-connections in fp32) are held whole by every rank
    of a PP stage, where weights_per_gpu divided them over TP x PP at the format's bytes. The difference is added
    to each end of the band: 1.03 GiB a GPU for V4-Flash at TP 8, 2.73 GiB for V4-Pro. A PP stage holds its
    layers' share: 1 / PP, or the largest stage's share where the PP layer partition states uneven stages (as
    weights_per_gpu counts them). Where the checkpoint may be in other formats too (fmt.alt), the low end adds
    the least any of them holds more, the high end the most: a format left open widens the band (as
    weights_per_gpu's does), never making CTX203 an error on its own."""
    whole = arch.tp_whole_params
    if engine != "vllm" or weights is None or not whole or len(whole) != 3:
        return weights, formula
    linear, half, single = whole
    stage = 1 / pp
    if stage_sizes and sum(stage_sizes) > 0 and max(stage_sizes) * pp != sum(stage_sizes):
        stage = max(stage_sizes) / sum(stage_sizes)

    def more(f: WeightFormat) -> float:
        rest = linear_bytes(f)
        return (linear * rest + half * 2 + single * 4) * stage - (linear + half + single) * rest * stage / tp

    extra = max(0.0, more(fmt))
    ends = [extra] + [max(0.0, more(other)) for other in fmt.alt]
    low, high = min(ends), max(ends)
    if high <= 0:
        return weights, formula
    formula += f" + {extra / GIB:.2f} GiB vLLM keeps whole on each TP rank (fused wq_a/wkv, compressors, indexer)"
    notes.append(f"DeepSeek-V4 on vLLM: {(linear + half + single) / 1e9:.2f}e9 parameters (fused wq_a/wkv, "
                 f"compressors, indexer projections, hyper-connections) are not split over TP: "
                 f"{extra / GIB:.2f} GiB more a GPU")
    return Term(weights.label, weights.point + extra, weights.low + low, weights.high + high, formula,
                weights.source), formula
