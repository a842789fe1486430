"""GB10 (DGX Spark) profiles vLLM's small batch (2048 tokens, 256 sequences) in every release, though its
121.63 GiB are above the 70 GiB of the large one (vllm_batch.py: by compute capability from 0.33.0, by NVML's
failed memory query before)."""
from __future__ import annotations

from ctxlint.physics.accelerators import lookup_accelerator
from ctxlint.physics.capacity import CapacityInput, estimate
from ctxlint.physics.mem_vllm import batch_defaults
from ctxlint.physics.models import lookup_model


def test_gb10_gets_the_small_batch_in_every_release() -> None:
    total = lookup_accelerator("DGX-Spark").memory_bytes
    for version in ("0.20.0", "0.32.0", "0.33.0", "0.34.0", None):
        assert batch_defaults(total, "GB10", version, False) == ((2048, 256),), version
        assert batch_defaults(total, "H100-custom", version, False) == ((8192, 1024),), version


def test_the_gb10_estimate_profiles_the_small_batch() -> None:
    arch = lookup_model("Qwen/Qwen3-32B")
    r = estimate(CapacityInput(arch, "vllm", "GB10", engine_version="0.33.0"))
    assert "vLLM 0.33.0 V1: profile of 2048 tokens x 256 sequences" in r.assumptions
    # the smaller profile peak leaves more for the KV cache than the 8,192-token batch would
    big = estimate(CapacityInput(arch, "vllm", "GB10", engine_version="0.33.0",
                                 settings={"max_num_batched_tokens": 8192, "max_num_seqs": 1024}))
    assert r.kv_budget_bytes_per_gpu > big.kv_budget_bytes_per_gpu
