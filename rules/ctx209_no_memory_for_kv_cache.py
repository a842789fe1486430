"""A role whose accelerators leave no memory for even one block of KV cache.

Why:
    The weights fit, but what the engine keeps for itself (its memory fraction,
    the activation peak of its profile run, which in vLLM also runs a
    vision-language model's encoder on its largest image, CUDA graphs, NCCL
    buffers) leaves nothing for the KV cache. The engine refuses to start: vLLM with "No
    available memory for the cache blocks", SGLang with "Not enough memory",
    TensorRT-LLM and TGI with an out-of-memory error during warmup. The message
    shows the estimate's arithmetic; if the engine does start on this hardware,
    state the KV memory it logs (`available_kv_gib`) and ctxlint uses that
    instead. When the weights alone exceed the memory, CTX203 reports it.

    llama.cpp allocates the KV of all its `-c` cells up front, beside the
    weights of the layers on the GPU: with every layer there (`-ngl` above
    the model's layers, which llama.cpp counts with the output layer as one
    more) and nothing to move them (`-fit off`, a build
    before `--fit`, or `--fit`'s abort on an `-ngl` the user set), cells whose
    KV exceeds even the most generous estimate of the memory left make the
    allocation fail, and the finding is at the `-c` value. An unset `-ngl`
    lets `--fit` move layers to the CPU: no finding.

Example (bad):
    ```yaml
    model: {id: meta-llama/Llama-3.1-8B-Instruct}
    engine: {name: vllm, version: "0.19.0"}
    serving:
      roles:
        - role: unified
          context_length: 8192
          accelerators: {type: A10G, count: 1}
          engine_args: {gpu_memory_utilization: 0.7}   # 15.5 GiB for 15 GiB of weights
    ```

Example (good):
    ```yaml
    model: {id: meta-llama/Llama-3.1-8B-Instruct}
    engine: {name: vllm, version: "0.19.0"}
    serving:
      roles:
        - role: unified
          context_length: 8192
          accelerators: {type: A10G, count: 1}
          engine_args: {gpu_memory_utilization: 0.95}
    ```

Options:
    None.
"""
from __future__ import annotations

from typing import Iterator, Sequence

from ctxlint.findings import Diagnostic, Problem
from ctxlint.rules._common import from_diagnostics

ID = "CTX209"
NAME = "no-memory-for-kv-cache"
SEVERITY = "error"
SCOPE = "input"
TAGS = ()
INPUTS = ("engine", "model", "roles[].capacity", "roles[].accelerators", "roles[].parallelism",
          "roles[].engine_args", "custom_accelerators")
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}


def check(diagnostics: Sequence[Diagnostic], options) -> Iterator[Problem]:
    return from_diagnostics(diagnostics, "no-kv-memory")
