"""SGLang's --max-total-tokens (and TensorRT-LLM's kv_cache_config.max_tokens) cap the pool the engine profiles:
SGLang takes min(profiled, max_total_tokens) ("max_total_tokens=... is larger than the profiled value ... Use the
profiled value instead", engines.md). Sweep 30: `--max-total-tokens 2000000` for Llama-3.1-70B on two A100-80GB
got CTX202 and, in the same audit row, "2,000,000 declared ... fits"."""
from __future__ import annotations

import json

from helpers import run

SCRIPT = """#!/bin/bash
{header}python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-70B-Instruct --tp 4 \\
  --context-length {context} --max-total-tokens {cap}
"""


def _audit(tmp_path, header: str, context: int, cap: int):
    path = tmp_path / "serve.sh"
    path.write_text(SCRIPT.format(header=header, context=context, cap=cap))
    [row] = json.loads(run(["audit", str(path), "--isolated", "--format", "json"]).out)["deployments"]
    return row, run(["check", str(path), "--isolated"]).out


def test_a_cap_above_what_the_device_holds_is_not_the_pool(tmp_path):
    row, out = _audit(tmp_path, "#SBATCH --gres=gpu:h100:4\n", 1_000_000, 2_000_000)
    assert (row["prefill_pool"]["origin"], row["verdict"]) == ("derived", "exceeds")
    assert row["prefill_pool"]["tokens"] < 1_000_000
    assert "CTX202 [error] 2,000,000 > " in out and "CTX201 [error] 1,000,000 > " in out


def test_a_cap_below_what_the_device_holds_is_the_pool(tmp_path):
    row, _ = _audit(tmp_path, "#SBATCH --gres=gpu:h100:4\n", 8192, 20_000)
    assert (row["prefill_pool"]["tokens"], row["prefill_pool"]["origin"], row["verdict"]) == (20_000, "derived", "fits")


def test_without_a_device_only_a_promise_above_the_cap_is_known(tmp_path):
    row, out = _audit(tmp_path, "", 131072, 2_000_000)  # at most 2,000,000: 131,072 may or may not fit
    assert row["prefill_pool"] is None and row["verdict"].startswith("needs >= ")
    assert ("CTX208 [info] KV pool of unified not derivable (--max-total-tokens 2,000,000 only caps the pool the "
            "engine profiles, which may be smaller): no accelerator type") in out
    row, out = _audit(tmp_path, "", 131072, 100_000)  # at most 100,000: 131,072 cannot fit, whatever the device
    assert (row["prefill_pool"]["tokens"], row["prefill_pool"]["origin"], row["verdict"]) == \
        (100_000, "declared", "exceeds")
    assert "CTX201 [error] 131,072 > 100,000" in out
