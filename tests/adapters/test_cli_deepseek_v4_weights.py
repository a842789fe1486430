"""DeepSeek-V4 end to end: without a block size its KV cache is not sized (CTX208 says so), but weights that one
GPU cannot hold are an error whatever the KV cache takes. V4-Pro on vLLM at TP 8 holds 98.90 GiB of split weights and 2.73 GiB
that vLLM keeps whole on every rank (physics.gpu_weights.whole_on_each_rank): 101.63 GiB, more than an L40S's
44.52 GiB, so the deployment cannot start (CTX203); before, it was an info that the pool could not be derived."""
from __future__ import annotations

import json

from helpers import run

SCRIPT = """\
#!/bin/sh
#SBATCH --gres=gpu:{gpu}:8
vllm serve deepseek-ai/DeepSeek-V4-{size} --tensor-parallel-size 8 --max-model-len 1048576 --kv-cache-dtype fp8
"""


def _check(tmp_path, gpu: str, size: str):
    path = tmp_path / "serve.sh"
    path.write_text(SCRIPT.format(gpu=gpu, size=size))
    return run(["check", str(path)]), json.loads(run(["audit", str(path), "--format", "json"]).out)["deployments"]


def test_v4_pro_weights_do_not_fit_eight_l40s(tmp_path):
    found, [row] = _check(tmp_path, "l40s", "Pro")
    assert "CTX203 [error] 101.63 GiB > 44.52 GiB: the weights of deepseek-ai/DeepSeek-V4-Pro per GPU (tensor 8 x " \
        "pipeline 1) exceed the memory of one L40S, before any KV cache." in found.out
    assert "CTX208" not in found.out and found.code == 1
    assert row["verdict"] == "weights do not fit"


def test_v4_flash_on_eight_h200_still_asks_for_the_pool(tmp_path):
    found, [row] = _check(tmp_path, "h200", "Flash")
    assert "CTX203" not in found.out
    assert "CTX208 [info] KV pool of unified not declared and not derivable: deepseek-ai/DeepSeek-V4-Flash: " \
        "DeepSeek-V4's compressed attention is sized on vLLM as the releases read lay it out; here state " \
        "--block-size (a multiple of 256, the V4 FlashMLA kernels' block); state the pool" in found.out
    assert row["verdict"] == "unknown"
