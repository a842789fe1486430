"""What ONE request can hold of a role's KV pool: the pool less what the engine keeps back.

Every promise (a context length, the advertised window, a prompt that can reach the role) is held
against this figure, not against the pool the engine logs: a request longer than it is admitted
against the context length and never gets its last KV block (advisory CTXA-2026-002).

- A derived pool: the physics' longest single request (ctxlint.physics.pool.tokens_for: the pool
  less the engine's reserved blocks, the sliding-window layers' share and per-request state, in
  whole blocks), at the estimate's point and at both ends of its band; `ctxlint capacity` prints
  the same figure as "longest single request".
- A declared vLLM pool (the "GPU KV cache size: N tokens" vLLM logs, or --num-gpu-blocks-override x
  --block-size) counts every block, the null block too: vLLM logs num_blocks x block_size
  (vllm-project/vllm@bbf906a88ba1a39104884c88c9811a4f968e4659:vllm/v1/core/kv_cache_utils.py,
  `_get_kv_cache_config_uniform_type`; num_blocks // groups x block_size in `_report_kv_cache_config`
  at @001cabc1be16a59a70d720ed61a13b678c060a18), and BlockPool takes one of those blocks as its null
  block before any request gets one (ctxlint.physics.pool.RESERVE). So one block is kept back.
- A declared vLLM pool of a model with sliding-window or chunked layers, under the hybrid KV cache
  manager: not the pool. vLLM 0.9.1-0.20.0 log num_blocks // KV cache groups x block_size, from 0.20.1
  max concurrency x max_model_len; ctxlint.physics.logged recovers num_blocks, release by release (an
  unknown release: the band over its readings), and what one request of the groups holds in them.
- Other engines' declared pools: nothing, as their source shows no such reserve. SGLang keeps one
  token back from the context length as much as from the pool (ctxlint.physics.pool.tokens_for), and
  llama.cpp's per-slot share is the context length itself (CTX309 compares the window with it).
"""
from __future__ import annotations

from typing import Any, Optional

from ctxlint.model import Deployment, Pool, Role, Val, fmt
from ctxlint.neuron import engine_block, with_held as neuron_held
from ctxlint.physics.mtp import draft_layers
from ctxlint.physics.pool import ADMITTED_STEP
from ctxlint.versions import parse_version

from .records import replace

# vLLM's block size when --block-size is not given: 16 on CUDA (DEFAULT_BLOCK_SIZE, engines.md §0); a CPU
# build takes 128 (`cache_config.block_size = 128`,
# vllm-project/vllm@f6ff3f0f903ec4dc46b3fae16e830715f52b9223:vllm/platforms/cpu.py; older releases: 128
# with intel_extension_for_pytorch, which the x86 images ship, else 16,
# vllm-project/vllm@0031bf29e940804ee8235f2b2da9536556f231e6:vllm/platforms/cpu.py). 128 keeps back the
# larger null block: a promise is never said to fit a pool it does not fit.
# On a GPU the default is 64 from 0.34.0 (ctxlint.physics.vllm_block); a declared pool of a release not stated
# keeps 16 (the smaller pool an override gives), as before.
VLLM_BLOCK, VLLM_CPU_BLOCK = 16, 128
_KEEPER = {"vllm": "vLLM's null block", "lmdeploy": "LMDeploy's last block"}


def vllm_block(role: Role, version: Optional[str] = None) -> int:
    """The block size of a vLLM role: its --block-size, else the default of its platform (on Neuron the
    platform's own, when known: ctxlint.neuron) and, on a GPU, of its release `version` when stated."""
    if role.neuron is not None:
        block = engine_block(role)[0]
        if block is not None:
            return block
    size = role.arg("block_size")
    value = size.value if size is not None else None
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    if on_cpu(role):
        return VLLM_CPU_BLOCK
    if version and parse_version(version) is not None:
        from ctxlint.physics.vllm_block import default_block  # a stated release only: no physics import else
        return default_block(version)
    return VLLM_BLOCK


def release_of(dep: Deployment) -> Optional[str]:
    """The vLLM release the deployment states (its image tag), or None."""
    version = dep.engine.version
    return str(version.value) if version is not None else None


