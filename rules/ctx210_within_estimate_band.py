"""A promise inside the band of a derived KV pool: the estimate cannot tell whether it fits.

Why:
    A pool derived from the hardware and settings is an estimate whose terms
    (the engine's activation peak, NCCL buffers, CUDA graphs, the weights of a
    quantized checkpoint) are known only within a range, so it comes with a
    band. Far below the band a promise fits, above it the capacity rules
    (CTX101, CTX102, CTX103, CTX201, CTX209) report an error. Inside the band
    ctxlint will not guess either way: this warning says so, with the band,
    and names the log line that settles it. State what the engine logs at boot
    (`available_kv_gib`, or the pool as `kv_pool_tokens`; on a Kubernetes
    workload or operator resource the `ctxlint.io/available-kv-gib` or
    `ctxlint.io/kv-pool-tokens` annotation, on a compose service the label)
    and the verdict becomes exact. A KV pool vLLM logged for a model with
    sliding-window or chunked layers means something else in each release
    (`num_blocks // KV cache groups x block_size` up to 0.20.0, max concurrency
    x max_model_len from 0.20.1): without the release (or the accelerator,
    whose default batch sizes the windows) what one request holds is a band
    too, and a promise inside it gets this warning. An engine whose default context follows
    its pool (vLLM `--max-model-len auto`, TGI 3, TensorRT-LLM, llama.cpp's
    fit, LMDeploy) fits whatever the pool is: only a band that reaches no
    KV block at all is in doubt.

Example (bad):
    ```yaml
    model: {id: meta-llama/Llama-3.1-8B-Instruct}
    engine: {name: vllm, version: "0.19.0"}
    serving:
      roles:
        - role: unified
          context_length: 40960
          accelerators: {type: L4, count: 1}    # the L4's pool is estimated at ~35k-44k tokens
          engine_args: {gpu_memory_utilization: 0.95}
    ```

Example (good):
    ```yaml
    model: {id: meta-llama/Llama-3.1-8B-Instruct}
    engine: {name: vllm, version: "0.19.0"}
    serving:
      roles:
        - role: unified
          context_length: 40960
          accelerators: {type: L4, count: 1}
          available_kv_gib: 5.5                  # "Available KV cache memory" from the boot log
          engine_args: {gpu_memory_utilization: 0.95}
    ```

Options:
    None.
"""
from __future__ import annotations

from typing import Iterator, List, Optional, Tuple

from ctxlint.adapters.workload_inputs import how_to_state_pool
from ctxlint.findings import Problem
from ctxlint.model import DECODE, PREFILL, UNIFIED, Deployment, Role, Source, fmt
from ctxlint.rules._common import max_prompt, max_request
from ctxlint.rules._engine import engine_id
from ctxlint.rules._hardware import accelerator

ID = "CTX210"
NAME = "within-estimate-band"
SEVERITY = "warning"
SCOPE = "deployment"
TAGS = ()
INPUTS = ("advertised.context_window", "advertised.max_output_tokens", "gateway.max_prompt_tokens", "engine",
          "roles[].context_length", "roles[].pool", "roles[].accelerators", "custom_accelerators")
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}

# The boot log line that gives each engine's real pool.
LOG_LINE = {"vllm": "\"GPU KV cache size: N tokens\" (and \"Available KV cache memory\")",
            "sglang": "\"max_total_num_tokens=N\"", "tgi": "\"KV-cache blocks: N, size: 1\"",
            "trtllm": "\"Allocated ... GiB for max tokens in paged KV cache (N)\"",
            "lmdeploy": "the number of KV cache blocks it prints", "llamacpp": "\"llama_kv_cache: size = ... cells\""}


def _needs(dep: Deployment, role: Role) -> List[Tuple[int, str, Source]]:
    """What this role must hold, each with why and where it is written."""
    out: List[Tuple[int, str, Source]] = []
    if role.kind in (UNIFIED, DECODE):
        request = max_request(dep)
        if request is not None:
            window = dep.advertised.context_window
            out.append((request[0], f"the longest request ({request[1]})", window.source))
    if role.kind == PREFILL:
        prompt = max_prompt(dep)
        if prompt is not None:
            out.append((prompt[0], f"the longest prompt ({prompt[1]})", prompt[2]))
    if role.context_length is not None and dep.advertised.context_window is None and not sizes_to_pool(role):
        default = " (the engine's default)" if role.context_default is not None else ""
        out.append((role.context_length.value, f"its context length{default}", role.context_length.source))
    return out


