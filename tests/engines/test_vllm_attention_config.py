"""vLLM's --attention-config (-ac) is read, so its `indexer_kv_dtype` sizes MiniMax-M3's index-key cache
(physics/msa_index.py): in the 0.13.0 to 0.34.0 wheels' vllm/engine/arg_utils.py (0.34.0: :1925,
`"--attention-config", "-ac"`). Before, the flag was not in the table and every vLLM deployment was sized with the
bf16 index cache: 45,312 B a token on each of 4 GPUs instead of 38,016 with fp8."""
from __future__ import annotations


import pytest

from ctxlint.engine import lint_paths

_SCRIPT = ("#!/bin/bash\n#SBATCH --gres=gpu:b200:4\n"
           "vllm serve nvidia/MiniMax-M3-NVFP4 --tensor-parallel-size 4 --max-model-len 9472 {extra}\n")


def _pool(tmp_path, extra: str) -> int:
    script = tmp_path / "m3.sh"
    script.write_text(_SCRIPT.format(extra=extra))
    report = lint_paths([str(script)])
    assert not report.findings
    (dep,) = report.deployments
    (role,) = dep.roles
    return role.capacity.pool_tokens


@pytest.mark.parametrize("extra", ["--attention-config '{\"indexer_kv_dtype\": \"fp8\"}'",
                                   "-ac '{\"indexer_kv_dtype\": \"fp8\"}'",
                                   "--attention-config.indexer_kv_dtype fp8"])
def test_fp8_index_cache_holds_more_tokens(tmp_path, extra):
    default = _pool(tmp_path, "")
    fp8 = _pool(tmp_path, extra)
    # 4 x B200 on 178.35 GiB (CUDA's total as read on a B200: pytorch/ao#4002, sglang#25225) less 58.23 GiB of
    # weights a GPU (MXFP8 with NVFP4 experts, its per-layer list: test_minimax_m3.py)
    assert (default, fp8) == (2_396_720, 2_856_704)
