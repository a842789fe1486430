"""DeepSeek-V4's KV pools on SGLang, for the releases and nightly builds whose sizing code was read.

SGLang keeps no cache of a V4 token's full context: every layer a window pool of swa_full_tokens_ratio x the
"full" tokens, the ratio-4 layers a compressed entry and an indexer key per 4 of them, the ratio-128 layers one
per 128, and each compressor a ring of fp32 states per window page. DSV4PoolConfigurator prices all of them per
full token and divides the profiled KV memory by that, so max_total_num_tokens (the full pool, what a request's
length is held to) is int(available / bytes_per_full_token) rounded down to the 256-token page:

  bytes_per_full_token = ratio x 584 x L + 584/4 x L4 + 584/128 x L128 + 132/4 x L4
                         + ratio x ring4/128 x (2 x 2 x 512 x 4 + 2 x 2 x 128 x 4) x L4
                         + ratio x ring128/128 x 2 x 512 x 4 x L128

584 B a token (448 fp8 NoPE + 64 bf16 RoPE + scales), 132 B an indexer key (128 + a 4-byte scale per 128), rings
of 8 and 128 states (16 and 256 under speculative decoding), the window page 128 (the config's sliding_window);
with an EAGLE draft the whole is x (L + 1) / L. SGLANG_OPT_USE_ONLINE_COMPRESS keeps one (max, sum, kv) state of
3 x 512 fp32 per c128 ring instead (ring 1), and these releases refuse it beside a draft. L counts every entry of
the config's compress_ratios up to a8c82c652eb936a056fbfe03e0b7b219fb183cb6 (2026-05-20), the MTP layer's extra
entry too (SGLang's own nextn layer is ratio 0, COMPRESS_RATIO_NEXTN_LAYER), and from it the model's layers only
(this PP stage's slice).
Sources: sgl-project/sglang@35870d55aca7c6912aa4c785f583da4acac04938 (#23882, DeepSeek V4; v0.5.12, v0.5.12.post1 and
the nightly 425dffbde33954bcdd3a4c82dddbf1e4571ca66e alike), @14f81a67d94c47c731c7dc818e76816f1f356f16 (v0.5.13,
v0.5.13.post1 and v0.5.14 alike, their CUDA defaults): python/sglang/srt/model_executor/pool_configurator.py
(DSV4PoolConfigurator, _get_bytes_per_full_token, _compute_dsv4_sizes, calculate_pool_sizes),
mem_cache/deepseek_v4_memory_pool.py (get_compress_state_ring_size), configs/model_config.py (qk_nope_head_dim =
head_dim - qk_rope_head_dim, window_size = sliding_window), arg_groups/deepseek_v4_hook.py (page_size 256,
kv_cache_dtype fp8_e4m3, swa_full_tokens_ratio 0.1 when left at its default), model_runner_kv_cache_mixin.py
(_profile_available_bytes: the profile every SGLang model gets); read in the history of the bytedance-iaas/sglang fork,
which carries upstream's commits. From 56f22cd520cbdf58cb89c688d7847c1186df6bc3 (2026-06-30, v0.5.15) the c128 states
are a fixed per-request term sized by max_running_requests: not read here, so a later release stays unknown.

Checked against a log of V4-Flash, ratio 0.1, no draft, 2026-05-15: "bytes_per_full_token=15955.85" (this model
gives 15,955.85 with the 44 entries; tests/physics/test_dsv4_sglang.py).
"""
from __future__ import annotations

from typing import Any, Mapping

from .kv import KVBreakdown
from .models import ModelArch

# The releases read, and whether each counts the config's extra MTP entry (before a8c82c652, PP-aware slicing)
RELEASES = {"0.5.12": True, "0.5.12.post1": True, "0.5.13": False, "0.5.13.post1": False, "0.5.14": False}
# lmsysorg/sglang nightly-dev images, by the commit their tag names, read likewise
BUILDS = {"425dffbd": True, "14f81a67": False}
PAGE = 256  # apply_deepseek_v4_defaults sets page_size 256 whatever is asked
DEFAULT_RATIO = 0.1  # ... and swa_full_tokens_ratio 0.1 where it is left at SGLang's 0.8
TOKEN_BYTES = 584
_ONLINE, _STATE_DTYPE = "SGLANG_OPT_USE_ONLINE_COMPRESS", "SGLANG_DSV4_COMPRESS_STATE_DTYPE"
# prefill context parallelism's switches, by release (engines/flags_sglang.py)
_CP = ("enable_nsa_prefill_context_parallel", "enable_dsa_prefill_context_parallel", "enable_prefill_context_parallel",
       "enable_prefill_cp")


