"""vLLM's KV budget per GPU, per version (engines.md §1.3; research verified in vLLM's release
trees, tags cited as vllm-project/vllm@vX:path).

    available = total x gpu_memory_utilization - weights - activation peak - non-torch
                [- CUDA graphs, >= 0.20]

- V1 is the default from 0.8.0 (`VLLM_USE_V1`), V0 is gone from 0.11.0.
- `gpu_memory_utilization` defaults to 0.90, and to 0.92 from 0.20.0 (@v0.20.0:vllm/config/cache.py).
- The profile run is `max_num_batched_tokens` tokens over up to `max_num_seqs` requests; the
  OpenAI server's defaults (`get_batch_defaults`): 8192 tokens and 1024 sequences on devices
  with >= 70 GiB, A100 excluded from 0.9.0 (PR #17885), 16384 on >= 160 GiB from 0.28.0,
  else 2048 and 256, and on GB10 (DGX Spark) in every release (vllm_batch.py).
  V0 without chunked prefill profiles max(max_model_len, 2048) tokens.
- CUDA-graph memory is estimated and subtracted before KV sizing by default from 0.20.0
  (opt-in in 0.18-0.19 with VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=1).
- From 0.34.0 the extensible KV cache (CUDA and ROCm, on by default) sizes the cache after warmup and
  capture: utilization 1.0 unless given, less the CUDA context and a sizing margin (vllm_extensible.py).
- A model with a vision tower also runs its encoder on the largest dummy image in V1's profile (vllm_mm.py).
- Non-torch memory (NCCL, cuBLAS workspaces) logs 0.13-0.25 GiB on one GPU, ~0.55 GiB at TP 2;
  V1 0.7.0-0.9.0 also counted the CUDA context (0.25-0.6 GiB) as non-torch.
An unknown version is estimated under each release whose rules differ (releases.py); called
directly with version None, each rule here takes its most conservative known value.
"""
from __future__ import annotations

from typing import Any, List, Mapping, Optional

from ctxlint.versions import parse_version

from .activation import profile_peak
from .mem_vllm_v0 import (  # noqa: F401  (split out; read here as before)
    _OLD_MULTI_GPU, OLD_MULTI_GPU, OLD_MULTI_GPU_SCALE, _at_least, _between, _v, old_multi_gpu, v0_peak, v0_tokens)
from .models import ModelArch
from .served import positive_int
from .terms import GIB, Term
from .vllm_batch import (  # noqa: F401  (split out; read here as before)
    _BATCHES, BIG_TIER, BIG_TIER_BYTES, LARGE_BATCH_BYTES, _batch_defaults, batch_defaults, memory_tiers)

V0_END, V1_DEFAULT, UTIL_092, CG_DEFAULT = "0.11.0", "0.8.0", "0.20.0", "0.20.0"


def _parsed(*texts: str) -> tuple:
    return tuple(parse_version(text) for text in texts)


# The release boundaries, parsed once: an estimate compares its release with them ~15 times, and
# the CTX208 search makes thousands of estimates (parse_version's cache still costs a call each).
_V0_END, _V1_DEFAULT, _UTIL_092, _CG_DEFAULT = _parsed(V0_END, V1_DEFAULT, UTIL_092, CG_DEFAULT)
(_V0_7_0, _V0_7_3, _V0_9_1, _V0_11_0, _V0_12_0, _V0_17_0, _V0_18_0, _V0_34_0) = _parsed(
    "0.7.0", "0.7.3", "0.9.1", "0.11.0", "0.12.0", "0.17.0", "0.18.0", "0.34.0")



def is_v0(version: Optional[str], settings: Mapping[str, Any]) -> bool:
    v = _v(version)
    env = str(settings.get("VLLM_USE_V1", "")).strip()
    if v is not None and v >= _V0_END:
        return False
    if env == "0":
        return True
    return v is not None and v < _V1_DEFAULT


