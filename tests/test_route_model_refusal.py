"""CTX606 fires only where the engine refuses a model name it does not serve (sources in
rules/ctx606_route_model_not_served.py), and a route whose stated backend cannot be found is not joined to
another engine by model name (lint/stack.py build)."""
from __future__ import annotations

import pytest

from helpers import run

VLLM = ("vllm/vllm-openai:v0.11.0", "--model Qwen/Qwen3-8B --served-model-name qwen --max-model-len 8192")
LMDEPLOY = ("openmmlab/lmdeploy:v0.10.0",
            "lmdeploy serve api_server Qwen/Qwen3-8B --model-name qwen --session-len 8192")
SGLANG = ("lmsysorg/sglang:v0.5.9", "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B "
          "--served-model-name qwen --context-length 8192")
TGI = ("ghcr.io/huggingface/text-generation-inference:3.3.0", "--model-id Qwen/Qwen3-8B --max-total-tokens 8192")
LLAMACPP = ("ghcr.io/ggml-org/llama.cpp:server-cuda", "--model /models/qwen.gguf --ctx-size 8192 -a qwen")
TRTLLM = ("nvcr.io/nvidia/tensorrt-llm/release:1.0.0", "trtllm-serve Qwen/Qwen3-8B --max_seq_len 8192")


def _check(tmp_path, engine, upstream, api_base="http://qwen:8000/v1", select="CTX606"):
    image, command = engine
    (tmp_path / "docker-compose.yml").write_text(
        f"services:\n  qwen:\n    image: {image}\n    command: {command}\n#  sub:\n#    image: {image}\n")
    (tmp_path / "litellm_config.yaml").write_text(
        f"model_list:\n  - model_name: main\n    litellm_params: {{model: openai/{upstream}, api_base: {api_base}}}\n")
    return run(["check", str(tmp_path), "--select", select, "--fail-on", "never", "--format", "text"]).out


def _head(tmp_path, upstream):
    return (f"{tmp_path}/litellm_config.yaml:3:29: CTX606 [error] the LiteLLM route main sends the model name "
            f"{upstream!r} upstream, which the engine behind it does not serve: qwen ({tmp_path}/docker-compose.yml:3) "
            "serves qwen. ")


def test_vllm_refuses_an_unserved_name(tmp_path):
    # vllm==0.34.0:vllm/entrypoints/serve/engine/serving.py _check_model: HTTP 404 "The model `X` does not exist."
    assert _check(tmp_path, VLLM, "other") == _head(tmp_path, "other") + (
        'vLLM answers every request with HTTP 404 "The model `other` does not exist"; use the served name, or add it '
        "with --served-model-name (route-model-not-served)\n")


def test_lmdeploy_refuses_an_unserved_name_and_serves_its_model_name(tmp_path):
    # lmdeploy==0.18.0:lmdeploy/serve/openai/endpoints/common.py validate_request: HTTP 404; --model-name is the name
    # it serves (serve/core/async_engine.py), which before was not read: `qwen` was a false CTX606.
    assert _check(tmp_path, LMDEPLOY, "other") == _head(tmp_path, "other") + (
        "LMDeploy answers every request with HTTP 404 \"The model 'other' does not exist.\"; use the served name, or "
        "set it with --model-name (route-model-not-served)\n")
    assert _check(tmp_path, LMDEPLOY, "qwen") == ""


@pytest.mark.parametrize("adapters,upstream", [("a=/lora/a b=/lora/b", "b"), ("/lora/a", "default")])
def test_lmdeploy_serves_its_adapters_names(tmp_path, adapters, upstream):
    # lmdeploy==0.18.0:lmdeploy/serve/openai/utils.py get_model_list: the model name and the adapters' names
    # (cli/utils.py get_lora_adapters: NAME=PATH, a lone bare PATH is `default`). Before: a false CTX606.
    image, command = LMDEPLOY
    engine = (image, f"{command} --backend pytorch --adapters {adapters}")
    assert _check(tmp_path, engine, upstream) == ""
    assert _check(tmp_path, engine, "other") == _head(tmp_path, "other").replace(
        "serves qwen. ", f"serves qwen, {'a, b' if upstream == 'b' else 'default'}. ") + (
        "LMDeploy answers every request with HTTP 404 \"The model 'other' does not exist.\"; use the served name, or "
        "set it with --model-name (route-model-not-served)\n")


@pytest.mark.parametrize("engine", [SGLANG, TGI, LLAMACPP, TRTLLM], ids=["sglang", "tgi", "llamacpp", "trtllm"])
def test_engines_that_ignore_the_name_are_not_reported(tmp_path, engine):
    # sglang==0.5.23 serving_base.py handle_request; TGI router/src/server.rs chat_completions; llama.cpp
    # server-context.cpp handle_completions_impl; TensorRT-LLM serve/openai_server.py openai_chat: none reads the
    # request's model to refuse it. Before: CTX606 [error] "... Requests get HTTP 404".
    assert _check(tmp_path, engine, "other") == ""


