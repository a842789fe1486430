"""Engine facts read in the engines' own parsers: LMDeploy's `--adapters` and its positional-only model, vLLM's Mamba
state dtypes by release. Each case failed before (sources at the flags in lint/engines/flags_lmdeploy.py and
flags_vllm.py)."""
from __future__ import annotations

import json

import pytest
from helpers import COMPOSE as _COMPOSE
from helpers import compose_refusals as _refused
from helpers import run

from ctxlint.engines import parse_invocation

def _lmdeploy(command: str):
    return parse_invocation("lmdeploy", command.split(), launcher="lmdeploy serve api_server",
                            subcommand="api_server")


@pytest.mark.parametrize("command,adapters", [
    # lmdeploy==0.14.0, 0.16.0, 0.18.0:lmdeploy/cli/utils.py `adapters`: nargs='*', run in each parser
    ("Qwen/Qwen3-8B --backend pytorch --adapters a=/lora/a b=/lora/b --tp 2", ["a=/lora/a", "b=/lora/b"]),
    ("Qwen/Qwen3-8B --adapters /lora/a --tp 2", ["/lora/a"]),
    ("Qwen/Qwen3-8B --adapters --tp 2", []),  # no value is the empty list, no error
])
def test_lmdeploy_adapters_are_read(command, adapters):
    # Before: "unrecognized argument --adapters", its second NAME=PATH an unrecognized positional
    inv = _lmdeploy(command)
    assert inv.settings["adapters"].value == adapters
    assert inv.value("tp") == 2 and inv.model.value == "Qwen/Qwen3-8B"
    assert inv.unknown_flags == ()
    assert [e.message for e in inv.errors] == [
        "unrecognized arguments: --adapters (a spelling from 0.3.0 on: earlier releases have no such flag)"]
    assert inv.errors[0].refused_by("0.2.6") is True and inv.errors[0].refused_by("0.3.0") is False


def test_lmdeploy_adapters_start_in_0_18_and_0_2_refuses_them(tmp_path):
    command = "lmdeploy serve api_server Qwen/Qwen3-8B --backend pytorch --adapters a=/lora/a --session-len 8192"
    assert _refused(tmp_path, "openmmlab/lmdeploy:v0.18.0", command) == []
    assert _refused(tmp_path, "openmmlab/lmdeploy:v0.2.6", command) == [
        "CTX301 [error] lmdeploy 0.2.6 would refuse to start: unrecognized arguments: --adapters (a spelling from "
        "0.3.0 on: earlier releases have no such flag) (engine-rejects-value)"]


def test_lmdeploy_model_path_is_no_flag_of_api_server(tmp_path):
    # lmdeploy==0.14.0/0.16.0/0.18.0 parsers: "lmdeploy: error: unrecognized arguments: --model-path" (the model is
    # read as the positional; no prefix match to --model-name). Before: read as the model, no error.
    command = "lmdeploy serve api_server --model-path Qwen/Qwen3-8B --session-len 8192"
    assert _refused(tmp_path, "openmmlab/lmdeploy:v0.18.0", command) == [
        "CTX301 [error] lmdeploy 0.18.0 would refuse to start: unrecognized arguments: --model-path (dropped in 0.2.0: "
        "lmdeploy serve api_server takes the model as its first positional argument: write `lmdeploy serve "
        "api_server Qwen/Qwen3-8B`) (engine-rejects-value)"]
    inv = _lmdeploy("--model-path Qwen/Qwen3-8B")
    assert inv.model.value == "Qwen/Qwen3-8B" and inv.value("model_name") is None
    assert inv.errors[0].refused_by("0.1.0") is False  # python-fire's CLI took it


def test_lmdeploy_model_is_still_ambiguous():
    # lmdeploy==0.18.0 parser: "ambiguous option: --model could match --model-name, --model-format"; the list here
    # still names --model-path, a flag of the releases before 0.2.0 (the refusal is the same)
    assert [e.message for e in _lmdeploy("m --model x").errors] == [
        "argument --model: ambiguous option: --model could match --model-format, --model-name, --model-path"]


_VLLM = "--model ibm-granite/granite-4.0-h-tiny --max-model-len 8192 "


@pytest.mark.parametrize("typed,tag,said", [
    # vllm==0.16.0 and 0.21.0:vllm/config/cache.py MambaDType has no bfloat16; 0.22.0's has
    ("--mamba-ssm-cache-dtype bfloat16", "v0.16.0",
     "CTX301 [error] vllm 0.16.0 would refuse to start: argument --mamba-ssm-cache-dtype: invalid choice: 'bfloat16' "
     "(a choice from 0.22.0 on: earlier releases choose from auto, float16, float32) (engine-rejects-value)"),
    ("--mamba-cache-dtype bfloat16", "v0.21.0",
     "CTX301 [error] vllm 0.21.0 would refuse to start: argument --mamba-cache-dtype: invalid choice: 'bfloat16' "
     "(a choice from 0.22.0 on: earlier releases choose from auto, float16, float32) (engine-rejects-value)"),
    ("--mamba-cache-dtype bfloat16", "v0.22.0", None),
    ("--mamba-ssm-cache-dtype bfloat16", "v0.26.0", None),
    # float16 from vllm==0.13.0 (0.12.0's MambaDType is auto, float32)
    ("--mamba-cache-dtype float16", "v0.12.0",
     "CTX301 [error] vllm 0.12.0 would refuse to start: argument --mamba-cache-dtype: invalid choice: 'float16' "
     "(a choice from 0.13.0 on: earlier releases choose from auto, float32) (engine-rejects-value)"),
    ("--mamba-cache-dtype float16", "v0.13.0", None),
    # both flags from vllm==0.10.1 (absent from 0.10.0's arg_utils.py)
    ("--mamba-ssm-cache-dtype float32", "v0.10.0",
     "CTX301 [error] vllm 0.10.0 would refuse to start: unrecognized arguments: --mamba-ssm-cache-dtype (a spelling "
     "from 0.10.1 on: earlier releases have no such flag) (engine-rejects-value)"),
    ("--mamba-cache-dtype float32", "v0.10.1", None),
])
def test_vllm_mamba_dtypes_by_release(tmp_path, typed, tag, said):
    assert _refused(tmp_path, f"vllm/vllm-openai:{tag}", _VLLM + typed) == ([said] if said else [])


def test_lmdeploy_model_name_is_the_served_name_not_the_model():
    # lmdeploy==0.18.0:lmdeploy/serve/core/async_engine.py `self.model_name = model_name if model_name else
    # model_path`: --model-name names the API's model, the positional is the model served. Before, MODEL_KEYS took
    # --model-name as the model ('q'), so Qwen/Qwen3-8B was never resolved.
    inv = _lmdeploy("Qwen/Qwen3-8B --model-name q --tp 2")
    assert inv.model.value == "Qwen/Qwen3-8B"
    assert inv.value("model_name") == "q"


def test_lmdeploy_model_name_leaves_the_deployment_on_its_model(tmp_path):
    path = tmp_path / "compose.yaml"
    path.write_text(_COMPOSE.format(image="openmmlab/lmdeploy:v0.18.0",
                                    command="lmdeploy serve api_server Qwen/Qwen3-8B --model-name q"))
    rows = json.loads(run(["audit", "--isolated", "--format", "json", str(path)]).out)["deployments"]
    assert [r["model"] for r in rows] == ["Qwen/Qwen3-8B"]
