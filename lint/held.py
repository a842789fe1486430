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
- Other engines' declared pools: nothing, as their source shows no such reserve. SGLang keeps one
  token back from the context length as much as from the pool (ctxlint.physics.pool.tokens_for), and
  llama.cpp's per-slot share is the context length itself (CTX309 compares the window with it).
"""
from __future__ import annotations

from typing import Any, Optional

from ctxlint.model import Pool, Role, fmt
from ctxlint.neuron import engine_block, with_held as neuron_held

from .records import replace

# vLLM's block size when --block-size is not given: 16 on CUDA (DEFAULT_BLOCK_SIZE, engines.md §0); a CPU
# build takes 128 (`cache_config.block_size = 128`,
# vllm-project/vllm@f6ff3f0f903ec4dc46b3fae16e830715f52b9223:vllm/platforms/cpu.py; older releases: 128
# with intel_extension_for_pytorch, which the x86 images ship, else 16,
# vllm-project/vllm@0031bf29e940804ee8235f2b2da9536556f231e6:vllm/platforms/cpu.py). 128 keeps back the
# larger null block: a promise is never said to fit a pool it does not fit.
VLLM_BLOCK, VLLM_CPU_BLOCK = 16, 128
_KEEPER = {"vllm": "vLLM's null block", "lmdeploy": "LMDeploy's last block"}


def vllm_block(role: Role) -> int:
    """The block size of a vLLM role: its --block-size, else the default of its platform (on Neuron the
    platform's own, when known: ctxlint.neuron)."""
    if role.neuron is not None:
        block = engine_block(role)[0]
        if block is not None:
            return block
    size = role.arg("block_size")
    value = size.value if size is not None else None
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    return VLLM_CPU_BLOCK if on_cpu(role) else VLLM_BLOCK


def on_cpu(role: Role) -> bool:
    """vLLM runs on the CPU: a CPU build with no accelerator (the workload adapters), or its KV memory is
    VLLM_CPU_KVCACHE_SPACE (set only for the CPU backend; a KubeAI `cpu` profile names no image)."""
    space = role.available_kv_gib
    return role.cpu_build is not None or (space is not None and str(space.raw).startswith("VLLM_CPU_KVCACHE_SPACE"))


def with_held(engine: Optional[str], role: Role, pool: Pool, result: Any) -> Pool:
    """`pool` with what one request of `role` can hold (Pool.held and its band), and why it is less."""
    if pool.origin == "derived":
        return _derived(engine, pool, result)
    if engine != "vllm":
        return pool
    if role.neuron is not None:
        found = neuron_held(role, pool)
        if found is not None:
            return found
    block = vllm_block(role)
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
    return replace(pool, held=held, held_low=low, held_high=high, reserve=_why(engine or "", pool, held, result))


def _why(engine: str, pool: Pool, held: int, result: Any) -> str:
    """What the physics kept back of the pool for one request, in the terms of its own arithmetic."""
    block = max(1, int(getattr(result, "block_size", 1) or 1))
    parts = []
    kept = block if engine in _KEEPER else 0
    if kept:
        parts.append(f"one {block}-token block is {_KEEPER[engine]}")
    windows = next((value for label, _, value in result.steps if label == "window layers per request"), 0)
    windows = int(windows) if isinstance(windows, (int, float)) and windows > 0 else 0
    if windows:
        parts.append(f"{fmt(windows)} for the sliding-window layers")
    rest = pool.tokens - held - kept - windows
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
    if engine != "vllm" or pool is None or pool.held is None or pool.banded:
        return False
    cap = role.capacity
    block = int(cap.block_size) if pool.origin == "derived" and cap is not None and cap.block_size else vllm_block(role)
    return pool.request_ceiling < need <= pool.request_ceiling + block
