"""Python modules run as an engine's server under another name, and `uv run -m MODULE` (sweep c32).

SkyRL's remote inference server builds vLLM's OpenAI API server parser (make_arg_parser on a FlexibleArgumentParser),
AsyncEngineArgs.from_cli_args and UsageContext.OPENAI_API_SERVER, adding endpoints of its own
(NovaSky-AI/SkyRL@f2425e808e8c:skyrl/backends/skyrl_train/inference_engines/vllm/vllm_server.py); its examples
start it with uv's module flag: yumc-afk/SkyRL@bafdbb5db698:skyrl-train/examples/remote_inference_engine/
run_vllm_server.sh (`uv run --isolated --extra vllm -m skyrl_train.inference_engines.vllm.vllm_server --model
Qwen/Qwen2.5-1.5B-Instruct --tensor-parallel-size 4 ... --max-model-len 4096`), which ctxlint read as no launch."""
from __future__ import annotations

import pytest

from tests.engines.test_parse import parse_shell

SKYRL = ("skyrl_train.inference_engines.vllm.vllm_server",
         "skyrl.backends.skyrl_train.inference_engines.vllm.vllm_server")


@pytest.mark.parametrize("module", SKYRL)
@pytest.mark.parametrize("runner", ["python -m", "uv run --isolated --extra vllm -m", "uv run --module",
                                    "CUDA_VISIBLE_DEVICES=4,5,6,7 uv run --isolated --extra fsdp -m"])
def test_skyrl_server_is_the_api_server_module(module, runner):
    inv, _, _ = parse_shell(f"{runner} {module} --model Qwen/Qwen2.5-1.5B-Instruct --tensor-parallel-size 4 "
                            "--max-model-len 4096 --enable-sleep-mode --worker-extension-cls a.B")
    assert (inv.engine, inv.launcher, inv.model.value, inv.value("tensor_parallel_size"),
            inv.value("max_model_len")) == ("vllm", "vllm.entrypoints.openai.api_server",
                                            "Qwen/Qwen2.5-1.5B-Instruct", 4, 4096)
    assert not inv.errors


def test_the_api_server_module_takes_no_positional_model():
    inv, _, _ = parse_shell(f"python -m {SKYRL[0]} Qwen/Qwen2.5-1.5B-Instruct")
    assert inv.errors  # the module's parser exits on the word, as the API server module's does


def test_uv_run_module_is_python_m():
    inv, _, _ = parse_shell("uv run -m vllm.entrypoints.openai.api_server --model m --max-model-len 8192")
    assert (inv.engine, inv.launcher, inv.value("max_model_len")) == ("vllm", "vllm.entrypoints.openai.api_server",
                                                                     8192)
    inv, _, _ = parse_shell("uv run --with sglang -m sglang.launch_server --model-path m --context-length 4096")
    assert (inv.engine, inv.value("context_length")) == ("sglang", 4096)


def test_uv_run_of_another_module_starts_nothing():
    with pytest.raises(AssertionError, match="no engine found"):
        parse_shell("uv run --isolated --extra vllm -m skyrl_train.entrypoints.main_base trainer.epochs=1")


@pytest.mark.parametrize("launch,engine,subcommand", [
    ("uv run -m vllm.entrypoints.cli.main serve m --max-model-len 8192", "vllm", "serve"),
    ("uv run --extra vllm -m vllm.entrypoints.cli.main serve m --max-model-len 8192", "vllm", "serve"),
    ("uv run -m lmdeploy serve api_server m --session-len 8192", "lmdeploy", "api_server")])
def test_uv_run_module_reads_every_module_python_m_reads(launch, engine, subcommand):
    # `python -m vllm.entrypoints.cli.main serve` (the `vllm` console script's module) and `python -m lmdeploy serve
    # api_server` are launches; uv's -m runs the module as python -m does
    inv, _, _ = parse_shell(launch)
    assert (inv.engine, inv.subcommand, inv.model.value) == (engine, subcommand, "m")
