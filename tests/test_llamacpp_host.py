"""llama.cpp commands that keep part of the model or its KV in host memory get no memory need per GPU
(lint/physics/llamacpp_host.py): the need ctxlint computes is the whole model's on the GPU, and read, e.g.,
"needs >= 381.9 GiB per GPU" for DeepSeek-R1 Q4_K_M run with `-ngl 999 -ot exps=CPU` (sweep c31,
ACupofAir/vllm-benchmark@ebcac650c3e92bda88b036795a604cfeb0a3a524:openwebui/BMG/llama-server-q4km.sh), and the
same for `-ngl 0`. Each case below was "needs >= 6.6 GiB/GPU" before."""
from __future__ import annotations

import pytest

from ctxlint.audit import build_audit
from ctxlint.engine import lint_text

# Meta-Llama-3.1-8B: 32 layers; llama.cpp counts the output layer as one more (33)
SCRIPT = """#!/bin/bash
{header}llama-server -hf bartowski/Meta-Llama-3.1-8B-Instruct-GGUF:Q4_K_M -c 8192 {extra} --port 8080
"""


def _lint(extra: str, header: str = ""):
    return lint_text(SCRIPT.format(extra=extra, header=header), "serve.sh")


def _row(report):
    (row,) = build_audit(report).rows
    return row


def _ctx208(report) -> str:
    (finding,) = [f for f in report.findings if f.rule == "CTX208"]
    return finding.message


@pytest.mark.parametrize("extra", ["-ngl 99", "-ngl 33", "-ngl -1", "-ngl 999", ""])
def test_whole_model_on_the_gpu_keeps_its_need(extra):
    report = _lint(extra)
    assert _row(report).verdict.startswith("needs >= ")
    assert "holding one request of 8,192 tokens needs >= " in _ctx208(report)


@pytest.mark.parametrize("extra, why", [
    ("-ngl 99 -ot blk.1.ffn=CPU", "-ot blk.1.ffn=CPU keeps the tensors it names in host memory"),
    ("-ngl 99 --override-tensor exps=CUDA0,blk.1.ffn=CPU",
     "-ot exps=CUDA0,blk.1.ffn=CPU keeps the tensors it names in host memory"),
    ("-ngl 99 -ot blk.0=CUDA1", "-ot blk.0=CUDA1 puts the tensors it names on a device of its own choosing"),
    ("-ngl 99 -nkvo", "-nkvo keeps the KV cache in host memory"),
    ("--device none", "--device none keeps every layer on the CPU"),
    ("-ngl 20", "-ngl 20 offloads 20 of the 33 layers llama.cpp counts (the model's 32 and its output layer), so "
                "the rest stay on the CPU with their KV"),
    # -ngl equal to the layers keeps one on the CPU (llamacpp_cells.py: n_layer + 1 - ngl)
    ("-ngl 32", "-ngl 32 offloads 32 of the 33 layers llama.cpp counts"),
])
def test_part_in_host_memory_gives_no_need(extra, why):
    report = _lint(extra)
    row = _row(report)
    assert row.verdict == "unknown" and row.why_unknown == "no accelerator type"
    message = _ctx208(report)
    assert "no memory need can be given for 8,192 tokens: llama.cpp does not hold the whole model on the GPU here (" \
        + why in message
    assert "needs >= " not in message and "L4 " not in message
    assert "state the device (`default-accelerator:` in .ctxlint.yaml" in message  # a device still decides


def test_a_stated_device_still_gets_its_verdict():
    report = _lint("-ngl 99 -ot exps=CPU", header="#SBATCH --gres=gpu:l4:1\n")
    assert _row(report).verdict == "fits"
    assert not [f for f in report.findings if f.rule == "CTX208"]


@pytest.mark.parametrize("extra, flag", [("-ngl $NGL", "-ngl"), ('-ngl 99 -ot "$OT"', "-ot"),
                                         ("-ngl 99 --device $DEV", "--device")])
def test_a_placing_flag_not_known_gives_no_need(extra, flag):
    report = _lint(extra)
    assert _row(report).verdict == "unknown"
    message = _ctx208(report)
    assert (f"no memory need can be given for 8,192 tokens: llama.cpp may not hold the whole model on the GPU here "
            f"({flag} is set to a value ctxlint cannot resolve, which may keep part of it in host memory), so the "
            "whole model's need may be too high") in message
    assert "needs >= " not in message


def test_no_layer_offloaded_is_a_cpu_engine():
    """`-ngl 0` offloads no layer: the role is read as a CPU engine (its KV is host memory), so the verdict is unknown
    for that reason, not for want of an accelerator type, and there is no need per GPU."""
    report = _lint("-ngl 0")
    row = _row(report)
    assert row.verdict == "unknown" and row.why_unknown == "CPU engine: KV memory not stated"
    assert "-ngl 0 offloads no layer to a GPU" in _ctx208(report)
    assert "needs >= " not in _ctx208(report)


