"""SGLang's reserve for activations and CUDA graphs, from 0.5.3: what its automatic mem_fraction_static leaves
out of the device (`_handle_gpu_memory_settings`; from 0.5.19 sglang/srt/arg_groups/memory_hook.py).

    reserved = 512 + activation tokens x 1.5 + decode graphs + tp x pp / 8 x 1024 + DP attention + prefill graphs
    reserved = max(reserved, 10 GiB) above 60 GiB devices, then + DeepEP + speculative decoding
    mem_fraction_static = round((gpu - reserved) / gpu, 3)

Each term by release (ROLES, DEEPEP_PREFILL, SPECULATIVE): from 0.5.15 a disaggregated role reserves for its own
phase only (a prefill role no decode graphs and no DP-attention padding, a decode role activations for its running
batch and no prefill graphs).
"""
# No `from __future__ import annotations` here: with it, typing.NamedTuple turns each field's annotation (a
# string) into a ForwardRef, whose builtin compile() is the run's first and initializes the AST types (~10 M
# instructions, ~3% of a one-file check, issue 15). Every annotation below is a runtime expression on 3.9.

from bisect import bisect_right
from typing import Any, Mapping, NamedTuple, Optional, Tuple

from ctxlint.versions import parse_version

# The default chunked_prefill_size and decode CUDA-graph batch by device memory. Only the 20-35 GiB tier (L4, A10,
# RTX 4090/5090) changed from 0.5.3 to 0.5.23; the other tiers are the same in every release's wheel
# (sglang-0.5.3/sglang/srt/server_args.py:567-620 ... sglang-0.5.18/sglang/srt/server_args.py:4830,
# sglang-0.5.19..0.5.23/sglang/srt/arg_groups/memory_hook.py:63/89/90). That tier, by first release:
# (release, chunked_prefill_size, max_bs below TP 4, max_bs at TP >= 4)
SMALL_TIER = (("0.5.3", 2048, 16, 80),    # sglang-0.5.3/sglang/srt/server_args.py:574-584 (0.5.4 too)
              ("0.5.5", 2048, 24, 80),    # sglang-0.5.5/sglang/srt/server_args.py:707 ... 0.5.19 memory_hook.py:74
              ("0.5.20", 4096, 48, 160))  # sglang-0.5.20/sglang/srt/arg_groups/memory_hook.py:100 ... 0.5.23:101
