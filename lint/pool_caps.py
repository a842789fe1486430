"""Engine flags that cap a KV pool rather than set it, and the line of arithmetic a derived pool is explained by.

SGLang's `--max-total-tokens` and TensorRT-LLM's `kv_cache_config.max_tokens` are upper bounds on the
pool the engine profiles: `engine_cap` tells such a declared value from a pool, and `explain` writes
the "budget / bytes per token = tokens" line of a derived pool, naming the cap when it, not the
memory, set the pool. They are apart from capacity.py because they read a role and a physics result
and nothing else: no resolution, no imports of the physics.
"""
from __future__ import annotations

from typing import Optional

from ctxlint.model import Role, Val, fmt

GIB = 2**30

# Engine flags that cap the pool the engine profiles rather than set it: SGLang uses min(profiled,
# --max-total-tokens) ("max_total_tokens=... is larger than the profiled value ... Use the profiled value
# instead", engines.md), TensorRT-LLM the least of kv_cache_config.max_tokens and free_gpu_memory_fraction's
# memory. The physics applies the cap to a derived pool (budget.token_cap).
_POOL_CAPS = {"sglang": ("max_total_tokens",), "trtllm": ("kv_cache_config.max_tokens", "max_tokens")}
# Steps (physics.budget, mem_lmdeploy) of a pool the settings give in blocks, where no KV budget is worked out
_FIXED = ("num_gpu_blocks", "num_gpu_blocks_override", "cache_max_entry_count (blocks)")
CAP_FLAG = {"sglang": "--max-total-tokens", "trtllm": "kv_cache_config.max_tokens"}  # as messages name them


def engine_cap(engine: Optional[str], role: Role) -> Optional[Val]:
    """The role's declared pool when it is the engine's cap flag (not a pool the engine logged)."""
    pool = role.kv_pool_tokens
    if pool is None or engine not in _POOL_CAPS:
        return None
    for name in _POOL_CAPS[engine]:
        arg = role.arg(name)
        if arg is not None and arg.value == pool.value and arg.source == pool.source:
            return pool
    return None


def explain(role: Role, result, inferred: str = "") -> str:
    """One line of arithmetic for messages: budget / bytes per token = tokens. `inferred`: how the model was
    inferred from what the file says (resolution/provenance.py), said beside its name; "" when stated."""
    steps = {label: (formula, value) for label, formula, value in result.steps}
    stated = role.available_kv_gib.raw if role.available_kv_gib is not None else None
    # where the budget comes from, said as it is: stated from the boot log, set (vLLM's CPU space), or estimated
    given = "estimated" if stated is None else stated if stated.startswith("VLLM_CPU_KVCACHE_SPACE") else "as logged"
    flag = steps.get("kv_cache_memory_bytes")  # vLLM's --kv-cache-memory-bytes: the budget on any device
    count = role.accelerators.count.value if role.accelerators.count else 1
    par = role.parallelism
    # no count stated (a script's `vllm serve --tensor-parallel-size 4` on a default-accelerator): the layout, not
    # "1x", which read as one GPU beside weights divided by 4 (sweep 45, vllm-project/recipes MiniMax-M2)
    layout = f" at TP {par.tp}" + (f" x PP {par.pp}" if par.pp > 1 else "")
    where = (f"{count}x {result.accelerator}" if role.accelerators.count else f"{result.accelerator}{layout}") \
        if result.accelerator else (
        f"{count} GPU{'s' if count != 1 else ''} of a type not stated (whether the weights fit beside it needs "
        "the device)" if flag else "the logged KV budget" if given == "as logged" else "vLLM's CPU KV cache")
    if role.accelerator_assumed:
        where += f" (assumed: {role.accelerator_assumed})"
    budget = steps.get("KV budget") or steps.get("memory left for KV (est.)") or (
        (f"--kv-cache-memory-bytes {flag[1]:.0f}", flag[1]) if flag else ("", result.kv_budget_bytes_per_gpu))
    fixed = next(((label, formula) for label, formula, _ in result.steps if label in _FIXED), None)
    model = f"{result.model} (model inferred: {inferred})" if inferred else result.model
    if budget[1] is None and fixed is not None:  # a pool the settings fix in blocks: no budget was worked out
        return (f"derived for {model} on {where}, {result.engine}: the pool fixed by {fixed[0]} "
                f"({fixed[1]}) = {fmt(result.pool_tokens)} tokens" + (f" ({result.layout})" if result.layout else ""))
    per_token = result.kv_bytes_per_token_per_gpu
    cap = engine_cap(result.engine, role)
    capped = cap is not None and result.pool_tokens == cap.value and budget[1] is not None and per_token and \
        budget[1] / per_token > cap.value  # the engine's cap, not the memory, sets the pool
    return (f"derived for {model} on {where}, {result.engine}: KV budget per GPU "
            f"{(budget[1] or 0) / GIB:.2f} GiB ({budget[0] or given}) / {fmt(int(per_token or 0))} B "
            + (f"per token per GPU, capped at {fmt(cap.value)} tokens by {CAP_FLAG[result.engine]}"
               if capped else f"per token per GPU = {fmt(result.pool_tokens)} tokens")
            + (f" ({result.layout})" if result.layout else "")
            + (f"; version unknown: {result.releases_left_out}" if result.releases_left_out else "")
            + (f"; assumed: {role.defaults_assumed}" if role.defaults_assumed else ""))