@pytest.mark.parametrize("extra", ["-ngl 99 --cpu-moe", "-ngl 99 --n-cpu-moe 4", "-ngl 99 -ot exps=CPU",
                                   '-ngl 99 -ot "\\.ffn_(up|down|gate)_exps=CPU"',
                                   '-ngl 99 -ot "blk\\.(1[0-9])\\.ffn_.*_exps\\.=CPU"', "-ngl 99 --n-cpu-moe $N"])
def test_moe_flags_on_a_dense_model_move_nothing(extra):
    """Llama-3.1-8B has no expert tensors: --cpu-moe, --n-cpu-moe and an -ot pattern that names only `exps` tensors
    (LLM_FFN_EXPS_REGEX, common/common.h) match none, so the whole model stays on the GPU and its need stands."""
    report = _lint(extra)
    assert _row(report).verdict.startswith("needs >= ")
    assert "holding one request of 8,192 tokens needs >= " in _ctx208(report)


@pytest.mark.parametrize("extra, why", [
    ('-ngl 99 -ot "blk\\.(1[0-9])\\.ffn_.*=CPU"', "keeps the tensors it names in host memory"),
    ('-ngl 99 -ot "(exps|attn)=CPU"', "keeps the tensors it names in host memory"),
    ("-ngl 99 -ot exps=CPU,blk.0=CPU", "keeps the tensors it names in host memory"),
])
def test_ot_naming_dense_tensors_still_gives_no_need(extra, why):
    message = _ctx208(_lint(extra))
    assert why in message and "needs >= " not in message


MOE = """#!/bin/bash
llama-server -hf unsloth/Qwen3-30B-A3B-GGUF:Q4_K_M -c 8192 {extra} --port 8080
"""


@pytest.mark.parametrize("extra, why", [
    ("-ngl 99 --cpu-moe", "--cpu-moe keeps every layer's MoE experts in host memory"),
    ("-ngl 99 --n-cpu-moe 4", "--n-cpu-moe 4 keeps the MoE experts of the first 4 layers in host memory"),
    ("-ngl 99 -ot exps=CPU", "-ot exps=CPU keeps the tensors it names in host memory"),
])
def test_moe_flags_on_a_moe_model_give_no_need(extra, why):
    message = _ctx208(lint_text(MOE.format(extra=extra), "serve.sh"))
    assert "no memory need can be given for 8,192 tokens: llama.cpp does not hold the whole model on the GPU here (" \
        + why in message
    assert "needs >= " not in message


@pytest.mark.parametrize("extra, why", [
    ("-ngl 99 --rpc 10.0.0.2:50052,10.0.0.3:50052",
     "llama.cpp does not hold the whole model on this host's GPUs here (--rpc 10.0.0.2:50052,10.0.0.3:50052 adds the "
     "devices of 2 remote rpc-servers, which take a share of the layers, split by each device's free memory, which "
     "for a remote server is not in the file), so the whole model's need would be too high"),
    ("-ngl 99 --rpc 10.0.0.2:50052 -ts 3,1",
     "(--rpc 10.0.0.2:50052 adds the devices of 1 remote rpc-server, which take a share of the layers, split by "
     "--tensor-split 3,1 over the remote devices first and then the local ones, and how many devices each server "
     "exposes is not in the file)"),
    ('-ngl 99 --rpc "$RPC_SERVERS"',
     "llama.cpp may not hold the whole model on this host's GPUs here (--rpc is set to a value ctxlint cannot "
     "resolve, which may add remote rpc-server devices that take a share of the layers)"),
])
def test_rpc_servers_take_a_share_the_file_cannot_settle(extra, why):
    # ggml-org/llama.cpp@b11434: --rpc registers each server's devices (common/arg.cpp add_rpc_devices), put first in
    # the model's device list (src/llama.cpp), and load_tensors splits the offloaded layers over every device by its
    # free memory or --tensor-split; before, the role read "needs >= ... GiB/GPU" as if all sat on the local GPUs
    report = _lint(extra)
    row = _row(report)
    assert row.verdict == "unknown" and row.why_unknown == "no accelerator type"
    message = _ctx208(report)
    assert "no memory need can be given for 8,192 tokens: " in message and why in message
    assert "needs >= " not in message


def test_an_empty_rpc_list_adds_no_device():
    assert _row(_lint('-ngl 99 --rpc ""')).verdict.startswith("needs >= ")


@pytest.mark.parametrize("extra", ["-ngl 99 --rpc 10.0.0.2:50052 --device CUDA0",
                                   "-ngl 99 --rpc 10.0.0.2:50052,10.0.0.3:50052 --device CUDA0,CUDA1"])
def test_a_device_list_without_rpc_devices_keeps_the_need(extra):
    # ggml-org/llama.cpp src/llama.cpp: a given --device list is the model's device list as is; only the default list
    # puts the RPC servers first, so --device naming local GPUs alone leaves every offloaded layer on them
    assert _row(_lint(extra)).verdict.startswith("needs >= ")


def test_a_device_list_naming_an_rpc_device_keeps_it_unknown():
    assert "remote rpc-server" in _ctx208(_lint("-ngl 99 --rpc 10.0.0.2:50052 --device RPC0,CUDA0"))