# SGLang captures prefill CUDA graphs by default from 0.5.10 (disable_piecewise_cuda_graph defaults False,
# sglang-0.5.10/sglang/srt/server_args.py:637; from 0.5.14 the prefill backend of cuda_graph_config, breakable on
# CUDA: sglang-0.5.17..0.5.23/sglang/srt/model_executor/cuda_graph_config.py:110-123), and reserves for them:
# len(capture sizes <= the prefill max) x 8 MiB, 1.5 GiB with an MLA backend (sglang-0.5.10/sglang/srt/
# server_args.py:1304-1311; sglang-0.5.23/sglang/srt/arg_groups/memory_hook.py:380-391). Some models and settings
# run prefill eagerly (multimodal, speculative, DP attention, LoRA, PD: 0.5.10 server_args.py:1078-1139), so the
# band's top leaves it out.
PREFILL_GRAPHS = "0.5.10"
# From 0.5.15 the reserve reads the role (sglang-0.5.15 wheel: sglang/srt/server_args.py:3623-3685): a decode role's
# activations scale with its running batch, max(max_running_requests or the decode graphs' max_bs, x draft tokens,
# 2048) x 1.5; a prefill role reserves no decode graphs and no DP-attention padding (`disaggregation_mode !=
# "prefill"`); a decode role no prefill graphs; DeepEP's all-to-all buffers, captured in the decode graphs, add
# 2 GiB after the floor (0.5.16 moved these into reserve_for_graph_mb / reserve_for_deepep_a2a_mb, server_args.py:
# 4164-4210; the same in sglang-0.5.23 wheel: sglang/srt/arg_groups/memory_hook.py:297-317, 357-414). Before 0.5.15
# every role reserved as a unified server does (sglang-0.5.14 wheel: sglang/srt/server_args.py:3276-3316).
ROLES = "0.5.15"
# A prefill (or unified) role whose breakable prefill graphs run DeepEP reserves 1 GiB more for them
# (sglang-0.5.17 wheel: sglang/srt/server_args.py:4914-4920; sglang-0.5.23 wheel: memory_hook.py:391-397).
DEEPEP_PREFILL = "0.5.17"
# Speculative decoding's reserve, after the floor: 6 GiB for a STANDALONE draft model, none for NGRAM, else 2 GiB
# (sglang-0.5.3 wheel: sglang/srt/server_args.py:663-669; 0.5.9: 1057), 4 GiB from 0.5.10 (sglang-0.5.10 wheel:
# sglang/srt/server_args.py:1322; 0.5.13: 1627-1633); 0.5.14 dropped the term (sglang-0.5.14 wheel:
# sglang/srt/server_args.py:3276-3316 has none).
SPECULATIVE = (("0.5.3", 2048), ("0.5.10", 4096), ("0.5.14", 0))
# From 0.5.22 a default decode CUDA-graph batch is capped at --max-running-requests before the reserve reads it
# (`decode_max_bs_is_default and max_running_requests < max_bs`: sglang-0.5.22 and 0.5.23 wheels,
# sglang/srt/arg_groups/memory_hook.py:182-188; 0.5.21 has no cap: memory_hook.py:172-180), so a server that runs
# 8 requests at a time reserves 8 x 2 MiB of decode graphs, not 48 x 2 (an L4). A batch set with
# --cuda-graph-max-bs-decode is kept.
RUNNING_CAP = "0.5.22"
# The capture sizes (sglang-0.5.10/sglang/srt/server_args.py:1397-1415; sglang-0.5.23/sglang/srt/arg_groups/
# cuda_graph_hook.py:480-497), 4608 and up every 512 to the prefill max.
_SIZES = (*range(4, 33, 4), *range(48, 257, 16), *range(288, 513, 32), *range(576, 1025, 64), *range(1280, 4097, 256))


# DP attention pads the decode graphs: max_bs x dp_size x 3 MiB, x 4.5 above a batch of 300, before the floor, in
# every release from 0.5.3 (sglang-0.5.3 wheel: sglang/srt/server_args.py:650-657; from 0.5.22 the width is
# attn_dp_size, which `--dp-size N --enable-dp-attention` resolves to: sglang-0.5.23 wheel: sglang/srt/arg_groups/
# parallel_hook.py:52-57, memory_hook.py:370-378).


def dp_attention_width(settings: Mapping[str, Any]) -> int:
    """The number of DP-attention groups inside the TP group, 0 when DP attention is off. 0.5.22 added
    `--attn-dp-size N` (alias --attention-data-parallel-size), which turns DP attention on by itself
    (`attn_dp_enabled_of`: attn_dp_size > 1, sglang-0.5.22 wheel: sglang/srt/runtime_context.py; the field:
    sglang/srt/arg_groups/fields/parallel.py:81-90), and reads the older `--dp-size N --enable-dp-attention` as
    `attn_dp_size = N, dp_size = 1` (parallel_hook.py:39-60); the two together are refused (:281-285)."""
    attn = _int(settings, "attn_dp_size")
    if attn is not None and attn > 1:
        return attn
    return (_int(settings, "dp_size") or 1) if settings.get("enable_dp_attention") is True else 0


class Role(NamedTuple):
    """What of a server's settings the reserve reads beyond the device defaults."""
    mode: Optional[str] = None  # "prefill", "decode" (--disaggregation-mode), None: unified
    dp: int = 0  # the DP-attention width (--dp-size with --enable-dp-attention), 0: off
    deepep: bool = False  # --moe-a2a-backend deepep
    spec: Optional[str] = None  # --speculative-algorithm, upper case
    draft: int = 1  # --speculative-num-draft-tokens (1 when not stated)
    running: Optional[int] = None  # --max-running-requests
    graphs: bool = True  # decode CUDA graphs captured (not --disable-cuda-graph)
    max_prefill: Optional[int] = None  # --max-prefill-tokens, read when chunked prefill is off


