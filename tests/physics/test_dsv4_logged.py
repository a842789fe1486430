"""A "GPU KV cache size" vLLM logged for DeepSeek-V4 (physics.dsv4_logged): not num_blocks x block_size, but
num_blocks // 5 groups x 4 in 0.20.0 and max concurrency x max_model_len from 0.20.1, each read back to vLLM's
blocks and what one request holds of them (vllm#44376's shape: V4-Flash, fp8, block 256, 16,384 batched tokens)."""
from __future__ import annotations

from ctxlint.physics.dsv4_kv import layout, request_blocks
from ctxlint.physics.dsv4_logged import _per_request, read_dsv4
from ctxlint.physics.models import lookup_model

SETTINGS = {"block_size": 256, "max_num_batched_tokens": 16384, "kv_cache_dtype": "fp8"}


def _flash():
    return lookup_model("deepseek-ai/DeepSeek-V4-Flash")


def test_page_sums_vllm_weighs_its_concurrency_by():
    lay = layout(_flash().compress_ratios, 128, 256, 16384, 128, 0)
    # 21 x (37,440 + 8,640) + 20 x 1,728; 43 windows padded to 37,440; 21 x (37,440 + 8,640); 20 x 37,440
    assert lay["page_sums"] == [1002240, 1609920, 967680, 748800]
    # a 30,000-token request: 118 compressed blocks, 2 x 259 window, 4,099 and 2,065 state blocks, weighed
    assert _per_request(lay, 256, 30000) == 6035


def test_0_20_0_logs_a_fifth_of_its_blocks_in_4_token_blocks():
    reading = read_dsv4(5448, _flash(), 0, SETTINGS, 30000, "0.20.0", False)
    assert reading.blocks == (6810, 6814) and (reading.held, reading.high, reading.starts) == (32512, 33536, 32768)
    lay = layout(_flash().compress_ratios, 128, 256, 16384, 128, 0)
    assert request_blocks(lay, 256, 32512) <= 6809 < request_blocks(lay, 256, 32513)
    assert reading.logged_for(30000) == 5444  # 6,800 blocks and the null block: 1,361 x 5 blocks at least


def test_from_0_20_1_the_figure_is_concurrency_times_max_model_len():
    figure = int(6810 / 6035 * 30000)
    reading = read_dsv4(figure, _flash(), 0, SETTINGS, 30000, "0.22.0", False)
    assert figure == 33852 and reading.blocks == (6810, 6810) and reading.held == 32512
    assert reading.text == ("33,852 as vLLM 0.22.0 logs it for DeepSeek-V4: max concurrency x max_model_len, so 6,810 "
                            "blocks; a request takes its compressed blocks and its window and compressor-state "
                            "groups' (dsv4_kv), so one request holds 32,512; one block is vLLM's null block")


def test_a_layout_not_read_leaves_the_figure_as_the_pool():
    assert read_dsv4(5448, _flash(), 0, SETTINGS, 30000, "0.19.1", False) is None
    assert read_dsv4(5448, _flash(), 0, {**SETTINGS, "kv_cache_dtype": "auto"}, 30000, "0.22.0", False) is None
