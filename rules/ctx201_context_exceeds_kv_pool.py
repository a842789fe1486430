"""An engine context length larger than the KV pool of the same role.

Why:
    The engine accepts requests up to its context length, but one replica can
    hold only its KV pool. vLLM refuses to start ("To serve at least one request
    with the model's max seq len ... KV cache is needed, which is larger than the
    available KV cache memory"), or, with a pool overridden below it, admits such
    requests and hangs them while health checks pass. vLLM 0.19 with a model
    with sliding-window or chunked layers starts too, and its admission check
    (scheduler_reserve_full_isl) reserves every KV cache group, windows too,
    for the whole request: one request holds about the pool divided by the
    groups, and a longer one waits forever (vllm#39734). SGLang silently lowers the
    per-request limit to the pool. The context length is held against what one
    request can hold: vLLM keeps one block of its pool back as the null block,
    and a context length up to the whole pool passes its startup check, so the
    engine starts and a request in that last block waits forever. When no pool is declared, the pool is derived
    from the model, the accelerators and the engine's memory settings, and the
    message shows that arithmetic, naming the model it was derived for; a model
    inferred rather than stated (an srt-slurm served-model-name beside a cluster
    alias, a quantizer's re-upload matched by name, a folder name) is said so,
    `model inferred: ...`, as the audit's `model_from` says it. A role that sets no context length is held
    to its engine's default for the model (vLLM and SGLang derive it from the
    config.json). A derived pool carries a band: this is an error only when
    the context exceeds even its top; inside the band CTX210 warns. When the
    advertised window itself exceeds the pool, CTX101 reports it instead (one
    finding for one cause).

Example (bad):
    ```yaml
    model: {id: meta-llama/Llama-3.1-8B-Instruct}
    engine: {name: vllm}
    serving:
      roles:
        - role: unified
          context_length: 131072
          accelerators: {type: L4, count: 1}    # derived pool is far below 131,072
    ```

Example (good):
    ```yaml
    model: {id: meta-llama/Llama-3.1-8B-Instruct}
    engine: {name: vllm}
    serving:
      roles:
        - role: unified
          context_length: 131072
          accelerators: {type: H100, count: 1}
    ```

Options:
    None.
"""
from __future__ import annotations

from typing import Iterator

from ctxlint.findings import Problem
from ctxlint.model import Deployment, fmt
from ctxlint.held import on_cpu, starts_and_hangs
from ctxlint.rules._common import admission_text, context_fix, context_text, over, pool_text
from ctxlint.rules._engine import engine_id

ID = "CTX201"
NAME = "context-exceeds-kv-pool"
SEVERITY = "error"
SCOPE = "deployment"
TAGS = ()
INPUTS = ("advertised.context_window", "engine", "roles[].context_length", "roles[].pool", "roles[].capacity",
          "roles[].accelerators", "roles[].engine_args")
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}


# What each engine does when one request of its context length does not fit in its pool.
CONSEQUENCE = {
    "vllm": "vLLM refuses to start (\"To serve at least one request with the model's max seq len ... KV cache is "
            "needed, which is larger than the available KV cache memory\")",
    "sglang": "SGLang starts and silently lowers the per-request limit to the pool, so requests up to the context "
              "length it reports are refused",
    "trtllm": "TensorRT-LLM shrinks max_seq_len to the pool with a warning (\"Adjusted max_seq_len\")",
    "tgi": "TGI refuses the startup check (max_total_tokens above what the KV cache holds)",
    "llamacpp": "llama-server cannot allocate the cells and fails to load, or --fit lowers the context",
    "lmdeploy": "LMDeploy silently lowers session_len to the pool",
}
# vLLM with a context length that fits the whole pool but not what one request can hold (held.py).
VLLM_NULL_BLOCK = ("vLLM starts (its startup check counts the null block as usable), and a request longer than "
                   "{held} tokens never gets its last KV block: it waits at the head of the queue, holding up every "
                   "request behind it, while health checks pass (CTXA-2026-002; releases with vllm#47272 refuse to "
                   "start instead)")