def _sampler(version: Optional[str]) -> tuple:
    """(all-token logits?, sampler bytes per vocabulary entry per sequence) of the V1 profile run.
    V1 0.7.0-0.7.2 compute every token's logits (code); 0.12-0.16 boot logs show a sampler peak
    of ~38 B per entry (0.10.1 and 0.11.0 logs, and 0.17 onward, ~8 B); unknown: the heavier.
    38: the H100 logs of 1,024 sequences give 37.6-38.9 B per entry with an 8,192-token batch
    (llm-d-benchmark), and vllm#27508's gpt-oss-120b 38.7 with a 1,024-token batch, where the
    forward buffers are small: the sampler, not the batch, makes the peak."""
    v = _v(version)
    if v is None:
        return False, 38
    if _between(v, _V0_7_0, _V0_7_3):
        return True, 8
    return False, 38 if _between(v, _V0_12_0, _V0_17_0) else 8


# `--kv-cache-memory-bytes` (CacheConfig.kv_cache_memory_bytes: "Size of KV Cache per GPU in bytes ... (when
# not-None) ignores gpu_memory_utilization", vllm-project/vllm@c1d86421174a87056edc90a41dc9942391509e84:
# vllm/config/cache.py): the worker returns it as the KV budget and skips the memory profile
# (Worker.determine_available_memory, vllm-project/vllm@94e6b2d55f7fd539f01591c7521ec104b25f4e68:
# vllm/v1/worker/gpu_worker.py, PR #21489, merged 2025-09-11 after v0.10.2 branched: first in v0.11.0).
# An earlier release has no such flag: its parser refuses it, so the budget never reads it there.
KV_BYTES_SINCE = "0.11.0"
_KV_BYTES_SINCE = parse_version(KV_BYTES_SINCE)


def explicit_kv_bytes(version: Optional[str], settings: Mapping[str, Any]) -> Optional[float]:
    """The KV budget per GPU `kv_cache_memory_bytes` fixes (any device), or None: unset, not a positive
    number, or a release without the flag. An unknown release that is given the flag runs one that has it."""
    raw = settings.get("kv_cache_memory_bytes")
    if raw is None or isinstance(raw, bool):
        return None
    try:
        kv = float(raw)
    except (TypeError, ValueError):
        return None
    if not kv > 0 or kv == float("inf"):
        return None
    v = _v(version)
    return None if v is not None and v < _KV_BYTES_SINCE else kv


def terms(arch: ModelArch, total: float, device: str, tp: int, pp: int, settings: Mapping[str, Any],
          version: Optional[str], context: Optional[int], lean: bool = False, cache: Optional[dict] = None) -> tuple:
    """(base Term, [subtracted Terms], rule text) for the estimate; `lean`: the base's formula and the
    rule left unwritten ("": the CTX208 search reads only the figures). `cache`: a dict the caller
    passes with every call whose arguments differ only in total, device and version (one role's
    estimates on many devices): the device-free part (_Fixed) is then worked out once per version."""
    fixed = fixed_terms(arch, tp, pp, settings, version, context, cache)
    util, extensible = fixed.util, fixed.extensible
    if extensible is not None and not extensible_on(device):
        util, extensible = fixed.util_off, None  # not CUDA or ROCm: sized from the estimate (vllm_extensible.py)
    base = Term.exact("instance memory", total * util, "" if lean else (
        f"{total / GIB:.2f} GiB x gpu_memory_utilization {util:g}"
        + ("" if "gpu_memory_utilization" in settings else
           " (default with the extensible KV cache)" if extensible == "on" else " (default)")))
    if fixed.v0:
        peak = fixed.v0_peak
        rule = "" if lean else f"vLLM {version} V0: profile of {fixed.v0_tokens} tokens"
    else:
        # the one rule that reads the device: the profile run's batch (its size and name)
        pick = batch_pick(fixed, total, device, version)
        peak = v1_peak(arch, tp, fixed, pick, cache)
        rule = "" if lean else f"vLLM {version or '(version unknown: most conservative V1 rules)'} V1: profile " \
                               f"of {pick[0]} tokens x {pick[1]} sequences"
    if extensible is not None:
        margin = extensible_margin(fixed, total, device, peak, lean)
        return base, [peak, *fixed.tail, margin], rule if lean else f"{rule}; KV cache sized after warmup " \
            "and CUDA-graph capture (extensible KV cache" + (", if the KV connector allows it)" if extensible
                                                             == "maybe" else ")")
    return base, [peak, *fixed.tail], rule