def test_sglang_fails_a_name_it_reads_as_an_adapter(tmp_path):
    # sglang==0.5.23 serving_base.py _parse_model_parameter: "qwen3:8b" is base "qwen3", adapter "8b";
    # managers/tokenizer_manager.py _validate_and_resolve_lora raises ValueError -> HTTP 400.
    assert _check(tmp_path, SGLANG, "qwen3:8b") == _head(tmp_path, "qwen3:8b") + (
        "SGLang reads it as base:adapter and fails every request with HTTP 400 (LoRA adapter '8b' is not loaded); "
        "use the served name, or no colon (SGLang ignores any other name) (route-model-not-served)\n")


def test_a_missing_backend_host_is_not_joined_by_name(tmp_path):
    # The route names host `sub` (commented out); before, it was joined to `qwen` because qwen serves its model
    # name, and nothing was reported. Now it cannot be verified.
    out = _check(tmp_path, VLLM, "qwen", api_base="http://sub:8080/v1", select="CTX606,CTX607")
    assert out == (
        f"{tmp_path}/litellm_config.yaml:3:52: CTX607 [info] cannot verify the LiteLLM route main: host sub "
        f"({tmp_path}/litellm_config.yaml:3) names no Service or engine workload in the checked files of its directory "
        "(routes are not followed into another directory). Its window, output limit and model name were not "
        "compared with any engine; check the backend's files together with the gateway's, in its directory "
        "(route-not-verified)\n")


def test_an_unset_environment_backend_is_still_joined_by_name(tmp_path):
    # os.environ/QWEN_URL states no address: the unique engine serving the name is joined, so no CTX607.
    (tmp_path / "docker-compose.yml").write_text(f"services:\n  qwen:\n    image: {VLLM[0]}\n    command: {VLLM[1]}\n")
    (tmp_path / "litellm_config.yaml").write_text(
        "model_list:\n  - model_name: main\n    litellm_params: {model: openai/qwen, api_base: os.environ/QWEN_URL}\n")
    assert run(["check", str(tmp_path), "--select", "CTX606,CTX607", "--fail-on", "never"]).out == ""


@pytest.mark.parametrize("image, lora, fails", [
    ("lmsysorg/sglang:v0.4.6", "", False), ("lmsysorg/sglang:v0.5.3", "", False),
    ("lmsysorg/sglang:v0.5.4", "", False), ("lmsysorg/sglang:v0.5.8", " --lora-paths ad=/lora/ad", True),
    ("lmsysorg/sglang:v0.5.9", "", True), ("lmsysorg/sglang:latest", "", True)])
def test_sglang_releases_that_fail_an_adapter_name(tmp_path, image, lora, fails):
    # sglang 0.4.6 (srt/openai_api/adapter.py) to 0.5.3.post1 never parse the request's model; 0.5.4-0.5.8 parse
    # "base:adapter" but tokenizer_manager.py drops the adapter unless LoRA is enabled (--lora-paths enables it);
    # 0.5.9 raises "LoRA is not enabled". Before: a CTX606 error for each.
    out = _check(tmp_path, (image, SGLANG[1] + lora), "qwen3:8b")
    assert ("SGLang reads it as base:adapter" in out) is fails, out


@pytest.mark.parametrize("image, served, upstream, fails", [
    # sglang 0.5.9-0.5.22 split the served name itself at its colon: every request fails (LoRA not enabled)
    ("lmsysorg/sglang:v0.5.9", "org/m:v1", "org/m:v1", True), ("lmsysorg/sglang:v0.5.22", "org/m:v1", "org/m:v1", True),
    # 0.5.23 keeps the served name whole (serving_base.py _parse_model_parameter), and reads what follows it
    ("lmsysorg/sglang:v0.5.23", "org/m:v1", "org/m:v1", False), ("lmsysorg/sglang:latest", "org/m:v1", "org/m:v1", False),
    ("lmsysorg/sglang:v0.5.23", "s3://b/m", "s3://b/m:ad", True), ("lmsysorg/sglang:v0.5.4", "org/m:v1", "org/m:v1", False),
    # adapters may be loaded at run time under any name (stack.py _loads_adapters)
    ("lmsysorg/sglang:v0.5.9", "org/m:v1 --enable-lora", "org/m:v1", False),
])
def test_sglang_served_names_with_a_colon(tmp_path, image, served, upstream, fails):
    command = SGLANG[1].replace("--served-model-name qwen", f"--served-model-name {served}")
    out = _check(tmp_path, (image, command), upstream)
    assert ("fails every request with HTTP 400" in out) is fails, out


def test_sglang_reads_the_adapter_after_a_served_name_with_a_colon(tmp_path):
    # 0.5.23: "s3://b/m:ad" is base "s3://b/m", adapter "ad", loaded here: served (before: adapter "//b/m:ad", an error)
    command = SGLANG[1].replace("--served-model-name qwen", "--served-model-name s3://b/m --lora-paths ad=/lora/ad")
    assert _check(tmp_path, ("lmsysorg/sglang:v0.5.23", command), "s3://b/m:ad") == ""