def sizes_to_pool(role: Role) -> bool:
    """The engine's default context follows its KV pool (vLLM `--max-model-len auto`, TGI 3, TensorRT-LLM,
    llama.cpp's fit, LMDeploy): it fits whatever the pool is, so only a pool of nothing is in doubt."""
    return role.context_default is not None and role.context_default.follows_pool


def _inside(dep: Deployment, role: Role) -> Optional[Tuple[int, str, Source]]:
    pool = role.pool
    if pool is None or not pool.unsure:
        return None
    # held against what one request can hold, at either end of the band (Pool.request_floor/request_ceiling)
    inside = [n for n in _needs(dep, role) if pool.request_floor < n[0] <= pool.request_ceiling]
    return max(inside, key=lambda n: n[0]) if inside else None


def check(dep: Deployment, options) -> Iterator[Problem]:
    engine = engine_id(dep) or ""
    log = LOG_LINE.get(engine, "the KV pool its engine logs at boot")
    for role in dep.roles:
        found = _inside(dep, role)
        if found is None:
            if role.pool is not None and role.pool.banded and role.pool.request_floor == 0 and sizes_to_pool(role) \
                    and dep.advertised.context_window is None:
                yield Problem(
                    f"the {role.label} engine sizes its context to its KV pool ({role.context_default.why}), and the "
                    f"pool's estimated band {role.pool.band()} (point {fmt(role.pool.tokens)}) reaches nothing: "
                    f"{_otherwise(0)} ({role.pool.explanation}). Confirm with the engine's log line {log} and state "
                    f"it ({how_to_state_pool(dep.input_format)}) for an exact verdict", role.context_length.source,
                    dep.display_name)
            continue
        need, why, where = found
        pool = role.pool
        if pool.logged is not None:  # a logged figure whose meaning depends on what the deployment does not say
            yield Problem(
                f"{fmt(need)} is inside the band {pool.request_band()} of what one request can hold in the "
                f"{role.label} KV pool {fmt(pool.tokens)} (declared): whether {why} fits depends on how vLLM "
                f"meant the figure ({pool.logged.text}). "
                + (f"State {pool.logged.unknown} for an exact verdict; " if pool.logged.unknown else
                   "The figure gives vLLM's block count only to within a KV cache group's blocks; ")
                + _otherwise(pool.request_floor), where, dep.display_name)
            continue
        band = f"{role.label} KV pool's estimated band {pool.band()} (point {fmt(pool.tokens)})"
        if pool.holds():  # the engine keeps part of the pool back: the band of what one request can hold
            band = (f"estimated band {pool.request_band()} of what one request can hold in the {role.label} KV pool "
                    f"(the pool's band {pool.band()}, point {fmt(pool.tokens)}; "
                    + (f"at the point one request holds {fmt(pool.request)}, " if pool.request > 0 else "")
                    + f"{pool.reserve_text()})")
        yield Problem(
            f"{fmt(need)} is inside the {band}: whether {why} fits depends on {_sizes(dep, role)}terms the estimate "
            f"knows only within a range ({pool.explanation}). Confirm with the engine's log line {log} and state it "
            f"({how_to_state_pool(dep.input_format)}) for an exact verdict; {_otherwise(pool.request_floor)}", where,
            dep.display_name)


def _sizes(dep: Deployment, role: Role) -> str:
    """For a device label naming a family of memory sizes and no size (accelerators.family_device): which sizes
    the band spans, the first thing the estimate does not know."""
    acc = accelerator(dep, role)
    if acc is None or not acc.members:
        return ""
    return f"which of {' and '.join(acc.members)} the device is (the label names no size), and on "


def _otherwise(floor: int) -> str:
    if floor > 0:
        return f"or keep the promise at or below {fmt(floor)}"
    # "at or below 0" is no advice: the band's low end is the engine refusing to start
    return "at the band's low end not one KV block fits and the engine would not start"
