"""Stated KV pools larger than the accelerator could hold with all of its memory, and what each engine does.

A pool is stated in tokens or blocks, to the engine or by a person. Above the ceiling (the accelerator's
whole memory, less the smallest estimate of the weights, over the KV bytes per token per GPU) it cannot be
the pool; CTX202 reports it, and the audit's verdict (verdicts.verdict_of) follows what the engine does:

- vLLM `--num-gpu-blocks-override` (GPU): allocated as told, in every release. V0 (vllm==0.6.3:
  vllm/engine/llm_engine.py `_initialize_kv_caches`: `num_gpu_blocks = num_gpu_blocks_override`, then
  `initialize_cache`, whose vllm/worker/worker.py `raise_if_cache_size_invalid` checks only max_model_len,
  and vllm/worker/cache_engine.py `_allocate_kv_cache` `torch.zeros` of that many blocks); V1 (vllm==0.10.1:
  vllm/v1/core/kv_cache_utils.py `get_num_blocks` replaces the profiled count, `KVCacheTensor(size=page_size
  x num_blocks)`, vllm/v1/worker/gpu_model_runner.py `_allocate_kv_cache_tensors` `torch.zeros(size)`;
  vllm==0.34.0: vllm/v1/core/kv_cache_planning.py sets available_memory to override x bytes per block and
  vllm/v1/worker/utils.py `_allocate_kv_cache_buffer` allocates it). More than the memory is a CUDA
  out-of-memory error in the KV cache allocation: the engine exits at startup. Verdict "KV does not fit".
- LMDeploy `--num-gpu-blocks` (PyTorch engine, from 0.18.0): the same (lmdeploy==0.18.0:
  lmdeploy/pytorch/engine/executor/base.py `_update_num_gpu_blocks`, "User supplied an explicit block count.
  Do not resize it"; lmdeploy/pytorch/engine/cache_engine/layout.py allocates `torch.zeros` of num_blocks).
- SGLang `--max-total-tokens` and TensorRT-LLM `kv_cache_config.max_tokens`: caps (pool_caps.py); the engine
  uses the smaller pool it profiles, which the capacity stage derives, so the verdict follows that pool.
- A pool a person states (the native `kv_pool_tokens`, the `ctxlint.io/kv-pool-tokens` annotation): the
  number cannot be true, and the real pool is somewhere below the ceiling. The verdict holds the promise
  against the ceiling: above it "exceeds" (no pool the device can hold takes it), else "within band" (not
  "fits": the one figure that said so is fiction).
- TGI `--max-batch-total-tokens` is no pool here: Flash models ignore it and take what warmup infers
  ("`--max-batch-total-tokens` is deprecated for Flash Attention models" / "Inferred max batch total tokens",
  huggingface/text-generation-inference:backends/v3/src/lib.rs), and ctxlint never reads it as one.
"""
# No `from __future__ import annotations` here: with it, typing.NamedTuple turns each field's annotation (a
# string) into a ForwardRef, whose builtin compile() is the run's first and initializes the AST types (~10 M
# instructions, ~3% of a one-file check, issue 15). Every annotation below is a runtime expression on 3.9.

from typing import NamedTuple, Optional

from ctxlint.model import Deployment, Role, Source

ALLOCATES, CAPPED, STATED = "allocates", "capped", "stated"
GIB = 2**30


class Overreach(NamedTuple):
    tokens: int  # the stated pool
    ceiling: int  # the most the accelerator could hold with all of its memory
    memory: float  # the accelerator's memory, bytes
    weights: float  # the weights per GPU, the smallest estimate
    per_token: float  # KV bytes per token per GPU
    kind: str  # ALLOCATES, CAPPED or STATED
    accelerator: str
    source: Source
    flag: str = ""  # ALLOCATES: the flag that states it ("--num-gpu-blocks-override")
    blocks: int = 0  # ALLOCATES: its value
    block: int = 0  # ALLOCATES: tokens per block


def overreach(dep: Deployment, role: Role) -> Optional[Overreach]:
    """The role's stated pool when it exceeds what its accelerator could hold with all of its memory."""
    cap = role.capacity
    if cap is None or not cap.kv_bytes_per_token_per_gpu or role.accelerators.type is None:
        return None
    engine = dep.engine.name.value if dep.engine.name is not None else None
    stated = _stated(engine, role)
    if stated is None:
        return None
    tokens, source, kind, flag, blocks, block = stated
    from ctxlint.physics.accelerators import lookup_accelerator  # only a role with a stated pool pays for it
    accel = lookup_accelerator(role.accelerators.type.value, dict(dep.custom_accelerators) or None)
    if accel is None:
        return None
    # the smallest estimate of the weights: the most the memory could leave for KV (a sure ceiling)
    weights = min((w for w in (cap.weights_low_per_gpu, cap.weights_bytes_per_gpu) if w is not None), default=0.0)
    # and the most the device's memory may be (an estimated device's band top, Accelerator.memory_high)
    ceiling = int((accel.memory_high - weights) // cap.kv_bytes_per_token_per_gpu)
    if ceiling <= 0 or tokens <= ceiling:  # weights alone not fitting is CTX203
        return None
    return Overreach(tokens, ceiling, accel.memory_high, weights, float(cap.kv_bytes_per_token_per_gpu), kind,
                     accel.name, source, flag, blocks, block)


def _stated(engine: Optional[str], role: Role):
    """(tokens, source, kind, flag, blocks, block) of the role's stated pool, or None."""
    from ctxlint.pool_caps import engine_cap

    pool = role.kv_pool_tokens
    if engine == "lmdeploy":
        blocks, cap = role.arg("num_gpu_blocks"), role.capacity
        # the physics fixed the pool by it only where the PyTorch engine runs (physics/mem_lmdeploy.py)
        if blocks is not None and pool is None and cap is not None and cap.pool_tokens \
                and any(label == "num_gpu_blocks" for label, _, _ in cap.steps):
            return cap.pool_tokens, blocks.source, ALLOCATES, "--num-gpu-blocks", blocks.value, cap.block_size
    if pool is None:
        return None
    blocks = role.arg("num_gpu_blocks_override") if engine == "vllm" else None
    if blocks is not None and blocks.source == pool.source and role.neuron is not None:
        return None  # a Neuron device's memory and pool follow its own rules (ctxlint.neuron)
    if blocks is not None and blocks.source == pool.source and isinstance(blocks.value, int) and blocks.value > 0:
        return pool.value, pool.source, ALLOCATES, "--num-gpu-blocks-override", blocks.value, \
            pool.value // blocks.value
    if engine_cap(engine, role) is not None:
        return pool.value, pool.source, CAPPED, "", 0, 0
    return pool.value, pool.source, STATED, "", 0, 0
