"""`--quantization` over a quantized checkpoint: vLLM and SGLang load the checkpoint as stored (their
override loops replace the flag) or refuse to start; the flag's format applies only where it quantizes."""
from __future__ import annotations

import pytest

from ctxlint.resolution.quant_flag import decide
from ctxlint.resolution.resolve import Context, resolve
from ctxlint.resolution.weight_account import flag_format
from ctxlint.physics.weights import FORMATS, format_by_key

from tests.helpers import run

NVFP4 = "stepfun-ai/Step-3.7-Flash-NVFP4"  # the catalog has the base; the name says NVFP4


def _script(tmp_path, name: str, line: str) -> str:
    (tmp_path / ".ctxlint.yaml").write_text("default-accelerator: H100\n")
    (tmp_path / name).write_text(f"#!/bin/sh\nexec {line}\n")
    return str(tmp_path / name)


def test_modelopt_flag_on_an_nvfp4_checkpoint_counts_nvfp4_weights(tmp_path) -> None:
    # Before: `modelopt` was read as FP8 weights, 91.68 GiB a GPU at TP 2: a false CTX203 on an H100.
    path = _script(tmp_path, "serve.sh", f"vllm serve {NVFP4} --tensor-parallel-size 2 --quantization modelopt "
                                         "--kv-cache-dtype fp8 --max-model-len 32768")
    result = run(["check", path])
    assert (result.code, result.out) == (0, "")


def test_sglang_modelopt_flag_on_an_nvfp4_checkpoint_counts_nvfp4_weights(tmp_path) -> None:
    path = _script(tmp_path, "serve.sh", f"python3 -m sglang.launch_server --model-path {NVFP4} --tp 2 "
                                         "--quantization modelopt --context-length 32768")
    result = run(["check", path])
    assert (result.code, result.out) == (0, "")


def test_a_flag_vllm_refuses_over_the_checkpoint_is_ctx301_at_the_flag(tmp_path) -> None:
    path = _script(tmp_path, "serve.sh", "vllm serve Qwen/Qwen3-32B-AWQ --quantization fp8 --max-model-len 32768")
    result = run(["check", path])
    assert result.code == 1
    assert result.out == (
        f"{path}:2:51: CTX301 [error] --quantization fp8: vLLM refuses it and does not start, since the checkpoint "
        "of Qwen/Qwen3-32B-AWQ is AWQ 4-bit (quant_method awq or compressed-tensors) and no quantization override "
        "maps fp8 onto it (\"Quantization method specified in the model config (...) does not match the "
        "quantization method specified in the `quantization` argument (fp8)\"). Drop the flag: the engine reads "
        "the method from the checkpoint (engine-rejects-value)\n")


@pytest.mark.parametrize("line", [
    "vllm serve Qwen/Qwen3-32B-AWQ --quantization awq_marlin --max-model-len 32768",  # awq_marlin's override
    "vllm serve Qwen/Qwen3-32B-AWQ --quantization awq --max-model-len 32768",  # the checkpoint's own method
    "vllm serve Qwen/Qwen3-32B --quantization fp8 --max-model-len 32768",  # online FP8 of a 16-bit checkpoint
    f"vllm serve {NVFP4} --tensor-parallel-size 2 --quantization fp8 --max-model-len 32768",  # ModelOpt overrides
    "python3 -m sglang.launch_server --model-path Qwen/Qwen3-32B-AWQ --quantization fp8",  # SGLang: not modelled
])
def test_flags_the_engine_takes_are_no_ctx301(tmp_path, line: str) -> None:
    result = run(["check", _script(tmp_path, "serve.sh", line)])
    assert "CTX301" not in result.out


def test_resolution_says_the_checkpoint_won_and_why() -> None:
    found = resolve(NVFP4, Context(quantization="modelopt", engine="vllm"))
    assert found.weights.key == "nvfp4"
    assert found.how.endswith("; NVFP4 weights (the checkpoint's, over --quantization modelopt: vLLM reads the "
                              "checkpoint's quantization config first, its ModelOpt override turning modelopt "
                              "into modelopt_fp4)")
    refused = resolve("Qwen/Qwen3-32B-AWQ", Context(quantization="fp8", engine="vllm"))
    assert refused.weights.key == "awq"
    assert refused.how.endswith("; AWQ 4-bit weights (the checkpoint's; vLLM refuses --quantization fp8 for it)")


@pytest.mark.parametrize("engine, flag, checkpoint, expected", [
    ("vllm", "modelopt", "nvfp4", ("nvfp4", False)),
    ("vllm", "gptq", "int8", ("int8", False)),  # GPTQ 8-bit: `gptq` names its method, the bits are the checkpoint's
    ("vllm", "awq", "awq-g64", ("awq-g64", False)),  # the group size is the checkpoint's
    ("vllm", "bitsandbytes", "awq", ("awq", True)),
    ("vllm", "fp8", "w4a16-g32", ("w4a16-g32", True)),
    ("vllm", "awq", "fp8", ("fp8", False)),  # a ModelOpt FP8 checkpoint would override it: no certain refusal
    ("vllm", "fp8", "bf16", None),  # an unquantized checkpoint: the flag quantizes it
    ("vllm", "awq", "int4", None),  # a 4-bit checkpoint of unknown layout: the flag says which
    ("vllm", "fp8", "fp8", None),  # the flag names the checkpoint's format
    ("tgi", "fp8", "awq", None),  # other engines: as before
    ("sglang", "modelopt_fp4", "fp8", None),  # SGLang re-quantizes an FP8 checkpoint's experts (kept flag)
    ("sglang", "modelopt", "nvfp4", ("nvfp4", False)),
])
def test_decide(engine, flag, checkpoint, expected) -> None:
    got = decide(engine, flag, format_by_key(checkpoint), flag_format(flag))
    assert (None if got is None else (got[0].key, got[2])) == expected


def test_on_the_cpu_backend_awq_takes_any_flag() -> None:
    # cpu_awq's override answers for any flag on the CPU platform
    assert decide("vllm", "fp8", FORMATS["awq"], flag_format("fp8"), cpu=True)[2] is False


@pytest.mark.parametrize("value", [None, "", "  ", "none", 7])
def test_no_flag_decides_nothing(value) -> None:
    assert decide("vllm", value, FORMATS["awq"], None) is None  # type: ignore[arg-type]


def test_a_mixed_width_checkpoint_loads_as_stored_under_the_modelopt_flag() -> None:
    # nvidia/Qwen3.6-35B-A3B-NVFP4 (an FP8 group and an NVFP4 group) served with `--quantization modelopt`
    # (noonghunna/club-3090#652): vLLM's ModelOpt override takes the checkpoint's own config; the flag read as FP8
    # put every weight at 8 bits, a false CTX203 on the RTX 5090 the log shows serving it
    from ctxlint.physics.quant_config import from_quantization_config

    mixed = from_quantization_config({"quant_method": "modelopt", "config_groups": {
        "group_0": {"weights": {"num_bits": 8, "type": "float"}},
        "group_1": {"weights": {"num_bits": 4, "type": "float", "group_size": 16}}}})
    fmt, why, refused = decide("vllm", "modelopt", mixed, flag_format("modelopt"))
    assert (fmt, refused) == (mixed, False) and why.startswith("FP8/NVFP4 mixed (group targets not read) weights "
                                                                  "(the checkpoint's, over --quantization modelopt")