UNIFIED = Role()


def _int(settings: Mapping[str, Any], key: str) -> Optional[int]:
    value = settings.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def role_of(settings: Mapping[str, Any]) -> Role:
    """The settings the reserve reads, once per estimate."""
    mode = settings.get("disaggregation_mode")
    dp = dp_attention_width(settings)
    spec = settings.get("speculative_algorithm")
    return Role(mode if mode in ("prefill", "decode") else None, dp, settings.get("moe_a2a_backend") == "deepep",
                str(spec).upper() if spec else None, max(1, _int(settings, "speculative_num_draft_tokens") or 1),
                _int(settings, "max_running_requests"), settings.get("disable_cuda_graph") is not True,
                _int(settings, "max_prefill_tokens"))


class Era(NamedTuple):
    """A release whose reserve differs from the one before: its label, parsed, and its 20-35 GiB tier."""
    label: str
    v: Any
    small: Tuple[int, int, int]


def _era(label: str) -> Era:
    v = parse_version(label)
    return Era(label, v, next(t[1:] for t in reversed(SMALL_TIER) if parse_version(t[0]) <= v))


_ALWAYS = tuple(r for r, *_ in SMALL_TIER) + (PREFILL_GRAPHS,)
_ERAS = {label: _era(label) for label in (*_ALWAYS, ROLES, DEEPEP_PREFILL, RUNNING_CAP, *(r for r, _ in SPECULATIVE))}
V_ROLES, V_DEEPEP_PREFILL, V_PREFILL_GRAPHS = _ERAS[ROLES].v, _ERAS[DEEPEP_PREFILL].v, _ERAS[PREFILL_GRAPHS].v
V_RUNNING_CAP = _ERAS[RUNNING_CAP].v
_STARTS: dict = {}


def starts(role: Role) -> Tuple[Era, ...]:
    """The releases whose reserve differs for this role: the 20-35 GiB tier's and the prefill graphs' always, the
    others only when a setting they read is there (an unknown release is estimated once per era)."""
    # DP attention: its prefill graphs from 0.5.15 (mem_sglang._eager)
    key = (bool(role.spec), bool(role.mode or role.dp or role.deepep or not role.graphs),
           role.deepep and role.mode != "decode", bool(role.running))
    found = _STARTS.get(key)
    if found is None:
        out = set(_ALWAYS)
        out.update(label for label, on in zip((SPECULATIVE[-1][0], ROLES, DEEPEP_PREFILL, RUNNING_CAP), key) if on)
        found = _STARTS[key] = tuple(sorted((_ERAS[label] for label in out), key=lambda e: e.v))
    return found


def defaults(gpu_mib: float, tp: int, small: Tuple[int, int, int] = SMALL_TIER[1][1:]) -> Tuple[int, int]:
    """chunked_prefill_size, cuda_graph_max_bs by device memory (>= 0.5.3; `small`: the 20-35 GiB tier)."""
    g = gpu_mib / 1024
    if g < 20:
        return 2048, 8
    if g < 35:
        return small[0], small[2] if tp >= 4 else small[1]
    if g < 60:
        return 4096, 160 if tp >= 4 else 32
    if g < 160:
        return 8192, 512 if tp >= 4 else 256
    return 16384, 512


