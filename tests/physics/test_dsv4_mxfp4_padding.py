"""DeepSeek-V4's MXFP4 experts on vLLM: padded by the MoE backend's alignment (physics.mxfp4_padding), not by the
factor fitted to gpt-oss. With that factor V4-Pro at DP 8 with expert parallelism on 8x H200 weighed 135.38 GiB a
GPU and left no KV cache (CTX201 error on NVIDIA's srt-slurm recipe), where vLLM serves it with a ~1M-token pool a
rank (ai-dynamo/dynamo#13783: 998,218 tokens at 1M context, aggregated 8x H200; vllm-project/recipes#381:
--data-parallel-size 8 --enable-expert-parallel --max-model-len 800000 starts on 8x H200)."""
from __future__ import annotations

import json

from helpers import run

GIB = 2 ** 30


def _weights(model: str, acc: str, n: int, tp: int, dp: int, version: str, *extra: str) -> dict:
    args = ["capacity", "--model", f"deepseek-ai/DeepSeek-V4-{model}", "--engine", "vllm", "--accelerator", acc,
            "--count", str(n), "--tp", str(tp), "--dp", str(dp), "--memory-fraction", "0.95", "--kv-cache-dtype",
            "fp8", "--engine-version", version, "--set", "block_size=256", *extra, "--format", "json"]
    out = json.loads(run(args).out)
    [term] = [t for t in out["terms"] if t["label"] == "weights"]
    return term


def _gib(term: dict) -> str:
    return f"{term['point'] / GIB:.2f} ({term['low'] / GIB:.2f}-{term['high'] / GIB:.2f})"


def test_v4_pro_dp8_ep_on_h200_is_its_checkpoints_share():
    # the recipe's layout (vLLM 0.21.0, TP 1, DP 8, EP, MTP: one draft layer): the experts' 7168 x 3072 shapes are
    # whole on each rank and multiples of 256, so no backend pads them; 791.17 GiB of target weights (+ the MTP
    # layer: 803.9 GiB, as the ~865 GB checkpoint, vllm-project/recipes#779) / 8 for the experts, the rest whole
    term = _weights("Pro", "H200", 8, 1, 8, "0.21.0", "--set", "enable_expert_parallel=true", "--set",
                    "max_num_batched_tokens=512", "--draft-layers", "1")
    assert _gib(term) == "124.20 (123.59-126.63)"  # was 135.38 (131.65-136.62): x 1.09, gpt-oss's padding
    assert "padding" not in term["how"]


def test_v4_flash_tp2_ep_is_the_logged_load():
    # vllm-project/vllm#40821: V4-Flash, vLLM 0.20.1, 2x RTX PRO 6000, --tensor-parallel-size 2
    # --enable-expert-parallel, "Using 'MARLIN' Mxfp4 MoE backend", "Checkpoint size: 148.66 GiB",
    # "Model loading took 74.85 GiB memory"; ctxlint had 83.43 GiB (x 1.14)
    term = _weights("Flash", "rtx-pro-6000", 2, 2, 1, "0.20.1", "--set", "enable_expert_parallel=true", "--set",
                    "max_num_batched_tokens=32768")
    assert _gib(term) == "73.18 (72.82-74.63)"
    assert abs(term["point"] / GIB - 74.85) / 74.85 < 0.025


def test_v4_pro_tp8_is_the_logged_load_and_a_backend_that_pads_widens_the_band():
    # vllm-project/vllm#40899 (comment of 2026-04-27): V4-Pro at TP 8 with Marlin, "~102 GiB / rank"; ctxlint had
    # 115.86 (x 1.14). The intermediate 3072 / 8 = 384 a GPU: Marlin's 128 takes it whole, FlashInfer TRT-LLM's 256
    # (SM100) pads it to 512, a third more expert bytes: the band's top, not the point
    term = _weights("Pro", "H200", 8, 8, 1, "0.21.0", "--set", "max_num_batched_tokens=512")
    assert _gib(term) == "101.63 (101.13-135.51)"
    assert term["how"].endswith("+ 0.00 GiB MXFP4 expert padding (intermediate 384 a GPU)")
    # at TP 16 the 192 a GPU is padded to 256 by Marlin too: the point moves (1547.4e9 x 4.25 / 8 / 16 x 1/3)
    term = _weights("Pro", "H100", 16, 16, 1, "0.21.0", "--set", "max_num_batched_tokens=512")
    assert term["how"].endswith("+ 15.95 GiB MXFP4 expert padding (intermediate 192 a GPU)")


def test_gpt_oss_keeps_its_fitted_padding():
    out = json.loads(run(["capacity", "--model", "openai/gpt-oss-120b", "--engine", "vllm", "--accelerator",
                          "H100", "--count", "1", "--engine-version", "0.11.0", "--format", "json"]).out)
    [term] = [t for t in out["terms"] if t["label"] == "weights"]
    assert term["how"].endswith("x 1.09 (vLLM MXFP4 expert padding)")
