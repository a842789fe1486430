"""llama.cpp's `--tensor-split` with no GPU count stated (llamacpp_split.layer_split, tensor_split_devices).

common/arg.cpp reads `-ts 1,1` as one proportion per device (split at `,` and `/`), and load_tensors gives each
layer and its KV to the device whose share of the running sum it falls in (ggml-org/llama.cpp@
0017d6fb63f9590e791a7562b276148f7bd5b7fc:common/arg.cpp; src/llama-model.cpp get_layer_buft_list). A script that
states the device (`default-accelerator:`) but no GPU count was judged as one GPU holding every layer: a false
CTX209 (and CTX203) for a model two A10s hold. Equal shares are a pipeline of that many GPUs; unequal ones, or
devices a CUDA_VISIBLE_DEVICES not known picks, leave the fullest GPU's share unknown (CTX208), as an unknown
`--tensor-parallel-size` does, also under `default-accelerator:`."""
from __future__ import annotations

import json

import pytest

from helpers import run

from ctxlint.adapters.llamacpp_split import tensor_split_devices

MODEL = "/models/Qwen2.5-32B-Instruct-Q4_K_M.gguf"


def script(tmp_path, line: str, name: str = "run.sh"):
    (tmp_path / ".ctxlint.yaml").write_text("default-accelerator: A10\n")
    path = tmp_path / name
    path.write_text(f"#!/bin/bash\n{line}\n")
    return path


def check(path) -> list:
    return run(["check", str(path)]).out.splitlines()


def verdict(path) -> tuple:
    (row,) = json.loads(run(["audit", "--format", "json", str(path)]).out)["deployments"]
    return row["verdict"], row["why_unknown"]


@pytest.mark.parametrize("split", ["--tensor-split 1,1", "-ts 1/1", "-ts 1,1,1,1", "-ts 1,0,1"])
def test_equal_shares_spread_the_layers(tmp_path, split):
    path = script(tmp_path, f"llama-server -m {MODEL} -c 32768 -ngl 99 {split}")
    assert (check(path), verdict(path)) == ([], ("fits", None))


def test_equal_shares_from_the_environment(tmp_path):
    path = script(tmp_path, f"LLAMA_ARG_TENSOR_SPLIT=1,1 llama-server -m {MODEL} -c 32768 -ngl 99")
    assert check(path) == []


UNEVEN = ("CTX208 [info] KV pool of unified not declared and not derivable: the device is stated (A10) but "
          "--tensor-split spreads the layers over GPUs whose count is not stated, in shares ctxlint does not count "
          "(unequal ones, or over the devices a CUDA_VISIBLE_DEVICES not known leaves), and the pool per device "
          "depends on it; capacity checks skip these roles (capacity-not-derivable)")


@pytest.mark.parametrize("line, column", [(f"llama-server -m {MODEL} -c 32768 -ngl 99 -ts 1,2", 1),
                                          (f"llama-server -m {MODEL} -c 32768 -ngl 99 -ts 3,1", 1),
                                          (f"CUDA_VISIBLE_DEVICES=$GPUS llama-server -m {MODEL} -c 32768 -ngl 99 "
                                           "-ts 1,1", 28)])
def test_unequal_shares_leave_the_fullest_gpu_unknown(tmp_path, line, column):
    path = script(tmp_path, line)
    assert check(path) == [f"{path}:2:{column}: {UNEVEN}"]
    assert verdict(path) == ("unknown", "parallel size not known")


def test_unequal_shares_without_a_device(tmp_path):
    path = tmp_path / "run.sh"
    path.write_text(f"#!/bin/bash\nllama-server -m {MODEL} -c 32768 -ngl 99 -ts 1,2\n")
    assert run(["check", "--isolated", str(path)]).out.splitlines() == [
        f"{path}:2:1: CTX208 [info] KV pool of unified not declared and not derivable: no accelerator type is given, "
        "and --tensor-split spreads the layers over GPUs whose count is not stated, in shares ctxlint does not count "
        "(unequal ones, or over the devices a CUDA_VISIBLE_DEVICES not known leaves): the memory the fullest GPU "
        "needs depends on it; at TP 1 one request of 32,768 tokens would need >= 27.6 (band 25.7-30.6) GiB on its "
        "one GPU (the weights, the KV cache and the engine's own memory), which a larger size spreads over its GPUs, "
        "so no need per GPU and no device verdict is given; state the GPU count, and the device; capacity checks "
        "skip these roles (capacity-not-derivable)"]


@pytest.mark.parametrize("line", [
    f"llama-server -m {MODEL} -c 32768 -ngl 99",  # no split: one GPU, as before
    f"llama-server -m {MODEL} -c 32768 -ngl 99 -ts 1,0",  # every layer on the first GPU
    f"llama-server -m {MODEL} -c 32768 -ngl 99 -sm none -ts 1,1",  # one GPU only
    f"CUDA_VISIBLE_DEVICES=0 llama-server -m {MODEL} -c 32768 -ngl 99 -ts 1,1",  # one device: the 2nd share unused
])
def test_one_gpu_still_holds_it_all(tmp_path, line):
    (finding,) = check(script(tmp_path, line))
    assert finding.split(": ", 1)[1].startswith("CTX209 [error] 8.00 GiB > 6.36 GiB: llama.cpp allocates all -c "
                                                "32,768 cells up front")


def test_unknown_tensor_parallel_size_under_a_default_device(tmp_path):
    # vLLM `--tensor-parallel-size $TP` with `default-accelerator:`: the weights were held against one A10 at TP 1
    path = script(tmp_path, "vllm serve Qwen/Qwen2.5-72B-Instruct --tensor-parallel-size $TP --max-model-len 8192",
                  "serve.sh")
    assert check(path) == [
        f"{path}:2:1: CTX208 [info] KV pool of unified not declared and not derivable: the device is stated (A10) but "
        "a parallel size is not known (CTX008 names it), and the pool per device depends on it; capacity checks "
        "skip these roles (capacity-not-derivable)",
        f"{path}:2:61: CTX008 [info] values ctxlint cannot resolve: --tensor-parallel-size ${{TP}} (TP is not set in "
        "the file); the checks that need them are skipped (set them literally) (unresolved-value)"]
    assert verdict(path) == ("unknown", "parallel size not known")


def test_tensor_split_devices():
    class Dev:
        def __init__(self, value):
            self.value = value
    assert tensor_split_devices("3,1", 0) == [3.0, 1.0]
    assert tensor_split_devices("1/1//1", 0) == [1.0, 1.0, 1.0]
    assert tensor_split_devices("1,0,1", 0) == [1.0, 1.0]
    assert tensor_split_devices("1,1,1", 2) == [1.0, 1.0]
    assert tensor_split_devices("1,1", None) == [1.0, 1.0]
    assert tensor_split_devices("1,1", 0, Dev("CUDA0")) == [1.0]
    assert tensor_split_devices("1,1", 0, Dev("$DEV")) is None
    assert tensor_split_devices("a,b", 0) is None
    assert tensor_split_devices(None, 0) is None
