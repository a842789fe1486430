"""vLLM 0.34.0's default KV block is 64 tokens, 16 before (vllm_block.py): the pool is whole blocks, the null
block and each request's rounding are one such block, and a hybrid model's attention block is a multiple of it."""
from __future__ import annotations

from ctxlint.physics.capacity import CapacityInput, estimate
from ctxlint.physics.models import lookup_model

L8 = lookup_model("meta-llama/Llama-3.1-8B-Instruct")


def test_the_default_follows_the_release() -> None:
    from ctxlint.physics.vllm_block import block_size, default_block  # here: the old code fails the others on figures

    assert [default_block(v) for v in ("0.9.0", "0.33.0", "0.33.9", "0.34.0", "0.35.1")] == [16, 16, 16, 64, 64]
    assert default_block(None) == 16  # asked with no release (a given budget, not folded): every older log's
    assert block_size({"block_size": 32}, "0.34.0") == 32 and block_size({"block_size": "128"}, "0.30.0") == 128


def test_a_034_pool_is_whole_64_token_blocks_less_one() -> None:
    for version, block in (("0.33.0", 16), ("0.34.0", 64)):
        r = estimate(CapacityInput(L8, "vllm", "L4", engine_version=version, context_length=32_768))
        assert r.block_size == block and r.pool_tokens % block == 0
        assert r.max_context_at_concurrency_1 == r.pool_tokens - block  # the null block is one such block
        assert r.max_context_low % block == 0 and r.max_context_high % block == 0
    # --block-size 16 on 0.34.0 gives back 0.34's budget in 16-token blocks
    r = estimate(CapacityInput(L8, "vllm", "L4", engine_version="0.34.0", settings={"block_size": 16}))
    assert r.block_size == 16 and r.max_context_at_concurrency_1 == r.pool_tokens - 16


def test_an_unknown_release_spans_both_blocks() -> None:
    r = estimate(CapacityInput(L8, "vllm", "L4", context_length=32_768))
    new = estimate(CapacityInput(L8, "vllm", "L4", engine_version="0.34.0", context_length=32_768))
    assert r.pool_high == new.pool_high and r.pool_high % 64 == 0  # the band's top is 0.34.0's, in 64s


def test_a_given_budget_of_a_034_release_is_read_in_64_token_blocks() -> None:
    r = estimate(CapacityInput(L8, "vllm", None, available_kv_bytes=4 * 2**30 + 12345, engine_version="0.34.0"))
    assert r.block_size == 64 and r.pool_tokens == 32_768 and r.max_context_at_concurrency_1 == 32_704


def test_a_hybrid_attention_block_is_a_multiple_of_64_from_034() -> None:
    arch = lookup_model("Qwen/Qwen3-Next-80B-A3B-Instruct")
    old = estimate(CapacityInput(arch, "vllm", "H100", tp=4, engine_version="0.33.0"))
    new = estimate(CapacityInput(arch, "vllm", "H100", tp=4, engine_version="0.34.0"))
    assert old.block_size == 272 and new.block_size == 320  # 16 x 17 and 64 x 5: a page holds one state
    given = estimate(CapacityInput(arch, "vllm", "H100", tp=4, engine_version="0.34.0", settings={"block_size": 16}))
    assert given.block_size == 272  # a --block-size keeps the old multiple (the user's block)