def extensible_on(device: str) -> bool:
    """Does the device's platform run vLLM's extensible KV cache (CUDA or ROCm)? Asked only of >= 0.34.0."""
    from .vllm_extensible import on_device  # only releases that have it import it

    return on_device(device)


def extensible_margin(fixed: "_Fixed", total: float, device: str, peak: Term, lean: bool = False) -> Term:
    """The extensible sizing's CUDA context and margin (vllm_extensible.margin_term) on this device."""
    from .vllm_extensible import margin_term

    return margin_term(total, device, fixed.util_on, fixed.util, peak, fixed.extensible, lean)


def fixed_terms(arch: ModelArch, tp: int, pp: int, settings: Mapping[str, Any], version: Optional[str],
                context: Optional[int], cache: Optional[dict]) -> "_Fixed":
    """terms()'s device-free part (_Fixed), kept in `cache` per version (see terms)."""
    fixed = cache.get(("vllm terms", version)) if cache is not None else None
    if fixed is None:
        fixed = _Fixed(arch, tp, pp, settings, version, context)
        if cache is not None:
            cache["vllm terms", version] = fixed
    return fixed


def batch_pick(fixed: "_Fixed", total: float, device: str, version: Optional[str]) -> tuple:
    """The V1 profile run's (tokens, sequences): the settings given, else the device's defaults."""
    default = batch_defaults(total, device, version, False, fixed.llm_class)[0]
    return fixed.mnbt or default[0], fixed.seqs or default[1]


def v1_peak(arch: ModelArch, tp: int, fixed: "_Fixed", pick: tuple, cache: Optional[dict]) -> Term:
    """The V1 profile peak of batch `pick`, kept in the role's cache by batch and sampler rule: releases
    with the same rule profile alike."""
    shared_peak = ("vllm peak", pick, fixed.every, fixed.entry, fixed.mm is not None and fixed.mm.version)
    peak = cache.get(shared_peak) if cache is not None else None
    if peak is None:
        peak = profile_peak(arch, pick[0], pick[1], tp, fixed.every, fixed.entry)
        if fixed.mm is not None:  # a vision tower: the encoder's profile run too (vllm_mm.py)
            text = arch.hidden_size or arch.num_attention_heads * arch.head_dim
            peak = fixed.mm.peak(peak, pick[0], pick[1], tp, arch.dtype_bytes, text)
        if cache is not None:
            cache[shared_peak] = peak
    return peak


class _Fixed:
    """What terms() works out from the model, layout, settings, release and context alone: the
    utilization, V0 or V1 (and V0's peak), the batch settings given, the sampler, the non-torch and
    CUDA-graph terms (the V1 peaks, one per batch a role's devices pick, are kept in terms()'s cache)."""
    __slots__ = ("util", "v0", "v0_tokens", "v0_peak", "mnbt", "seqs", "every", "entry", "tail", "extensible",
                 "util_on", "util_off", "mm", "llm_class")

    def __init__(self, arch: ModelArch, tp: int, pp: int, settings: Mapping[str, Any], version: Optional[str],
                 context: Optional[int]) -> None:
        v = _v(version)
        self.v0 = v0 = is_v0(version, settings)
        util = settings.get("gpu_memory_utilization")
        given = isinstance(util, (int, float)) and not isinstance(util, bool)
        if not given:
            util = 0.92 if _at_least(v, _UTIL_092) else 0.90  # unknown version: the older, smaller default
        self.util = self.util_off = self.util_on = float(util)
        # vLLM >= 0.34.0 sizes the cache from measured memory, its utilization 1.0 unless given (vllm_extensible)
        self.extensible = None
        if _at_least(v, _V0_34_0) and not v0:
            from .vllm_extensible import OFF, ON, mode
            found = mode(version, settings)
            if found != OFF:
                self.extensible = found
                self.util_on = self.util_on if given else 1.0
                self.util = self.util_on if found == ON else self.util_off
        # the offline LLM class (TRL's vllm-serve: flags_trl) has batch defaults of its own (vllm_batch._LLM_CLASS)
        self.llm_class = settings.get("usage_context") == "llm_class"
        mnbt, seqs = settings.get("max_num_batched_tokens"), settings.get("max_num_seqs")
        # given as positive whole numbers, they override the batch defaults (None: the device's default)
        self.mnbt = int(mnbt) if isinstance(mnbt, int) and mnbt > 0 else None
        self.seqs = int(seqs) if isinstance(seqs, int) and seqs > 0 else None
        self.v0_tokens, self.v0_peak = None, None
        if v0:
            self.v0_tokens = self.mnbt if self.mnbt is not None else v0_tokens(settings, context, version)
            self.v0_peak = v0_peak(arch, self.v0_tokens, tp, version)
        self.every, self.entry = _sampler(version)
        self.mm = None  # V1's multimodal profile (vllm_mm.py), read only for a model with a vision tower
        if not v0 and getattr(arch, "vision_dims", None):
            from .vllm_mm import profile
            self.mm = profile(arch, settings, version, context)
        self.tail = _tail(v, v0, tp, pp, settings, self.extensible == "on")


