"""A script function whose launch runs once per call gives a role per call, all starting at the body's line, so
a message that lists the roles named the same place twice (sweep 27: vLLM's benchmarks/auto_tune/auto_tune.sh,
copied in neosun100/kimi-linear-vllm-docker-serve, calls start_server in a loop and after it, and its two
launches under an `if` on a directory set by the caller listed "unified (line 100, column 13), unified (line 104,
column 13), unified (line 100, column 13), unified (line 104, column 13)"). Each label is now said once."""
from __future__ import annotations

from helpers import run

# modelled on auto_tune.sh's start_server: two launches under an `if` ctxlint cannot decide, called in a loop and
# once more with a value the loop picked
TUNE = """#!/bin/bash
MODEL=${MODEL:-"meta-llama/Llama-3.1-8B-Instruct"}

start_server() {
    if [[ -n "$PROFILE_DIR" ]]; then
        VLLM_TORCH_PROFILER_DIR=$PROFILE_DIR vllm serve "$MODEL" --max-num-seqs $1 &
    else
        vllm serve "$MODEL" --max-num-seqs $1 &
    fi
}

for seqs in 128 256; do
    start_server $seqs
done
start_server $best_seqs
"""


def test_each_role_label_is_listed_once(tmp_path):
    path = tmp_path / "auto_tune.sh"
    path.write_text(TUNE)
    out = run(["check", "--isolated", "-q", str(path)]).out
    assert out == (
        f"{path}:6:46: CTX208 [info] KV pool of unified (line 6, column 46), unified (line 8, column 9) not declared "
        "and not derivable: no accelerator type (or available_kv_gib) is given; holding one request of 131,072 "
        "tokens needs >= 36.3 (band 33.2-37.7) GiB per GPU at TP 1 (L4 no, A10G no, L40S yes, A100-40GB yes, "
        "A100-SXM4-80GB yes, H100-SXM-80GB yes, H200 yes, B200 yes, MI300X yes); state the device "
        "(`default-accelerator:` in .ctxlint.yaml, or a Slurm header naming a type such as `#SBATCH "
        "--gres=gpu:h100:4` for a batch script; a site's `a100` or `v100` comes in two memory sizes and is checked "
        "over both); capacity checks skip these roles (capacity-not-derivable)\n")


def test_role_list_keeps_distinct_texts_in_order():
    from types import SimpleNamespace

    from ctxlint.model import role_list

    roles = [SimpleNamespace(label=label) for label in ("prefill", "decode (line 9)", "prefill", "decode (line 9)")]
    assert role_list(roles) == "prefill, decode (line 9)"
    # a role said with its own text stays once per distinct text
    assert role_list(roles, lambda r: "x") == "prefill x, decode (line 9) x"