def with_release_block(dep: Deployment, role: Role) -> Role:
    """A vLLM role whose --num-gpu-blocks-override pool (read in 16-token blocks, ctxlint.adapters.engine_roles)
    is in another block for its stated release: 64 tokens from 0.34.0 on a GPU (ctxlint.physics.vllm_block)."""
    pool = role.kv_pool_tokens
    if pool is None:  # most roles: nothing declared
        return role
    blocks = role.arg("num_gpu_blocks_override")
    if blocks is None or pool.source != blocks.source or role.arg("block_size") is not None \
            or role.neuron is not None or on_cpu(role) or not isinstance(blocks.value, int):
        return role
    block = vllm_block(role, release_of(dep))
    if pool.value == blocks.value * block:
        return role
    return replace(role, kv_pool_tokens=Val(blocks.value * block, blocks.source,
                                            raw=f"{blocks.value} blocks x {block} tokens"))


_READ = None  # (read_logged, first_release, lookup_accelerator), bound on the first declared vLLM pool


def logged_reading(dep: Deployment, role: Role, arch: Any) -> Any:
    """A declared vLLM pool of a model with window layers as its release logs it (or as
    --num-gpu-blocks-override sets it): ctxlint.physics.logged.Reading, or None where the figure is the pool."""
    stated = role.kv_pool_tokens
    if arch is None or stated is None or role.neuron is not None or on_cpu(role):
        return None  # a CPU or Neuron build has no hybrid KV cache manager: the figure is the pool
    global _READ
    if _READ is None:  # once a run, on its first declared vLLM pool: most runs never pay for the physics here
        from ctxlint.physics.accelerators import lookup_accelerator
        from ctxlint.physics.logged import read_logged
        from ctxlint.physics.vllm_archs import first_release
        _READ = read_logged, first_release, lookup_accelerator
    read, first_of, lookup = _READ
    blocks = role.arg("num_gpu_blocks_override")
    device = role.accelerators.type
    found = lookup(str(device.value), dict(dep.custom_accelerators) or None) if device is not None else None
    first = first_of(arch)
    draft = draft_layers(arch, "vllm", role.draft_layers)  # MiniMax-M3's MTP: its num_mtp_modules (physics.mtp)
    ctx = role.context_length.value if role.context_length is not None else None
    version = dep.engine.version
    return read(stated.value, vllm_block(role, release_of(dep)), arch, draft if isinstance(draft, int) else 0,
                {k: v.value for k, v in role.engine_args}, ctx if isinstance(ctx, int) and ctx > 0 else None,
                str(version.value) if version is not None else None, found, first[0] if first else None,
                blocks is not None and blocks.source == stated.source)


def on_cpu(role: Role) -> bool:
    """vLLM runs on the CPU: a CPU build with no accelerator (the workload adapters), or its KV memory is
    VLLM_CPU_KVCACHE_SPACE (set only for the CPU backend; a KubeAI `cpu` profile names no image)."""
    space = role.available_kv_gib
    return role.cpu_build is not None or (space is not None and str(space.raw).startswith("VLLM_CPU_KVCACHE_SPACE"))