def _tail(v, v0: bool, tp: int, pp: int, settings: Mapping[str, Any], measured: bool = False) -> tuple:
    """The terms after the peak: non-torch memory, and the CUDA-graph estimate where it applies."""
    out: List[Term] = []
    # data-parallel ranks talk too (expert all-to-all, DP sync): the several-GPU buffers apply
    multi = tp * pp > 1 or positive_int(settings.get("data_parallel_size"), 1) > 1
    # Logged: 0.13-0.35 GiB on one GPU; 0.54-0.55 GiB at TP 2 on one node, ~1.1 GiB across two nodes (Ray),
    # ~2.1 GiB at TP 2-4 in the llm-d planner's table.
    nodes = settings.get("nnodes") if isinstance(settings.get("nnodes"), int) else 1
    across = multi and (str(settings.get("distributed_executor_backend", "")).lower() == "ray" or nodes > 1)
    if across:  # NCCL over the network keeps larger buffers (~1.1 GiB more in the two-node Ray log)
        nt = Term("non-torch", 1.5 * GIB, 1.1 * GIB, 2.5 * GIB, "NCCL across nodes and workspaces")
    elif multi:
        nt = Term("non-torch", 1.0 * GIB, 0.5 * GIB, 2.2 * GIB, "NCCL and workspaces, several GPUs")
    else:
        nt = Term("non-torch", 0.25 * GIB, 0.13 * GIB, 0.6 * GIB, "cuBLAS/attention workspaces, one GPU")
    if not v0 and (_between(v, _V0_7_0, _V0_9_1) or v is None):
        # These versions counted the CUDA context as non-torch (total - free - torch allocated); its size
        # depends on the device, driver and lazy module loading: 0.25-0.6 GiB.
        nt = Term(nt.label, nt.point + 0.45 * GIB, nt.low + 0.25 * GIB, nt.high + 0.6 * GIB,
                  nt.how + " + CUDA context (V1 0.7-0.9.0)")
    out.append(nt)
    eager = settings.get("enforce_eager") is True
    cg_env = str(settings.get("VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS", "")).strip()
    if not eager and not v0:
        subtract_graphs = v is None and cg_env != "0" or _at_least(v, _CG_DEFAULT) and cg_env != "0" or (
            _between(v, _V0_18_0, _CG_DEFAULT) and cg_env == "1")
        if measured:  # the extensible KV cache measures the capture, whatever the estimate's env says
            out.append(Term("CUDA graphs", 0.7 * GIB, 0.3 * GIB, 2.0 * GIB, "measured after capture (>= 0.34)"))
        elif subtract_graphs:
            out.append(Term("CUDA graphs", 0.7 * GIB, 0.3 * GIB, 2.0 * GIB, "estimated before KV sizing (>= 0.20)"
                            + (" (version unknown: counted)" if v is None else "")))
    return tuple(out)


def hybrid_full(version: Optional[str], settings: Mapping[str, Any]) -> bool:
    """Do sliding-window layers store the full context? True before the hybrid KV cache manager
    (<= 0.9.0), with it disabled, or with a KV connector in 0.9.1-0.10 (PD disaggregation), and
    when the version is unknown (the most conservative layout). Llama 4's chunked layers: vllm_chunked.py."""
    if settings.get("disable_hybrid_kv_cache_manager") is True:
        return True
    v = _v(version)
    if v is None:
        return True
    if v < _V0_9_1:
        return True
    return v < _V0_11_0 and bool(settings.get("kv_transfer_config"))
