"""Does one engine span several pods or nodes: a Slurm batch job's nodes (spans_job), a group's pods (spans_group),
by its own settings or a Ray cluster (joins). Only a group of pods or a multi-node batch job asks, so these are apart
from workload_devices.Devices (its count and pods_alone), whose thin methods of the same names import this module on
the first such question: a run of single pods never loads it. They were Devices methods and keep `self` (the
Devices reading the container) as their first parameter, so that their code reads as it did."""
from __future__ import annotations

from typing import Optional

from ctxlint.adapters.engine_roles import STATED

# vLLM's settings that make a pod part of an engine over several (engines/flags_vllm.py): the mp executor's nodes
# and rank, a headless node, a data-parallel deployment's address and this pod's share of its ranks
_VLLM_JOINS = ("node_rank", "master_addr", "headless", "data_parallel_address", "data_parallel_size_local",
               "data_parallel_rank", "data_parallel_start_rank")


def spans_job(self, inv) -> Optional[bool]:
    """Does the engine a Slurm batch script starts span the job's nodes? vLLM and SGLang as a group's pods that
    all run it (spans_group); TGI's shards and llama.cpp's server stay on their node; None: another engine,
    which may (TensorRT-LLM under MPI)."""
    if inv.engine in ("sglang", "vllm"):
        if self.joins(inv):
            return True
        # `--distributed-executor-backend ray` (or RAY_ADDRESS set) with the cluster started elsewhere, a sourced
        # script's `ray start` (KempnerInstitute's multi-node recipes): it may hold the job's nodes, or not
        backend = inv.settings.get("distributed_executor_backend")
        assigns = getattr(self, "assigns", None) or {}
        ray = (backend is not None and backend.value == "ray") or "RAY_ADDRESS" in assigns \
            or "RAY_ADDRESS" in self.env
        return None if inv.engine == "vllm" and ray else False
    return False if inv.engine in ("tgi", "llamacpp") else None


def spans_group(self, inv) -> bool:
    """Does one engine span the group's pods? A LeaderWorkerSet starts them and sets only LWS_* variables
    (Container.group_alike); the engine decides. SGLang spans nodes only with `--nnodes` above its default 1
    (`nnodes: A[int, "The number of nodes.", NS("parallel")] = 1`, sgl-project/sglang@
    001067fffe33427bee0ed2f007fb7551a1d76b44:python/sglang/srt/server_args.py; its ranks over them by
    `_calculate_rank_ranges(server_args.nnodes, ...)`, entrypoints/engine.py): without it each pod is a
    server. vLLM spans them when its pods form a Ray cluster (`ray start` here) or its flags join them
    (`--nnodes`, `--node-rank`, `--headless`, data-parallel ranks over pods: _VLLM_JOINS); pods that all run
    `vllm serve` with none of these are servers of their own, while a leader template's engine keeps its
    workers (they join it: LWS's vLLM recipe starts Ray in a script). A `--nnodes` whose value is not known
    may span them."""
    alike = self.c.group_alike
    if alike is None or inv.engine not in ("sglang", "vllm"):
        return True
    return self.joins(inv) or (inv.engine == "vllm" and not alike)


def joins(self, inv) -> bool:
    """Do the engine's settings (or a Ray cluster the container starts) join it to other nodes' (spans_group)?"""
    names = ("nnodes",) + (_VLLM_JOINS if inv.engine == "vllm" else ())
    joins = [(n, s) for n, s in ((n, inv.settings.get(n)) for n in names)
             if s is not None and s.origin in STATED and s.value is not False]
    # a stated --nnodes of 1 is one node; one not known may be more
    together = any(not (n == "nnodes" and isinstance(s.value, int) and s.value <= 1) for n, s in joins)
    return together or (inv.engine == "vllm" and self.ray_cluster)