def with_held(engine: Optional[str], role: Role, pool: Pool, result: Any, logged: Any = None,
              version: Optional[str] = None) -> Pool:
    """`pool` with what one request of `role` can hold (Pool.held and its band), and why it is less.
    `logged`: a declared vLLM pool of a model with window layers as its release logs it
    (ctxlint.physics.logged.Reading), which one request may hold several times over. `version`: the release."""
    if pool.origin == "derived":
        return _derived(engine, pool, result)
    if engine != "vllm":
        return pool
    if logged is not None:
        return replace(pool, held=logged.held, held_low=logged.held, held_high=logged.high, logged=logged,
                       reserve=f"one {logged.block}-token block is vLLM's null block")
    if role.neuron is not None:
        found = neuron_held(role, pool)
        if found is not None:
            return found
    block = vllm_block(role, version)
    held = max(0, (pool.tokens // block - 1) * block)
    whole = "" if pool.tokens % block == 0 else f"; vLLM counts whole {block}-token blocks"
    return replace(pool, held=held, reserve=f"one {block}-token block is vLLM's null block{whole}")


def _derived(engine: Optional[str], pool: Pool, result: Any) -> Pool:
    longest = getattr(result, "max_context_at_concurrency_1", None)
    if longest is None or engine == "llamacpp":  # llama.cpp: its per-slot share is the context length
        return pool
    held = max(0, min(int(longest), pool.tokens))
    low = high = None
    if pool.banded and result.max_context_low is not None and result.max_context_high is not None:
        low, high = max(0, min(result.max_context_low, held)), max(held, result.max_context_high)
    # the pool the point's longest request was worked out from (an unknown vLLM release's fold may take its
    # point pool from another release): what the reserve is said of
    base = next((int(value) for label, _, value in result.steps if label == "pool tokens"
                 and isinstance(value, (int, float))), pool.tokens)
    base = pool.tokens if base < held else base
    return replace(pool, held=held, held_low=low, held_high=high, reserve=_why(engine or "", base, held, result),
                   reserve_of=None if base == pool.tokens else base)


def _why(engine: str, tokens: int, held: int, result: Any) -> str:
    """What the physics kept back of the pool for one request, in the terms of its own arithmetic."""
    block = max(1, int(getattr(result, "block_size", 1) or 1))
    parts = []
    kept = block if engine in _KEEPER else 0
    if kept:
        parts.append(f"one {block}-token block is {_KEEPER[engine]}")
    windows = next((value for label, _, value in result.steps if label == "window layers per request"), 0)
    windows = int(windows) if isinstance(windows, (int, float)) and windows > 0 else 0
    if windows:
        # the point follows vLLM 0.19's admission check (an unknown release's too, when 0.19 holds the least)
        admitted = ", which vLLM 0.19's admission check reserves for the whole request" \
            if any(label == ADMITTED_STEP for label, _, _ in result.steps) else ""
        what = "the window and compressor-state groups" if getattr(result, "startup_longest", None) is not None \
            else "the sliding-window layers"  # DeepSeek-V4 on vLLM (dsv4_kv)
        parts.append(f"{fmt(windows)} for {what}{admitted}")
    rest = tokens - held - kept - windows
    if rest > 0:
        parts.append(f"{fmt(rest)} for per-request state and whole blocks")
    return "; ".join(parts)


def starts_and_hangs(engine: Optional[str], role: Role, need: int) -> bool:
    """A vLLM context length above what one request can hold by at most one block: vLLM's startup check
    compares the KV memory a max-length request needs with the whole pool, null block included
    (`needed_memory > available_memory`, `_check_enough_kv_cache_memory`,
    vllm-project/vllm@001cabc1be16a59a70d720ed61a13b678c060a18:vllm/v1/core/kv_cache_utils.py), so the
    engine starts, and a request that long never gets its last block (vllm#47272 reserves the null block
    in that check; the first release with it is not known). Exact pools only: a band's point may differ."""
    pool = role.pool
    if engine != "vllm" or pool is None or pool.held is None:
        return False
    if pool.logged is not None:  # the startup check counts window groups up to their window, as the reading does
        return pool.request_ceiling < need <= pool.logged.starts
    cap = role.capacity
    starts = getattr(cap, "admission_starts", None) if pool.origin == "derived" else None
    if starts is not None:  # vLLM 0.19.x: the same checks for a derived pool (ctxlint.physics.pool.tokens_for)
        return pool.request_ceiling < need <= starts
    startup = getattr(cap, "startup_longest", None) if pool.origin == "derived" else None
    if startup is not None:  # DeepSeek-V4: the startup check counts its window groups (capacity.startup_longest)
        return pool.request_ceiling < need <= startup
    if pool.banded:
        return False
    block = int(cap.block_size) if pool.origin == "derived" and cap is not None and cap.block_size else vllm_block(role)
    return pool.request_ceiling < need <= pool.request_ceiling + block


def admission_hang(role: Role, need: int) -> bool:
    """The request of `need` tokens that starts_and_hangs hangs is held up by vLLM 0.19.x's admission check
    (scheduler_reserve_full_isl, a model with window layers: ctxlint.physics.logged_eras.reserves_whole), not by
    the null block alone."""
    pool = role.pool
    if pool is None:
        return False
    if pool.logged is not None:
        return pool.logged.hangs and need > pool.request_ceiling + pool.logged.block
    return pool.origin == "derived" and getattr(role.capacity, "admission_starts", None) is not None
