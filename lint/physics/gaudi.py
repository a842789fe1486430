"""Engines on Intel Gaudi (HPU): their KV memory follows rules ctxlint does not model, so no memory need is given.

ctxlint's memory arithmetic is CUDA's (and ROCm's, which vLLM and SGLang share): the KV budget is the device's
total times the memory fraction, less the weights, the profile run's peak and the runtime's own memory. vLLM's
HPU worker sizes it otherwise: from the memory still free after its profile run, times gpu_memory_utilization,
of which VLLM_GRAPH_RESERVED_MEM (0.1 unless enforce_eager, which makes it 0) is kept for HPU graphs
(HabanaAI/vllm-fork vllm/worker/hpu_worker.py and vllm-project/vllm-gaudi's worker,
determine_num_available_blocks: `cache_size_bytes = free_hpu_memory * gpu_memory_utilization *
(1 - graph_reserved_mem)`); the profile run's peak on an HPU is not known here, nor is TGI's Gaudi backend's
arithmetic. So a need computed with the CUDA rules would be no need at all: CTX208 says why instead, and the KV
memory the engine logs is what to state.
"""
from __future__ import annotations

from typing import Optional

from ctxlint.lazyre import lazy_compile
from ctxlint.model import Role

# the device-plugin resource of Intel Gaudi (Habana's device plugin)
GAUDI_RESOURCE = "habana.ai/gaudi"
# a count of a device plugin's resource (`limits["nvidia.com/gpu"]`): that resource says whose devices the pod gets
_RESOURCE = lazy_compile(r'\["([^"/\]]+/[^"\]]+)"\]$')

_NAMES = {"tgi": "TGI", "sglang": "SGLang", "trtllm": "TensorRT-LLM", "lmdeploy": "LMDeploy", "llamacpp": "llama.cpp"}
_VLLM = ("vLLM's HPU worker sizes its KV cache from the memory free after its profile run x gpu_memory_utilization "
         "x (1 - VLLM_GRAPH_RESERVED_MEM, 0.1 by default), not as on CUDA, and its profile run's peak is not "
         "known here")


def counted_path(role: Role) -> str:
    """Where the role's device count was read (`...limits["nvidia.com/gpu"]`), or `["<resource>"]` when the count
    no longer sits at its resource's key (Accelerators.resource), else ""."""
    count, resource = role.accelerators.count, role.accelerators.resource
    return f'["{resource}"]' if resource is not None else count.source.path if count is not None else ""


def on_gaudi(role: Role) -> str:
    """What says the role's engine runs on Intel Gaudi (its device resource, image, container runtime or a
    Gaudi-only variable: Role.vendor, read only where no device resource is counted), else ""."""
    counted = _RESOURCE.search(counted_path(role))
    if counted is not None:  # another vendor's resource wins over a stray Gaudi variable (need_advice reads it so)
        return f"its {GAUDI_RESOURCE} devices" if counted.group(1) == GAUDI_RESOURCE else ""
    if role.vendor is not None and role.vendor.value == "gaudi":
        said = str(role.vendor.raw or "")
        return "its docker run options" if said.startswith("docker run") or not said else f"as {said} says"
    return ""


def unmodelled(role: Role, engine: Optional[str]) -> str:
    """Why no memory need is given for a role on Gaudi, "" for a role on any other device."""
    why = on_gaudi(role)
    if not why:
        return ""
    how = _VLLM if engine == "vllm" else f"ctxlint models {_NAMES.get(engine or '', engine or 'the engine')}'s " \
        "memory on CUDA devices only"
    return (f"the engine runs on Intel Gaudi ({why}), and {how}; state the KV memory the engine logs "
            "(available_kv_gib)")