# vLLM with --num-gpu-blocks-override: its startup check compares the memory it profiled, not the override
# (vllm#41069 made it count the override; its first release is not known), so it starts (vllm#35541).
VLLM_OVERRIDE = ("vLLM starts (its startup check counts the memory it profiled, not --num-gpu-blocks-override, in "
                 "releases before vllm#41069), and a request longer than {held} tokens never gets its KV blocks: it "
                 "waits at the head of the queue while health checks pass (CTXA-2026-002)")


# vLLM on Neuron with its blocks of --block-size (DISABLE_NEURON_CUSTOM_SCHEDULER: vLLM's scheduler, chunked prefill,
# a block KV layout): the plugin checks the override against max-num-seqs requests of max-model-len at startup
# (vllm-project/vllm-neuron@a5ef7c88c3e4e44bea9af9051d8fb113588c0a21:vllm_neuron/worker/
# neuronx_distributed_model_loader.py, _validate_neuron_config)
NEURON_OVERRIDE = ("the vllm-neuron plugin refuses to start (\"At least N blocks are required for max_model_len ...\": "
                   "--num-gpu-blocks-override must hold --max-num-seqs requests of the context length)")


def check(dep: Deployment, options) -> Iterator[Problem]:
    window = dep.advertised.context_window
    engine = engine_id(dep)
    for role in dep.roles:
        ctx, pool = role.context_length, role.pool
        if ctx is None or pool is None or not over(ctx.value, role):
            continue  # inside a derived pool's band: CTX210 says so
        if window is not None and window.value > pool.request_ceiling:
            continue  # CTX101 already reports this pool against the window
        limit = pool.request_ceiling  # what one request can hold: the pool less the engine's reserve
        what = CONSEQUENCE.get(engine or "", "one maximum-length request cannot be held")
        if starts_and_hangs(engine, role, ctx.value):
            what = admission_text(engine, role, ctx.value) or VLLM_NULL_BLOCK.format(held=fmt(limit))
        elif engine == "vllm" and role.arg("num_gpu_blocks_override") is not None:
            what = NEURON_OVERRIDE if role.neuron is not None else VLLM_OVERRIDE.format(held=fmt(limit))
        top = " even at the top of its band" if pool.unsure else ""
        memory = "more or larger accelerators, a higher memory fraction, an fp8 KV cache"
        if pool.origin == "derived" and role.capacity is not None and \
                any(label == "kv_cache_memory_bytes" for label, _, _ in role.capacity.steps):
            memory = "a larger --kv-cache-memory-bytes, an fp8 KV cache"  # it, not the memory fraction, sets the budget
        elif engine == "vllm" and on_cpu(role):  # the CPU backend's pool is VLLM_CPU_KVCACHE_SPACE GiB of host
            memory = ("a larger VLLM_CPU_KVCACHE_SPACE, the GiB of host memory vLLM's CPU backend gives its KV "
                      "cache")  # memory: no accelerator or memory fraction sizes it (vllm_cpu_space.py)
        if pool.request > 0 and what is NEURON_OVERRIDE:  # the blocks are the pool: no memory figure changes it
            fix = f"{context_fix(role, pool.request).capitalize()}, or raise --num-gpu-blocks-override"
        elif pool.request > 0:
            fix = f"{context_fix(role, pool.request).capitalize()}, or add memory ({memory})"
        elif limit > 0:  # the point holds no KV block ("lower it to 0" is no advice); the band's top does
            fix = (f"The estimate itself holds no KV block, only its band's top does: {context_fix(role, limit)} "
                   f"to be within the band (a CTX210 warning), or add memory ({memory})")
        else:
            fix = (f"The estimate leaves no memory for one KV block, so a shorter context alone does not help: add "
                   f"memory ({memory})")
        yield Problem(
            f"{fmt(ctx.value)} > {fmt(limit)}: the {role.label} engine context length {context_text(role)} "
            f"exceeds its KV pool {pool_text(role, ',')} by {fmt(ctx.value - limit)} tokens{top}; {what}. {fix}",
            ctx.source, dep.display_name)
