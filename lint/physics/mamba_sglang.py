"""SGLang's pool of linear-attention / Mamba states, and what it takes from the KV budget.

SGLang keeps a hybrid model's fixed per-request states (gated delta net: Qwen3-Next, Qwen3.5; Mamba2:
Nemotron-H, Falcon-H1) in a pool of their own (MambaPool / HybridReqToTokenPool), sized before the token
pool: `profile_max_num_token` takes the memory left under mem_fraction_static, `handle_max_mamba_cache`
takes the state pool out of it, and the rest is divided by the bytes one token costs in the full-attention
layers only (num_layers = len(full_attention_layer_ids)). How many requests' states the pool holds:

- 0.5.2-0.5.3 (Qwen3-Next only; radix cache forced off): --max-mamba-cache-size, else
  --max-running-requests, else 512 (sgl-project/sglang@v0.5.2:python/sglang/srt/model_executor/model_runner.py
  ModelRunner.__init__, profile_max_num_token);
- 0.5.4-0.5.8: the same with the radix cache off (Mamba2 models force it off in 0.5.4-0.5.6, ModelRunner
  "model detected, disable radix cache"); with it on, the state memory is rest x r / (1 + r), r =
  --mamba-full-memory-ratio (0.9), an explicit --max-mamba-cache-size overridden up to 0.5.6 (handle_max_mamba_cache,
  sgl-project/sglang@v0.5.4:python/sglang/srt/model_executor/model_runner.py) and kept from 0.5.7
  (`if server_args.disable_radix_cache or server_args.max_mamba_cache_size is not None`,
  sgl-project/sglang@v0.5.7:python/sglang/srt/model_executor/model_runner_kv_cache_mixin.py);
- 0.5.9-0.5.16: --max-mamba-cache-size if set, else --max-running-requests with the radix cache off, else
  the ratio, radix cache on or off (sgl-project/sglang@v0.5.9:python/sglang/srt/model_executor/
  model_runner_kv_cache_mixin.py; @v0.5.16:python/sglang/srt/mem_cache/kv_cache_configurator.py);
- from 0.5.17 the ratio's count leaves the pool's padding slot: (budget - per request) // per request
  (sgl-project/sglang@v0.5.17:python/sglang/srt/mem_cache/kv_cache_configurator.py _handle_max_mamba_cache;
  @v0.5.23 alike).
Counts set by the user are divided by the DP size under --enable-dp-attention. The conv state is bfloat16
(CONV_DTYPE, SGLANG_MAMBA_CONV_DTYPE from 0.5.9), the temporal state --mamba-ssm-dtype: float32 by default
up to 0.5.8, from 0.5.9 the config's mamba_ssm_dtype, else float32 (configs/mamba_utils.py
mamba2_state_dtype); shapes as vLLM's (Mamba2StateShape.create, extra_groups_for_head_shards; mamba.py).
max_running_requests is then capped at the pool // 3 with the radix cache on (MAMBA_CACHE_SIZE_MAX_RUNNING_
REQUESTS_RATIO), // 1 with it off. A release that is not known spans the rules that differ: the point and the
low end take the larger state pool, the high end the smaller.
"""
from __future__ import annotations

from typing import Any, Mapping

from ctxlint.versions import parse_version

from ..records import record
from .mamba import _STATE_DTYPES, state_bytes
from .models import LINEAR, sglang_state
from .reserve_sglang import dp_attention_width
from .served import kv_tensor_parallel
from .terms import GIB

_V0_5_4, _V0_5_7, _V0_5_9, _V0_5_17 = (parse_version(v) for v in ("0.5.4", "0.5.7", "0.5.9", "0.5.17"))
DEFAULT_RATIO = 0.9  # --mamba-full-memory-ratio (ServerArgs, 0.5.4 on)
DEFAULT_SLOTS = 512  # max_mamba_cache_size without a setting, radix cache off, up to 0.5.8
RUNNING_RATIO = 3    # MAMBA_CACHE_SIZE_MAX_RUNNING_REQUESTS_RATIO


@record(frozen=True)
class StatePool:
    per_request: int          # bytes of state one request holds on one GPU (every linear/Mamba layer)
    point: float              # bytes the state pool takes at the budget's point, its low and its high end
    low: float
    high: float
    requests: int             # states the pool holds at the point
    note: str
    how: str


def _int(settings: Mapping[str, Any], key: str) -> int | None:
    v = settings.get(key)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or v <= 0:
        return None
    return int(v)


def per_request(arch, tp: int, settings: Mapping[str, Any], version: str | None) -> tuple[int, str] | None:
    """(bytes, the temporal state's dtype) of one request's states on one GPU, None when not sizable."""
    dims = getattr(arch, "linear_state", None)
    layers = arch.layer_kinds.count(LINEAR) if arch.layer_kinds else 0
    if not dims or not layers or not sglang_state(arch):  # LFM2's short convolution: its SGLang pool is not read
        return None
    v = parse_version(version) if version else None
    # The environment is read from 0.5.9 (sglang==0.5.9:sglang/srt/environ.py:439-440, configs/mamba_utils.py:68,
    # 95); up to 0.5.8 --mamba-ssm-dtype (float32 by default) overwrote SGLANG_MAMBA_SSM_DTYPE
    # (sglang==0.5.8:sglang/srt/server_args.py:2391) and the conv state was bfloat16 (configs/mamba_utils.py:44)
    env = v is None or v >= _V0_5_9
    ssm = str(settings.get("mamba_ssm_dtype") or (settings.get("SGLANG_MAMBA_SSM_DTYPE") if env else "") or "").lower()
    if ssm not in _STATE_DTYPES:
        ssm = (arch.linear_ssm_dtype or "float32") if env else "float32"
    conv = str((settings.get("SGLANG_MAMBA_CONV_DTYPE") if env else "") or "bfloat16").lower()
    one = state_bytes(tuple(dims), max(1, tp), _STATE_DTYPES.get(conv, 2), _STATE_DTYPES.get(ssm, 4))
    # every state layer of the model, PP or not: mamba_cache_per_req counts them all (mamba2_cache_params.layers)
    return (one * layers, ssm) if one else None