def prefill_graph_mib(top: int, mla: bool) -> float:
    """The prefill CUDA-graph reserve: 8 MiB per capture size up to `top` tokens, 1.5 GiB with MLA."""
    if mla:
        return 1.5 * 1024
    # the sizes up to `top`: _SIZES rises, so for a whole number that count is where `top` would go (~1,500 calls a
    # run, each a 60-size scan before); anything else (a float, NaN) is counted as it always was
    below = bisect_right(_SIZES, top) if type(top) is int else sum(1 for s in _SIZES if s <= top)
    return 8 * (below + max(0, (top - 4608) // 512 + 1))


def auto_formula(gpu_mib: float, tp: int, pp: int, chunked_prefill_size: Optional[int] = None,
                 cuda_graph_max_bs: Optional[int] = None, small: Tuple[int, int, int] = SMALL_TIER[1][1:],
                 prefill: Optional[Tuple[Optional[int], bool]] = None, role: Role = UNIFIED,
                 era: Optional[Era] = None) -> Tuple[float, str]:
    """The fraction and its arithmetic in `era` (of starts(); 0.5.3 when not given) for `role`; `prefill` (the
    prefill graphs' max tokens when set, MLA): the prefill CUDA-graph reserve, the releases that capture them."""
    cps_d, bs_d = defaults(gpu_mib, tp, small)
    cps = cps_d if chunked_prefill_size is None else chunked_prefill_size
    bs = bs_d if cuda_graph_max_bs is None else cuda_graph_max_bs
    v = (era or _ERAS[SMALL_TIER[0][0]]).v
    capped = cuda_graph_max_bs is None and role.running is not None and 0 < role.running < bs and v >= V_RUNNING_CAP
    bs = role.running if capped else bs
    later = v >= V_ROLES
    roles = role.mode if later else None
    if roles == "decode":
        running = role.running or bs or 1
        acts = f"max({running} x {role.draft}, 2048)" if role.draft > 1 else f"max({running}, 2048)"
        tokens = max(running * role.draft, 2048)
    else:  # chunked prefill off (<= 0): the largest prefill batch, --max-prefill-tokens (16384 by default)
        tokens = max(cps, 2048) if cps > 0 else max(role.max_prefill or 16384, 2048)
        acts = f"max({cps}, 2048)" if cps > 0 else f"max(max_prefill_tokens {tokens}, 2048)"
    # before 0.5.15 the decode graphs' term is there whether they are captured or not
    decode_graphs = roles != "prefill" and role.graphs if later else True
    dp = role.dp if roles != "prefill" else 0
    dp_mib = bs * dp * (4.5 if bs > 300 else 3)
    graphs = 0.0
    if prefill is not None:
        top, mla = prefill
        # the prefill max defaults to chunked_prefill_size (8192 at most with MLA, which reserves 1.5 GiB anyway)
        graphs = prefill_graph_mib(cps if top is None else top, mla)
        if role.deepep and v >= V_DEEPEP_PREFILL:
            graphs += 1024
    reserved = 512 + tokens * 1.5 + (bs * 2 if decode_graphs else 0) + tp * pp / 8 * 1024 + dp_mib + graphs
    if gpu_mib > 60 * 1024:
        reserved = max(reserved, 10 * 1024)
    after = _after_floor(role, roles, v)
    reserved += after[0]
    mfs = round((gpu_mib - reserved) / gpu_mib, 3)
    terms = (f" + {bs} x 2" + (" (decode graphs capped at --max-running-requests)" if capped else "")
             if decode_graphs else "")
    terms += f" + {tp} x {pp} / 8 x 1024"
    terms += f" + DP attention {bs} x {dp} x {4.5 if bs > 300 else 3:g}" if dp else ""
    terms += f" + prefill graphs {graphs:g}" if prefill is not None else ""
    return mfs, (f"round(({gpu_mib:.0f} - reserved {reserved:.0f}) / {gpu_mib:.0f}, 3); reserved = 512 + "
                 f"{acts} x 1.5{terms}{after[1]} MiB" + (f" ({roles} role)" if roles else ""))


def _after_floor(role: Role, roles: Optional[str], v) -> Tuple[float, str]:
    """(MiB, how) reserved after the 10 GiB floor: DeepEP's decode buffers (>= 0.5.15), speculative decoding
    (< 0.5.14)."""
    mib, how = 0.0, ""
    if role.deepep and v >= V_ROLES and roles != "prefill" and role.graphs:
        mib, how = 2048.0, " + DeepEP 2048"
    if role.spec and role.spec != "NGRAM":
        spec = next(m for r, m in reversed(SPECULATIVE) if _ERAS[r].v <= v)
        spec = 6144 if spec and role.spec == "STANDALONE" else spec
        if spec:
            mib, how = mib + spec, f"{how} + speculative {spec}"
    return mib, how