BUILD = "build:"  # how model_side's release argument carries a nightly build (capacity._device_free)


def counts_mtp_entry(version: str | None, build: str | None) -> bool | None:
    """Whether the release (or nightly build) counts the MTP layer's compress_ratios entry; None: not read."""
    if version:
        return RELEASES.get(version)
    return BUILDS.get((build or "")[:8]) if build else None


def _int(raw: Any) -> int:
    try:
        return int(raw)
    except (TypeError, ValueError):
        return 1


def _flag(raw: Any) -> bool | None:
    """An EnvBool's value (sglang@14f81a67:python/sglang/srt/environ.py EnvBool.parse: true/1/yes/y, false/0/no/n;
    unset false), None for a value SGLang refuses. (A ROCm build ignores it: ONLINE_C128 needs CUDA.)"""
    if isinstance(raw, bool):
        return raw
    text = str(raw).lower() if raw is not None else ""
    if text in ("", "false", "0", "no", "n"):
        return False
    return True if text in ("true", "1", "yes", "y") else None


def ratio_of(settings: Mapping[str, Any]) -> float | None:
    """--swa-full-tokens-ratio as the V4 hook leaves it: a value equal to SGLang's default 0.8, stated or not,
    becomes 0.1 (`== ServerArgs.swa_full_tokens_ratio`); None for one that is no ratio."""
    raw = settings.get("swa_full_tokens_ratio")
    try:
        ratio = DEFAULT_RATIO if raw in (None, "") else float(raw)
    except (TypeError, ValueError):
        return None
    if ratio == 0.8:
        return DEFAULT_RATIO
    return ratio if 0 < ratio <= 1 else None


def bytes_per_full_token(ratios: tuple[int, ...], ratio: float, spec: bool, online: bool = False,
                         index_dim: int = 128, head_dim: int = 512) -> float:
    """DSV4PoolConfigurator._get_bytes_per_full_token for these layers' compress ratios (fp32 states). `online`:
    SGLANG_OPT_USE_ONLINE_COMPRESS, whose c128 compressor keeps one (max, sum, kv) state, 3 x head_dim, a ring of 1."""
    layers, c4, c128 = len(ratios), ratios.count(4), ratios.count(128)
    ring4, ring128 = (16, 256) if spec else (8, 128)
    index_bytes = index_dim + index_dim // 128 * 4
    c128_state = (1 / 128) * 3 * head_dim * 4 if online else ring128 / 128 * 2 * head_dim * 4
    cost = ratio * TOKEN_BYTES * layers + TOKEN_BYTES / 4 * c4 + TOKEN_BYTES / 128 * c128 + index_bytes / 4 * c4 \
        + ratio * ring4 / 128 * (2 * 2 * head_dim * 4 + 2 * 2 * index_dim * 4) * c4 + ratio * c128_state * c128
    return cost * (layers + 1) / layers if spec else cost