def _radix_off(v, settings: Mapping[str, Any], gdn: bool) -> bool:
    """The radix cache is off: by the user, before 0.5.4 (forced for Qwen3-Next), for Mamba2 models in 0.5.4-0.5.6."""
    return settings.get("disable_radix_cache") is True or (v is not None and (
        v < _V0_5_4 or (not gdn and v < _V0_5_7)))


def _rules(v, settings: Mapping[str, Any], gdn: bool) -> list[str]:
    """The rules ("fixed" or "ratio") the release applies; both for an unknown release (their results differ)."""
    if v is None:
        return ["fixed", "ratio"]
    radix_off = _radix_off(v, settings, gdn)
    if v < _V0_5_7:
        return ["fixed"] if radix_off else ["ratio"]
    if v < _V0_5_9:  # 0.5.7-0.5.8: `disable_radix_cache or max_mamba_cache_size is not None` (handle_max_mamba_cache)
        return ["fixed"] if radix_off or _int(settings, "max_mamba_cache_size") else ["ratio"]
    if _int(settings, "max_mamba_cache_size") or (radix_off and _int(settings, "max_running_requests")):
        return ["fixed"]
    return ["ratio"]


def _fixed(settings: Mapping[str, Any]) -> tuple[int, str]:
    dp = dp_attention_width(settings) or 1  # --attn-dp-size from 0.5.22 (reserve_sglang.dp_attention_width)
    for key in ("max_mamba_cache_size", "max_running_requests"):
        n = _int(settings, key)
        if n:
            return max(1, n // dp), f"--{key.replace('_', '-')} {n}" + (f" // DP {dp}" if dp > 1 else "")
    return DEFAULT_SLOTS // dp, f"{DEFAULT_SLOTS} (no --max-mamba-cache-size or --max-running-requests)"


def _ratio_count(rest: float, per: int, r: float, v) -> int:
    budget = rest * r / (1 + r)
    if v is None or v >= _V0_5_17:
        return max(0, int((budget - per) // per))  # the pool's padding slot (from 0.5.17)
    return max(0, int(budget // per))


def state_pool(arch, tp: int, settings: Mapping[str, Any], version: str | None,
               rest: float | None, rest_low: float | None, rest_high: float | None) -> StatePool | None:
    """The state pool SGLang carves out of `rest` (the budget before it: point, low, high), or None. A request's
    state is split over the attention TP, not the whole TP (`tp_world_size=get_parallel().attn_tp_size`: sglang-0.5.23
    wheel: sglang/srt/configs/nemotron_h.py:428, falcon_h1.py:305, kimi_linear.py:176; qwen3_next.py:301
    linear_attn_tp_size(), the attention TP unless CP-TP group sharing), narrower under DP attention or attention
    CP (served.kv_tensor_parallel)."""
    sized = per_request(arch, kv_tensor_parallel("sglang", settings, tp)[0], settings, version)
    if sized is None or rest is None:
        return None
    per, ssm = sized
    v = parse_version(version) if version else None
    gdn = bool(getattr(arch, "linear_state", (0, 0))[1] == 0)
    rules = _rules(v, settings, gdn)
    r = settings.get("mamba_full_memory_ratio")
    r = float(r) if isinstance(r, (int, float)) and not isinstance(r, bool) and r > 0 else DEFAULT_RATIO
    fixed_n, fixed_how = _fixed(settings)

    def take(x: float | None) -> list[tuple[int, str]]:
        out = []
        for rule in rules:
            if rule == "fixed":
                out.append((fixed_n, fixed_how))
            elif x is not None and x > 0:
                cut = " - 1 padding slot" if v is None or v >= _V0_5_17 else ""
                out.append((_ratio_count(x, per, r, v), f"budget x {r:g} / {1 + r:g} / {per:,} B{cut}"))
        return out or [(0, "")]

    point = max(take(rest))
    low = max(take(rest_low))[0] * per
    high = min(take(rest_high))[0] * per
    n, how = point
    if _radix_off(v, settings, gdn):
        running = f"max_running_requests <= {n:,} (the pool, radix cache off)"
    else:
        running = f"max_running_requests <= {max(1, n // RUNNING_RATIO):,} (pool // {RUNNING_RATIO}, radix cache on)"
    unknown = "; release unknown: the larger of SGLang's state-pool rules" if v is None and len(rules) > 1 else ""
    note = (f"SGLang state pool: {n:,} requests' state ({n * per / GIB:.2f} GiB per GPU, {per:,} B each: conv "
            f"bfloat16, temporal {ssm}) comes out of the KV budget before the token pool ({how}){unknown}; "
            f"{running}")
    return StatePool(per, float(n * per), float(low), float(high), n, note, how)
