"""`ctxlint models list/show`: the KV bytes per token a deployment's pool is sized with."""
from __future__ import annotations

from ctxlint.physics.kv import kv_bytes_per_token_per_gpu
from ctxlint.physics.models import arch_from_mapping
from ctxlint.reporters.models import catalog_rows
from ctxlint.resolution.catalog import entries


def test_a_float32_checkpoint_is_listed_with_its_16_bit_kv_as_vllm_serves_it():
    # granite-3.1-8b-instruct's config.json says float32; vLLM's dtype auto serves (and caches KV) in 16 bits,
    # and `capacity` sizes the pool so: the listing said 327,680 B under a "bf16" heading
    rows = {r["id"]: r for r in catalog_rows({})}
    assert rows["ibm-granite/granite-3.1-8b-instruct"]["kv_bytes_per_token"] == 40 * 2 * 8 * 128 * 2
    for entry in entries():
        arch = arch_from_mapping(entry)
        if arch.dtype_bytes == 2 and rows[arch.name]["kv_bytes_per_token"] is not None:  # 16-bit: as before
            assert rows[arch.name]["kv_bytes_per_token"] == kv_bytes_per_token_per_gpu(arch, "vllm")


def test_the_list_gives_the_weight_format_show_and_the_estimates_use(tmp_path):
    # sweep 47: `models list` said 16-bit for nvidia/DeepSeek-V3.1-NVFP4 (its vendored config.json records no
    # quantization) while `models show` and every estimate used NVFP4, read from the name (weight_account.own_weights)
    from ctxlint.resolution.resolve import Context, resolve

    rows = {r["id"]: r for r in catalog_rows({})}
    assert rows["nvidia/DeepSeek-V3.1-NVFP4"]["weights"] == "NVFP4"
    assert rows["deepseek-ai/DeepSeek-V3"]["weights"] == "FP8"  # the checkpoint's own quantization_config
    assert rows["meta-llama/Llama-3.1-8B"]["weights"] == "16-bit"
    ctx = Context(directory=str(tmp_path))
    for model_id, row in rows.items():  # every entry, as `models show ID` resolves it
        found = resolve(model_id, ctx)
        assert (found.weights.label if found.weights is not None else found.arch.weight_format.label) == \
            row["weights"], model_id
