"""vLLM on AWS Neuron (Inferentia, Trainium): the KV pool as the Neuron platform builds it.

The capacity physics derives pools from GPU memory; a NeuronCore's is not in the accelerator catalog, and
the Neuron platform sets vLLM's KV cache by rules of its own, read here from its source:

- The block size. The in-tree platform (vLLM releases before the vllm-neuron plugin; AWS's
  `pytorch-inference-vllm-neuronx:0.9.1` images) always sets `cache_config.block_size = max_model_len`
  ("neuron needs block_size = max_model_len": vllm-project/vllm@00e3ddc51d79bc6f01186f8e87f7cde8a042502f:
  vllm/platforms/neuron.py, check_and_update_config). The vllm-neuron plugin does so when prefix caching
  is off under its own scheduler, and keeps --block-size (asserting it is set) when prefix caching is on
  or DISABLE_NEURON_CUSTOM_SCHEDULER=1 runs vLLM's scheduler
  (vllm-project/vllm-neuron@a5ef7c88c3e4e44bea9af9051d8fb113588c0a21:vllm_neuron/platform.py,
  check_and_update_config). So with prefix caching off every request gets one block of max-model-len
  tokens whichever platform runs; with it on the block size depends on the release line, which the
  file does not say.
- The blocks. --num-gpu-blocks-override N: the plugin adds one block for vLLM's null block ("Adding 1 to
  num_gpu_blocks_override ... to account for null block allocation", the same function), so N blocks
  hold requests. Without it the plugin sizes the pool from the NeuronCores' free memory at startup
  (vllm_neuron/worker/neuron_worker.py, determine_available_memory), which ctxlint does not derive.
"""
from __future__ import annotations

from typing import Any, Optional, Tuple

from ctxlint.model import Pool, Role, Val, fmt

from .records import replace

# The Neuron device plugin's resources (cores, devices) and the plugin's variables: any of them, a Neuron
# instance type or a Neuron image says the engine runs on Neuron.
NEURON_RESOURCES = ("aws.amazon.com/neuroncore", "aws.amazon.com/neuron", "aws.amazon.com/neurondevice")
NEURON_ENV = ("VLLM_NEURON_FRAMEWORK", "DISABLE_NEURON_CUSTOM_SCHEDULER", "NEURON_RT_VISIBLE_CORES")
_INSTANCE_PREFIXES = ("inf1.", "inf2.", "trn1.", "trn1n.", "trn2.", "trn2u.", "trn3.")


def neuron_instance(name: Any) -> bool:
    """An AWS Inferentia or Trainium instance type (`inf2.24xlarge`, or SageMaker's `ml.inf2.24xlarge`, the same
    instance: adapters/instance_types.py INSTANCE_FAMILIES): its accelerators are NeuronCores."""
    if not isinstance(name, str):
        return False
    low = name.strip().lower()
    return (low[3:] if low.startswith("ml.") else low).startswith(_INSTANCE_PREFIXES)


def neuron_image(image: Any) -> bool:
    """An image built for Neuron (`public.ecr.aws/neuron/pytorch-inference-vllm-neuronx`, `.../vllm-neuron`):
    "neuron" in its repository, not its tag."""
    if not isinstance(image, str):
        return False
    repo = image.split("@", 1)[0]
    repo = repo.rsplit(":", 1)[0] if ":" in repo.rsplit("/", 1)[-1] else repo
    return "neuron" in repo.lower()


def _switch(role: Role, name: str) -> Any:
    val = role.arg(name)
    return val.value if val is not None else None


def _scheduler_disabled(role: Role) -> bool:
    """DISABLE_NEURON_CUSTOM_SCHEDULER as the plugin reads it: bool(int(value))."""
    value = _switch(role, "DISABLE_NEURON_CUSTOM_SCHEDULER")
    try:
        return bool(int(str(value).strip())) if value is not None else False
    except ValueError:
        return False  # the plugin's int() refuses it: the engine does not start (not a capacity figure)


def engine_block(role: Role) -> Tuple[Optional[int], str]:
    """(the block size vLLM on Neuron uses, how it is set) or (None, why it is not known)."""
    declared = _switch(role, "block_size")
    declared = declared if isinstance(declared, int) and not isinstance(declared, bool) and declared > 0 else None
    if _scheduler_disabled(role):  # a variable only the plugin reads: its native scheduler keeps --block-size
        return (declared, "--block-size (DISABLE_NEURON_CUSTOM_SCHEDULER runs vLLM's scheduler)") if declared \
            else (None, "DISABLE_NEURON_CUSTOM_SCHEDULER runs vLLM's scheduler, which needs --block-size, not stated")
    if _switch(role, "enable_prefix_caching") is not False:
        return None, ("prefix caching is on (vLLM's default), so the block size is --max-model-len on the in-tree "
                      "Neuron platform and --block-size under the vllm-neuron plugin, and the file does not say which "
                      "runs")
    ctx = role.context_length
    if ctx is None or not isinstance(ctx.value, int) or ctx.value <= 0 or ctx.raw == "default":
        return None, "the block size is --max-model-len (prefix caching is off), which is not stated"
    return ctx.value, "--max-model-len: prefix caching is off"


def with_declared_pool(role: Role) -> Role:
    """A vLLM role on Neuron with its --num-gpu-blocks-override pool in the engine's block size (None when that
    size is not known: CTX208 says why, from why_not)."""
    blocks = role.arg("num_gpu_blocks_override")
    if blocks is None or role.kv_pool_tokens is None or role.kv_pool_tokens.source != blocks.source:
        return role
    block, how = engine_block(role)
    if block is None:
        return replace(role, kv_pool_tokens=None)
    return replace(role, kv_pool_tokens=Val(blocks.value * block, blocks.source,
                                            raw=f"{blocks.value} blocks x {block} tokens (Neuron block size: {how})"))


def with_held(role: Role, pool: Pool) -> Optional[Pool]:
    """What one request holds of a Neuron pool (None: the block size is not known, held.py's reading stands).
    A block of max-model-len tokens is all a request ever takes; a --num-gpu-blocks-override pool in blocks of
    --block-size holds every block (the plugin adds the null block on top); a logged pool counts the null block."""
    block, how = engine_block(role)
    if block is None:
        return None
    if how.startswith("--max-model-len"):
        return replace(pool, held=min(pool.tokens, block),
                       reserve=f"vLLM on Neuron gives a request one block of --max-model-len, {fmt(block)} tokens")
    blocks = role.arg("num_gpu_blocks_override")
    if blocks is not None and blocks.source == pool.source:
        return replace(pool, held=pool.tokens, reserve="")
    return replace(pool, held=max(0, (pool.tokens // block - 1) * block),
                   reserve=f"one {block}-token block is vLLM's null block")


def why_not(engine: Optional[str], role: Role, how_to_state: str) -> str:
    """The CTX208 reason for a role on Neuron without a pool, never GPU advice."""
    where = role.neuron.raw or role.neuron.value
    if engine != "vllm":
        figure = "its KV pool is sized by the Neuron runtime from memory the accelerator catalog does not hold"
    elif role.arg("num_gpu_blocks_override") is None:
        figure = ("without --num-gpu-blocks-override the Neuron platform sizes vLLM's KV pool itself (the vllm-neuron "
                  "plugin from the NeuronCores' free memory at startup), which ctxlint does not derive")
    else:
        figure = f"--num-gpu-blocks-override is a count of blocks, and {engine_block(role)[1]}"
    return f"the engine runs on AWS Neuron ({where}): {figure}; state the pool ({how_to_state})"