def sglang_breakdown(arch: ModelArch, release: str | None, settings: Mapping[str, Any], kv_cache_dtype: Any,
                     draft: int, pp: int, dcp: int = 1) -> KVBreakdown:
    """V4 on SGLang as one KVBreakdown whose bytes per token are SGLang's bytes_per_full_token (the pool is
    then SGLang's full pool, max_total_num_tokens). `release`: the version, or BUILD + a nightly build's commit.
    ValueError with the reason where it is not read."""
    build = release[len(BUILD):] if release and release.startswith(BUILD) else None
    version = None if build else release
    mtp = counts_mtp_entry(version, build)
    name = str(kv_cache_dtype or "auto").strip().lower()
    ratio = ratio_of(settings)
    online = _flag(settings.get(_ONLINE))
    spec = draft > 0 or bool(settings.get("speculative_algorithm"))
    why = ""
    if mtp is None:
        what = f"SGLang {version}: its DeepSeek-V4 pool sizing was not read" if version else \
            f"the nightly build {build}: its DeepSeek-V4 pool sizing was not read" if build else \
            "the SGLang release is not named (an image tag or version would name it), and DeepSeek-V4's pool sizing " \
            "differs by release"
        why = f"{what} (read: {', '.join(RELEASES)}, and the nightly builds {', '.join(BUILDS)}; from 0.5.15 the " \
              "c128 states are sized by max_running_requests)"
    elif name not in ("auto", "fp8_e4m3"):
        why = f"SGLang asserts --kv-cache-dtype fp8_e4m3 for DeepSeek-V4 in these releases, not {name}"
    elif pp > 1:
        why = "DeepSeek-V4's pools over pipeline stages were not read"
    elif settings.get("enable_hisparse"):
        why = "HiSparse shrinks the ratio-4 pool by its host-to-device ratio, not modelled"
    elif online is None:
        why = f"SGLANG_OPT_USE_ONLINE_COMPRESS={settings.get(_ONLINE)!r} is not a boolean SGLang reads"
    elif online and spec:
        why = "these releases assert that the online c128 compressor (SGLANG_OPT_USE_ONLINE_COMPRESS) runs without " \
              "speculative decoding"
    elif str(settings.get(_STATE_DTYPE) or "float32").strip().lower() not in ("float32", "fp32"):
        why = "16-bit compressor states (SGLANG_DSV4_COMPRESS_STATE_DTYPE, from 0.5.14) are not modelled"
    elif any(settings.get(k) for k in _CP) or _int(settings.get("attn_cp_size")) > 1 or dcp > 1:
        why = "DeepSeek-V4's pools under context parallelism were not read"
    elif ratio is None:
        why = f"--swa-full-tokens-ratio {settings.get('swa_full_tokens_ratio')!r} is not a ratio in (0, 1]"
    elif arch.head_dim != 512 or (arch.qk_rope_head_dim or 64) != 64 or arch.sliding_window != 128:
        why = "a DeepSeek-V4 shape other than head_dim 512 with 64 of RoPE and a 128-token window"
    if why:
        raise ValueError(f"{arch.name}: DeepSeek-V4's compressed attention is sized on SGLang as the releases read "
                         f"size it; here {why}; state the pool the engine logs (kv_pool_tokens, or the "
                         "ctxlint.io/kv-pool-tokens annotation on a workload)")
    ratios = tuple(arch.compress_ratios) + ((0,) if mtp else ())
    bpft = bytes_per_full_token(ratios, ratio, spec, bool(online), arch.index_head_dim or 128)
    n = len(ratios)
    which = f"SGLang {version}" if version else f"the SGLang nightly build {build}"
    layers = f"{n} compress_ratios entries (the MTP layer's counted)" if mtp else f"its {n} layers"
    notes = (f"DeepSeek-V4 on {which}: bytes_per_full_token {bpft:,.2f} over {layers}, "
             f"swa_full_tokens_ratio {ratio:g}{', speculative rings and x (L + 1) / L' if spec else ''}"
             f"{', the online c128 compressor' if online else ''}; the pool "
             f"is the full pool (max_total_num_tokens) in {PAGE}-token pages; the window pool holds {ratio:g} of "
             "it (DSV4PoolConfigurator)",)
    return KVBreakdown(engine="sglang", dtype_bytes=1, heads_per_gpu=1, per_layer_bytes=bpft / n,
                       full_layers_per_gpu=n, sliding_layers_per_gpu=0, linear_layers_per_gpu=0, draft_layers=draft,
                       per_token_layers=n, bytes_per_token=bpft, bounded_bytes_per_request=0.0, bounded_span=None,
                       state_bytes_per_request=None, formula=f"{bpft:,.2f} (DeepSeek-V4 bytes_per_full_token)",
                       notes=notes, full_layer_bytes=bpft / n)
