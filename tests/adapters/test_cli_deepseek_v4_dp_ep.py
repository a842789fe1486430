"""DeepSeek-V4-Pro on 8x H200 at DP 8 with expert parallelism (vLLM 0.21.0), end to end: the weights are the
checkpoint's share, 124.20 GiB a GPU with the MTP layer, and leave a ~1M-token pool a rank (ai-dynamo/dynamo#13783
logged 998,218 tokens at 1M context on 8x H200). ctxlint multiplied them by gpt-oss's MXFP4 padding (x 1.09:
135.38 GiB) and said no KV block fits: a CTX201 error on a layout vLLM serves (vllm-project/recipes#381)."""
from __future__ import annotations

import json

from helpers import run

SCRIPT = """\
#!/bin/sh
#SBATCH --gres=gpu:h200:8
docker run --gpus all vllm/vllm-openai:v0.21.0 deepseek-ai/DeepSeek-V4-Pro --tensor-parallel-size 1 \\
  --data-parallel-size 8 --enable-expert-parallel --kv-cache-dtype fp8 --block-size 256 \\
  --gpu-memory-utilization 0.95 --max-model-len 9472 --max-num-batched-tokens 512 \\
  --speculative-config '{"method":"mtp","num_speculative_tokens":2}'
"""


def test_v4_pro_dp8_ep_on_eight_h200_is_no_error(tmp_path):
    path = tmp_path / "serve.sh"
    path.write_text(SCRIPT)
    found = run(["check", "--isolated", str(path)])
    [row] = json.loads(run(["audit", "--isolated", str(path), "--format", "json"]).out)["deployments"]
    assert found.code == 0 and "CTX201" not in found.out
    assert "CTX210 [warning] 9,472 is inside the estimated band 192-1,415,680 of what one request can hold in the " \
        "unified KV pool (the pool's band 22,016-1,475,840, point 999,168; at the point one request holds 939,008, " \
        "of its 999,168: " in found.out
    assert "KV budget per GPU 5.39 GiB (instance memory 132.43 GiB - weights 124.20 GiB - activation peak 1.14 GiB " \
        "- non-torch 1.00 GiB - CUDA graphs 0.70 GiB) / 5,789 B per token per GPU = 999,168 tokens)" in found.out
    assert (row["engine_version"], row["verdict"], row["prefill_pool"]["tokens"]) == ("0.21.0", "within band", 999_168)
