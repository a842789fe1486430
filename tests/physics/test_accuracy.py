"""Accuracy table: public engine boot logs (engines.md §1.3, §2.3, §4.3, §5.3)
against ctxlint.physics.

Two checks per case:
* with the KV budget the engine logged, reproduce its token count within 0.5 %;
* from accelerator + settings alone, the derived pool is conservative: at most
  5 % above the logged number (undershooting is allowed and reported).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from ctxlint.physics.capacity import CapacityInput, estimate
from ctxlint.physics.models import ModelArch, arch_from_hf_config, lookup_model

GiB = 1 << 30

# SmolLM2-135M config.json (public HF config, relevant keys).
SMOLLM2_135M = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 576,
                "intermediate_size": 1536, "num_hidden_layers": 30, "num_attention_heads": 9,
                "num_key_value_heads": 3, "vocab_size": 49152, "max_position_embeddings": 8192,
                "tie_word_embeddings": True, "torch_dtype": "bfloat16", "rope_theta": 100000}

# Qwen3.8-27B hybrid as engines.md §1.3 describes it: 16 of 64 layers full
# attention, 4 KV heads x 256. The rest are linear (GDN) layers.
QWEN38_27B = ModelArch(name="Qwen3.8-27B-FP8 (engines.md §1.3)", num_layers=64,
                       layer_kinds=("linear", "linear", "linear", "full") * 16, num_kv_heads=4, head_dim=256,
                       num_attention_heads=24, total_params_b=27, weight_bytes=1.0, source="engines.md §1.3")


@dataclass(frozen=True)
class Case:
    name: str
    source: str
    engine: str
    arch: Any
    logged_tokens: int | None
    logged_budget: float | None          # KV bytes per GPU the engine printed
    accelerator: Any = None              # None: settings-alone check not possible
    tp: int = 1
    draft_layers: int = 0
    kv_cache_dtype: str = "auto"
    settings: dict = field(default_factory=dict)
    context_length: int | None = None
    extra_accelerators: dict | None = None

    def inp(self, with_budget: bool) -> CapacityInput:
        return CapacityInput(arch=self.arch, engine=self.engine, accelerator=self.accelerator, tp=self.tp,
                             kv_cache_dtype=self.kv_cache_dtype, settings=self.settings,
                             available_kv_bytes=self.logged_budget if with_budget else None,
                             context_length=self.context_length, draft_layers=self.draft_layers,
                             extra_accelerators=self.extra_accelerators)


L8 = lookup_model("meta-llama/Llama-3.1-8B-Instruct")
CASES = [
    Case("sglang-h100-llama3.1-8b", "docs.sglang.ai send_request log (engines.md §2.3)", "sglang", L8,
         444_500, (63.72 - 78.81 * (1 - 0.88)) * GiB, "H100",
         settings={"mem_fraction_static": 0.88, "chunked_prefill_size": 8192}, context_length=131072),
    Case("vllm-h100-llama3.1-8b-eagle", "vllm-project/vllm#19996 (engines.md §1.3)", "vllm", L8,
         410_128, 51.63 * GiB, "H100", draft_layers=1, settings={"max_num_batched_tokens": 8192},
         context_length=131072),
    Case("vllm-v0-a100-40gb-llama3-8b", "vllm-project/vllm#12330 (engines.md §1.3)", "vllm",
         lookup_model("Meta-Llama-3-8B"), 5691 * 16, 11.12 * GiB, "A100-40GB",
         settings={"max_num_batched_tokens": 8192}, context_length=8192),  # V0: mnbt = max_model_len
    Case("vllm-v0-rtx3090-llama3.1-8b", "vllm-project/vllm#10517 (engines.md §1.3)", "vllm", L8,
         1952 * 16, 3.81 * GiB),
    Case("vllm-h100-llama3-8b-pr10511", "vllm-project/vllm PR #10511 sanity log (budget only)", "vllm",
         lookup_model("Meta-Llama-3-8B"), None, 53.29 * GiB, "H100", settings={"max_num_batched_tokens": 8192}),
    Case("trtllm-12gib-smollm2-135m", "unattributed public log (engines.md §4.3)", "trtllm",
         arch_from_hf_config(SMOLLM2_135M, "HuggingFaceTB/SmolLM2-135M"), 422_048, 9.06 * GiB, "gpu-12gib",
         extra_accelerators={"gpu-12gib": {"memory_gib": 12}}),
    Case("llamacpp-llama3-8b-ctx8192", "engines.md §5.3 llama_kv_cache log", "llamacpp", L8,
         8192, 1024 * (1 << 20), settings={"ctx_size": 8192}, kv_cache_dtype="f16"),
    Case("vllm-2x3090-qwen3.8-27b-hybrid-fp8", "mitchross/talos-argocd-proxmox PR #1995 (engines.md §1.3); budget back-computed, checks B/token + concurrency only", "vllm",
         QWEN38_27B, 302_921, 302_921 * 16_384, tp=2, kv_cache_dtype="fp8", context_length=131072),
]
IDS = [c.name for c in CASES]


def with_budget_error(c: Case) -> float | None:
    if c.logged_tokens is None:
        return None
    r = estimate(c.inp(with_budget=True))
    return (r.pool_tokens - c.logged_tokens) / c.logged_tokens


def settings_alone_error(c: Case) -> float | None:
    """Relative error of the settings-only estimate (tokens, or budget when no
    token count was logged)."""
    if c.accelerator is None:
        return None
    r = estimate(c.inp(with_budget=False))
    if c.logged_tokens is not None:
        return (r.pool_tokens - c.logged_tokens) / c.logged_tokens
    return (r.kv_budget_bytes_per_gpu - c.logged_budget) / c.logged_budget


@pytest.mark.parametrize("case", [c for c in CASES if c.logged_tokens], ids=lambda c: c.name)
def test_reproduces_logged_tokens_from_logged_budget(case: Case) -> None:
    err = with_budget_error(case)
    assert abs(err) <= 0.005, f"{case.name}: {err:+.3%}"


@pytest.mark.parametrize("case", [c for c in CASES if c.accelerator], ids=lambda c: c.name)
def test_settings_alone_is_conservative(case: Case) -> None:
    err = settings_alone_error(case)
    assert err is not None and err <= 0.05, f"{case.name}: derived {err:+.1%} above the log"


def test_exact_cases() -> None:
    # vLLM EAGLE: 33 layers x 4096 B = 135,168 B/token; 51.63 GiB -> 25,633 blocks.
    r = estimate(CASES[1].inp(True))
    assert (r.kv_bytes_per_token_per_gpu, r.pool_tokens, r.max_concurrency_at_context) == (135_168, 410_128, 3.13)
    # Without the draft layer the same budget gives 422,944 (engines.md §1.3).
    r = estimate(CapacityInput(arch=L8, engine="vllm", available_kv_bytes=51.63 * GiB))
    assert r.pool_tokens == 422_944
    # llama.cpp: 8192 cells x 32 layers x 1024 x 2 x 2 B = 1024 MiB exactly.
    r = estimate(CASES[6].inp(True))
    assert r.pool_tokens == 8192 and 8192 * r.kv_bytes_per_token_per_gpu == 1024 * (1 << 20)
    # Qwen3.8 hybrid: 16 x 4 x 256 x 2 x 1 = 32 KiB/token at TP1, 16 KiB per GPU at TP2;
    # concurrency 302,921 / 131,072 = 2.31x as logged.
    r = estimate(CASES[7].inp(True))
    assert r.kv_bytes_per_token_per_gpu == 16_384 and r.max_concurrency_at_context == 2.31
    r1 = estimate(CapacityInput(arch=QWEN38_27B, engine="vllm", kv_cache_dtype="fp8", available_kv_bytes=GiB))
    assert r1.kv_bytes_per_token_per_gpu == 32_768
    # SGLang: K size = 444,500 x 65,536 B = 27.13 GiB (its "GB" is GiB).
    assert round(444_500 * 32 * 8 * 128 * 2 / GiB, 2) == 27.13
