"""An unresolved vLLM --data-parallel-size of a MoE model: vLLM shards the experts over TP x DP GPUs (with or without
--enable-expert-parallel; physics/served.expert_split), so what one GPU needs depends on it, and no per-GPU need
at TP 1 is given. Sweep 22c: ai-dynamo/dynamo's components/backends/vllm/launch/dsr1_dep.sh (as in
yuekaizhang/dynamo@e3619ce0990675b2952e2ab22cf614279a8c6403) launches DeepSeek-R1 with
`--data_parallel_size $DATA_PARALLEL_SIZE --enable-expert-parallel`, DATA_PARALLEL_SIZE=$((NUM_NODES *
GPUS_PER_NODE)) from its own arguments, and read "needs >= 668.4 GiB per GPU at TP 1" (all 256 experts on one GPU).
The scripts below are written for the test, in that shape."""
from __future__ import annotations

import json

from helpers import run

SCRIPT = ("#!/bin/bash\nDP=$((NUM_NODES * GPUS_PER_NODE))\n"
          "vllm serve {model} --data-parallel-size {dp} {ep}--max-model-len 32768\n")

MOE = ("{path}:3:1: CTX208 [info] KV pool of unified not declared and not derivable: no accelerator type is given, "
       "and the data-parallel size is stated but not known (CTX008 names it): the memory one GPU needs depends on it "
       "(vLLM shards a MoE model's experts over TP x DP); at TP 1 one request of 32,768 tokens would need >= {point} "
       "GiB on its one GPU (the weights, the KV cache and the engine's own memory), whose experts a larger size "
       "spreads over more GPUs, so no need per GPU and no device verdict is given; state the size literally, and "
       "the device; capacity checks skip these roles (capacity-not-derivable)")


def _first(tmp_path, model: str, dp: str, ep: str = "") -> str:
    path = tmp_path / "serve.sh"
    path.write_text(SCRIPT.format(model=model, dp=dp, ep=ep))
    return run(["check", "--isolated", "-q", str(path)]).out.splitlines()[0].replace(str(path), "{path}")


def test_an_unknown_dp_of_a_moe_model_gives_no_per_gpu_need(tmp_path):
    for ep in ("--enable-expert-parallel ", ""):  # the experts are split over TP x DP either way
        first = _first(tmp_path, "Qwen/Qwen3-30B-A3B", "$DP", ep)
        assert first == MOE.format(path="{path}", point="73.6 (band 61.8-77.3)"), first


def test_the_audit_says_the_parallel_size_is_not_known(tmp_path):
    path = tmp_path / "serve.sh"
    path.write_text(SCRIPT.format(model="Qwen/Qwen3-30B-A3B", dp="$DP", ep="--enable-expert-parallel "))
    row = json.loads(run(["audit", "--isolated", "--format", "json", str(path)]).out)["deployments"][0]
    assert (row["verdict"], row["why_unknown"]) == ("unknown", "parallel size not known")


def test_a_dense_model_or_a_stated_dp_keeps_its_per_gpu_need(tmp_path):
    # DP replicates a dense model whole: the need per GPU does not depend on it
    dense = _first(tmp_path, "Qwen/Qwen3-32B", "$DP")
    assert "needs >= " in dense and "GiB per GPU at TP 1 (" in dense and "data-parallel" not in dense, dense
    stated = _first(tmp_path, "Qwen/Qwen3-30B-A3B", "4", "--enable-expert-parallel ")
    assert "needs >= " in stated and "GiB per GPU at TP 1 (" in stated and "data-parallel" not in stated, stated
