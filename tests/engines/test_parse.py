"""Per-engine parsing: spellings, forms, env, defaults, duplicates, errors, unresolved."""
from __future__ import annotations

import pytest

from ctxlint.engines.detect import detect
from ctxlint.engines.images import engine_from_image, image_entrypoint_is_engine
from ctxlint.engines.parse import parse_invocation
from ctxlint.engines.result import Problem
from ctxlint.engines.execform import split_list
from ctxlint.engines.shellwords import split_shell


def parse_shell(s, env=None, image=None, args_only=False):
    r = split_shell(s, (env or {}).get)
    for c in r.commands:
        for d in detect(c.tokens, image, args_only):
            return parse_invocation(d.engine, c.tokens, env, d.launcher, d.subcommand, d.args_start), c, s
    raise AssertionError("no engine found")


# (command line, canonical name, expected value, expected source slice of the value)
CASES = [
    ("vllm serve m --max-model-len=128k", "max_model_len", 128_000, "128k"),
    ("vllm serve m --max_model_len 128K", "max_model_len", 131_072, "128K"),
    ("vllm serve m --max-model-len auto", "max_model_len", -1, "auto"),
    ("vllm serve m -tp 4", "tensor_parallel_size", 4, "4"),
    ("vllm serve m -pp=2", "pipeline_parallel_size", 2, "2"),
    ("python3 -m vllm.entrypoints.openai.api_server --model m --gpu-memory-utilization 0.95",
     "gpu_memory_utilization", 0.95, "0.95"),
    ("vllm serve m --no-enable-prefix-caching", "enable_prefix_caching", False, None),
    ("vllm serve m --max-num-batched-tokens 16k", "max_num_batched_tokens", 16_000, "16k"),
    ("python -m sglang.launch_server --model-path m --context-length 1M", "context_length", 1_000_000, "1M"),
    ("python -m sglang.launch_server --model-path m --tp 8", "tp_size", 8, "8"),
    ("python -m sglang.launch_server --model m --tp-size=2", "tp_size", 2, "2"),
    ("python -m sglang.launch_server --model-path m --disaggregation-mode prefill", "disaggregation_mode",
     "prefill", "prefill"),
    ("python -m sglang.launch_server --model-path m --chunked-prefill-size -1", "chunked_prefill_size", -1, "-1"),
    ("text-generation-launcher --model-id m --max-input-length 4096", "max_input_length", 4096, "4096"),
    ("text-generation-launcher --max-total-tokens=8192", "max_total_tokens", 8192, "8192"),
    ("text-generation-launcher --sharded true --num-shard 2", "sharded", True, "true"),
    ("trtllm-serve serve m --max_seq_len 32768 --tp_size 4", "max_seq_len", 32768, "32768"),
    ("trtllm-serve m --kv_cache_free_gpu_memory_fraction 0.8", "kv_cache_free_gpu_memory_fraction", 0.8, "0.8"),
    ("llama-server -m x.gguf -c 16384 -np 4", "ctx_size", 16384, "16384"),
    ("llama-server -m x.gguf --ctx-size 128k", "ctx_size", 128, "128k"),
    ("llama-server -m x.gguf -np 4 --kv-unified", "kv_unified", True, None),
    ("lmdeploy serve api_server m --session-len 32768 --tp 2", "session_len", 32768, "32768"),
    ("lmdeploy serve api_server m --role Prefill", "role", "Prefill", "Prefill"),
    ("python3 -m dynamo.vllm --model m --is-prefill-worker", "is_prefill_worker", True, None),
    ("python3 -m dynamo.trtllm --model-path m --max-seq-len 8192", "max_seq_len", 8192, "8192"),
    ("python3 -m dynamo.sglang --model-path m --context-length 32Ki", "context_length", 32768, "32Ki"),
]


@pytest.mark.parametrize("line,name,value,raw", CASES)
def test_shell_form(line, name, value, raw):
    inv, cmd, s = parse_shell(line)
    st = inv.settings[name]
    assert st.value == value and st.origin == "flag"
    if raw is not None:
        assert s[st.value_span[0]:st.value_span[1]] == raw
    # the newest reading; a refusal only earlier releases make (int_eras.py, Problem.until) waits for the release
    assert not [e for e in inv.errors if e.until is None]


@pytest.mark.parametrize("line,name,value,raw", CASES)
def test_list_form_same_result(line, name, value, raw):
    items = line.split()
    r = split_list(items)
    c = r.commands[0]
    d = detect(c.tokens)[0]
    inv = parse_invocation(d.engine, c.tokens, {}, d.launcher, d.subcommand, d.args_start)
    st = inv.settings[name]
    assert st.value == value
    if raw is not None:
        assert items[st.item][st.value_span[0]:st.value_span[1]] == raw


def test_models_positional_and_flag():
    assert parse_shell("vllm serve org/m --port 1")[0].model.value == "org/m"
    assert parse_shell("lmdeploy serve api_server org/m")[0].model.value == "org/m"
    assert parse_shell("trtllm-serve serve org/m")[0].model.value == "org/m"
    assert parse_shell("python -m sglang.launch_server --model-path org/m")[0].model.value == "org/m"
    assert parse_shell("text-generation-launcher --model-id org/m")[0].model.value == "org/m"


def test_duplicates_last_wins_both_spans():
    inv, _, s = parse_shell("vllm serve m --max-model-len 4096 --max-model-len=8192")
    assert inv.value("max_model_len") == 8192
    (d,) = inv.duplicates
    assert s[slice(*d.span)] == "--max-model-len=8192" and s[slice(*d.other_span)] == "--max-model-len"


def test_errors_quote_engine_text():
    inv, _, s = parse_shell("python -m sglang.launch_server --model-path m --context-length 128K")
    (e,) = inv.errors
    assert "Suffixes are case-sensitive" in e.message and s[slice(*e.span)] == "128K"
    inv, _, _ = parse_shell("vllm serve m --max-model-len 1.5K")
    assert "Decimals are not allowed with binary suffixes like K" in inv.errors[0].message
    inv, _, _ = parse_shell("vllm serve m --kv-transfer-config '{bad'")
    assert inv.errors and inv.errors[0].flag == "kv_transfer_config"
    inv, _, _ = parse_shell("vllm serve m --max-model-len")
    assert "expected one argument" in inv.errors[0].message


def test_unknown_flags_kept_with_spans():
    inv, _, s = parse_shell("vllm serve m --frobnicate 3 --tp 2")
    u, tp = inv.unknown_flags
    assert s[slice(*u.span)] == "--frobnicate" and s[slice(*tp.span)] == "--tp"
    assert inv.value("tensor_parallel_size") == 1  # `--tp` is not a vLLM spelling (no abbreviation)
    assert any(x.flag == "--tp" for x in parse_shell("vllm serve m --tp 2")[0].unknown_flags)


def test_vllm_abbreviations_are_read_as_argparse_reads_them():
    # sweep 11: kubernetes-sigs/gateway-api-inference-extension runs vLLM v0.11.0 with `--max-num-seq 1024`;
    # FlexibleArgumentParser keeps argparse's prefix matching (vllm/utils/argparse_utils.py never passes
    # allow_abbrev=False), after turning underscores into dashes. Before, both were unknown flags and the
    # defaults (256 sequences, the model's full context) were used.
    inv, _, s = parse_shell("vllm serve m --max-num-seq 1024 --max_model 16000")
    assert inv.value("max_num_seqs") == 1024 and inv.value("max_model_len") == 16_000
    st = inv.settings["max_model_len"]
    assert s[slice(*st.value_span)] == "16000" and st.note.startswith("--max_model read as --max-model-len")
    assert not inv.unknown_flags and not inv.errors
    inv, _, _ = parse_shell("python3 -m vllm.entrypoints.openai.api_server --model m --no-enable-prefix")
    assert inv.value("enable_prefix_caching") is False
    # a prefix of two flags is argparse's "ambiguous option" error, not a guess
    inv, _, _ = parse_shell("vllm serve m --max-num 8")
    assert inv.value("max_num_seqs") is None and "ambiguous option: --max-num could match" in inv.unknown_flags[0].message
    assert "ambiguous option" in inv.errors[0].message  # vLLM exits on it: CTX301 (review)


def test_sglang_ep_is_the_expert_parallel_size_not_an_ambiguous_prefix():
    # sweep 45: 11 of 130 sgl-cookbook commands (`sglang serve --model-path stepfun-ai/Step-3.5-Flash --tp 4 --ep 4`)
    # read as "ambiguous option" (CTX301, refuses to start) and lost their EP size: `--ep` is one of ServerArgs.ep_size's
    # aliases, so argparse takes it exactly
    inv, _, _ = parse_shell("python3 -m sglang.launch_server --model-path m --tp 4 --ep 4")
    assert inv.value("ep_size") == 4 and not inv.unknown_flags and not inv.errors
    # a prefix of several flags is still argparse's error
    inv, _, _ = parse_shell("python3 -m sglang.launch_server --model-path m --ep- 2")
    assert "ambiguous option: --ep- could match" in inv.errors[0].message


def test_vllm_grpc_server_takes_the_engine_flags():
    # vllm/entrypoints/grpc_server.py: AsyncEngineArgs.add_cli_args on a FlexibleArgumentParser
    inv, _, _ = parse_shell("python3 -m vllm.entrypoints.grpc_server --model Qwen/Qwen3-8B --max-model-len 8192")
    assert inv.value("model") == "Qwen/Qwen3-8B" and inv.value("max_model_len") == 8192


def test_the_vllm_console_scripts_module_is_vllm_serve():
    # sweep 30 (taco-project/FlexKV launch.sh): `python -m vllm.entrypoints.cli.main serve MODEL` is what the
    # `vllm` console script runs (pyproject.toml [project.scripts]); it started nothing
    inv, _, _ = parse_shell("VLLM_USE_V1=1 python -m vllm.entrypoints.cli.main serve Qwen/Qwen3-32B --max_model_len 8192")
    assert (inv.engine, inv.value("model"), inv.value("max_model_len")) == ("vllm", "Qwen/Qwen3-32B", 8192)
    with pytest.raises(AssertionError, match="no engine found"):  # `vllm bench serve` is a client, not a server
        parse_shell("python -m vllm.entrypoints.cli.main bench serve --model m")


def test_negative_numbers_are_values():
    inv, _, _ = parse_shell("llama-server -m x -np -1 -n -1")
    assert inv.value("n_parallel") == -1 and inv.value("n_predict") == -1


@pytest.mark.parametrize("line,env", [
    ("llama-server -m x -fa 1 -c 4096 --fit false", None),
    ("llama-server -m x -c 4096", {"LLAMA_ARG_FLASH_ATTN": "1", "LLAMA_ARG_FIT": "0"}),
    ("llama-server -m x --flash-attn enabled --fit disabled -c 4096", None),
])
def test_llamacpp_truthy_spellings_accepted(line, env):
    # common/arg.cpp is_truthy/is_falsey: on|enabled|true|1 and off|disabled|false|0 (and auto|-1 for -fa)
    inv, _, _ = parse_shell(line, env=env)
    assert list(inv.errors) == [] and list(inv.unknown_flags) == [] and inv.value("ctx_size") == 4096
    assert inv.value("flash_attn") in ("1", "enabled") and inv.value("fit") in ("false", "0", "disabled")
    inv, _, _ = parse_shell("llama-server -m x", env={"LLAMA_ARG_FLASH_ATTN": "yes"})
    assert [e.message for e in inv.errors] == [
        "env LLAMA_ARG_FLASH_ATTN: invalid choice: 'yes' (choose from on, off, auto, enabled, true, 1, disabled, false, 0, -1)"]


@pytest.mark.parametrize("line,said,flag", [
    ("llama-server -m x --ctx-size=8192", "--ctx-size=8192", "--ctx-size"),
    ("llama-server -m x --ctx_size=8192", "--ctx-size=8192", "--ctx-size"),  # `_` made `-` first
    ("llama-server -m x -c=8192", "-c=8192", "-c"),
    ("llama-server -m x --fit=off", "--fit=off", "--fit"),
])
def test_llamacpp_splits_no_equals(line, said, flag):
    # ggml-org/llama.cpp@145b628:common/arg.cpp common_params_parse_ex looks the whole word up: the server exits
    inv, _, _ = parse_shell(line)
    value = said.partition("=")[2]
    assert [e.message for e in inv.errors] == [
        f'invalid argument: {said} (the engine looks each word up whole and splits no "=": write {flag} and {value} '
        "as two words)"]
    assert inv.settings["ctx_size"].origin == "default" and [u.flag for u in inv.unknown_flags] == [line.split()[-1].partition("=")[0]]
    assert inv.errors[0].span == (len(line) - len(line.split()[-1]), len(line))


def test_llamacpp_reads_underscores_as_dashes():
    # common/arg.cpp replaces every `_` of a `--` word with `-` before looking it up (llama.cpp@145b628)
    inv, _, _ = parse_shell("llama-server -m x --ctx_size 8192 --n_gpu_layers 99")
    assert list(inv.errors) == [] and list(inv.unknown_flags) == []
    assert (inv.value("ctx_size"), inv.value("n_gpu_layers")) == (8192, "99")


def test_llamacpp_equals_in_unknown_word_and_vllm_still_splits():
    inv, _, _ = parse_shell("llama-server -m x --no-such=1 -c 4096")  # a name ctxlint does not list proves nothing
    assert list(inv.errors) == [] and inv.value("ctx_size") == 4096
    inv, _, _ = parse_shell("vllm serve m --max-model-len=8192")
    assert list(inv.errors) == [] and inv.value("max_model_len") == 8192


def test_env_fallback_and_engine_env():
    inv, _, _ = parse_shell("text-generation-launcher --max-total-tokens 8192",
                            env={"MAX_INPUT_TOKENS": "4000", "MAX_TOTAL_TOKENS": "1"})
    assert inv.settings["max_input_tokens"].origin == "env" and inv.value("max_input_tokens") == 4000
    assert inv.value("max_total_tokens") == 8192  # the command line wins
    inv, _, _ = parse_shell("llama-server -m x", env={"LLAMA_ARG_CTX_SIZE": "8192", "LLAMA_ARG_KV_UNIFIED": "1"})
    assert inv.value("ctx_size") == 8192 and inv.value("kv_unified") is True
    inv, _, _ = parse_shell("vllm serve m", env={"VLLM_ALLOW_LONG_MAX_MODEL_LEN": "1"})
    assert inv.engine_env == {"VLLM_ALLOW_LONG_MAX_MODEL_LEN": "1"}
    assert inv.settings["block_size"].origin == "default"


def test_k8s_expansion_and_unresolved():
    items = ["vllm", "serve", "$(MODEL)", "--max-model-len", "$(LEN)", "-tp=$(TP)"]
    r = split_list(items, {"MODEL": "org/m", "TP": "2"}.get)
    c = r.commands[0]
    d = detect(c.tokens)[0]
    inv = parse_invocation(d.engine, c.tokens, {}, d.launcher, d.subcommand, d.args_start)
    assert inv.model.value == "org/m" and inv.value("tensor_parallel_size") == 2
    (u,) = inv.unresolved
    assert u.ref.name == "LEN" and items[u.item][slice(*u.span)] == "$(LEN)" and u.flag == "max_model_len"
    assert inv.settings["max_model_len"].value is None and not inv.errors
    # argparse keeps the last value: an unknown one a later flag replaces is not unknown
    items += ["--max-model-len", "8192", "--max-model-len", "$(LEN2)"]
    c = split_list(items[:-2], {"MODEL": "org/m"}.get).commands[0]
    inv = parse_invocation(d.engine, c.tokens, {}, d.launcher, d.subcommand, d.args_start)
    assert inv.value("max_model_len") == 8192 and [u.ref.name for u in inv.unresolved] == ["TP"]
    c = split_list(items, {"MODEL": "org/m"}.get).commands[0]
    inv = parse_invocation(d.engine, c.tokens, {}, d.launcher, d.subcommand, d.args_start)
    assert [u.ref.name for u in inv.unresolved] == ["LEN", "TP", "LEN2"]


def test_sh_c_list_form_offsets_and_roles():
    script = ("python3 -m dynamo.vllm --model $MODEL_PATH --kv-transfer-config "
              "'{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_producer\"}' --block-size 128")
    items = ["/bin/sh", "-c", script]
    r = split_list(items, {"MODEL_PATH": "org/m"}.get)
    c = r.commands[0]
    d = detect(c.tokens)[0]
    inv = parse_invocation(d.engine, c.tokens, {}, d.launcher, d.subcommand, d.args_start)
    assert inv.disaggregation_role == "prefill" and inv.value("block_size") == 128
    st = inv.settings["block_size"]
    assert script[slice(*st.value_span)] == "128" and st.item == 2
    assert script[slice(*inv.model.value_span)] == "$MODEL_PATH"


def test_config_files_reported():
    inv, _, _ = parse_shell("trtllm-serve serve m --extra_llm_api_options /c.yaml")
    assert inv.config_file.value == "/c.yaml"
    inv, _, _ = parse_shell("trtllm-serve disaggregated -c disagg.yaml")
    assert inv.subcommand == "disaggregated" and inv.config_file.value == "disagg.yaml"
    inv, _, _ = parse_shell("python3 -m dynamo.trtllm --model-path m --extra-engine-args /e.yaml")
    assert inv.config_file.value == "/e.yaml"


def test_args_only_image():
    inv, _, _ = parse_shell("--model-id org/m --max-input-tokens 10", image="ghcr.io/huggingface/"
                            "text-generation-inference:3.3.6", args_only=True)
    assert inv.engine == "tgi" and inv.value("max_input_tokens") == 10
    assert detect(["find", "/x", "-type", "f"], "vllm/vllm-openai:v0.11.0") == []


@pytest.mark.parametrize("image,engine,version,entry", [
    ("lmsysorg/sglang:v0.5.21-cu129", "sglang", "0.5.21", False),
    ("vllm/vllm-openai:v0.11.0", "vllm", "0.11.0", True),
    ("ghcr.io/huggingface/text-generation-inference:3.3.6", "tgi", "3.3.6", True),
    # Triton's month: TensorRT-LLM 0.9.0 by Triton's compatibility matrix (lint/engines/ngc.py)
    ("nvcr.io/nvidia/tritonserver:24.05-trtllm-python-py3", "trtllm", "0.9.0", False),
    ("ghcr.io/ggml-org/llama.cpp:server", "llamacpp", None, True),
    ("ghcr.io/ggml-org/llama.cpp:server-cuda-b4500", "llamacpp", "b4500", True),
    ("openmmlab/lmdeploy:v0.10.0", "lmdeploy", "0.10.0", False),
    ("vllm/vllm-openai:latest", "vllm", None, True),
    ("vllm/vllm-openai@sha256:abc", "vllm", None, True),
    ("lmsysorg/sglang:${VERSION}", "sglang", None, False),
    ("busybox", None, None, False),
    # compose defaults apply; OPEA's vLLM images start the OpenAI server and are tagged by OPEA release
    ("${REGISTRY:-opea}/vllm-rocm:${TAG:-latest}", "vllm", None, True),
    ("opea/vllm-gaudi:1.22.0", "vllm", None, True),
    ("docker.io/opea/vllm:1.4", "vllm", None, True),
    ("public.ecr.aws/q9t5s3a7/vllm-cpu-release-repo:v0.10.1", "vllm", "0.10.1", True),
    # the local tags vLLM's CPU install docs build (Dockerfile.cpu's vllm-openai target: `vllm serve`); the XPU docs'
    # tag and a registry's image of the same name say nothing of their entrypoint
    ("vllm-cpu-env", "vllm", None, True), ("vllm-cpu-zen-env:latest", "vllm", None, True),
    ("vllm-xpu-env", "vllm", None, False), ("someone/vllm-cpu-env:1", "vllm", None, False),
    # images on vLLM whose tags number their own releases: LMCache 0.3.9 (vLLM had no 0.3.9), Red Hat
    # AI Inference Server 3.2.2 (vLLM 0.10.1.1), NGC's monthly container 26.02 (no release notes read: ngc.py)
    ("lmcache/vllm-openai:v0.3.9post2", "vllm", None, True),
    # (its CUDA image starts the server: Red Hat's "vLLM server arguments" guide passes server arguments to it)
    ("registry.redhat.io/rhaiis/vllm-cuda-rhel9:3.2.2", "vllm", None, True),
    ("registry.redhat.io/rhaiis/vllm-rocm-rhel9:3.2.2", "vllm", None, False),
    ("registry.redhat.io/rhaii/vllm-cuda-rhel9@sha256:ad06abf3", "vllm", None, False),
    ("nvcr.io/nvidia/vllm:26.02-py3", "vllm", None, False),
    # ... unless the tag names the engine's release after its name
    ("rocm/vllm:rocm6.3.1_vllm_0.8.5_20250513", "vllm", "0.8.5", False),
    ("tensorcash/vllm-backend:v1.2.4a-cuda12.8.0-vllm0.16.0-amd64", "vllm", "0.16.0", False),
    # sweep 11 (awslabs/ai-on-eks): the image's own name names the release; its tag is `latest`
    ("public.ecr.aws/data-on-eks/ray-2.41.0-py310-cu118-vllm0.7.0:latest", "vllm", "0.7.0", False),
    ("lmcache/vllm-openai:v0.3.9-vllm-v0.10.1", "vllm", "0.10.1", True),
    ("ghcr.io/huggingface/text-generation-inference:${TGI_VERSION:-2.4.1}", "tgi", "2.4.1", True),
    ("opea/llm-textgen:latest", None, None, False),
    ("nvcr.io/nvidia/tensorrt-llm/release:0.15.0", "trtllm", "0.15.0", False),
    # sweep 10: a custom build's tag numbers its own builds (quay.io/tms/vllm-dev-pplx:0.1.0 installs vLLM main);
    # vendors' and mirrors' images named after the engine keep the engine's release
    ("quay.io/tms/vllm-dev-pplx:0.1.0", "vllm", None, False),
    ("ghcr.io/jajmangold/vllm-sm70:v0.9.2", "vllm", None, False),
    ("myregistry.example.com/aibrix/vllm-openai:v0.7.3.self.post1", "vllm", "0.7.3", True),
    ("aibrix/vllm-openai-aibrix-kvcache-nixl:v0.10.2-nixl-0.7.1-ucx-1.19.0", "vllm", "0.10.2", True),
    ("intel/vllm:0.10.2-xpu", "vllm", "0.10.2", False),
    # sweep 11: an image named after the engine alone is its release only from the makers and vendors
    ("rtalaricw/vllm:0.1", "vllm", None, False),
    ("someone/sglang:v0.4.6", "sglang", None, False),
    ("docker.io/lmsysorg/sglang:v0.4.6", "sglang", "0.4.6", False),
    ("aibrix/sglang:v0.4.9.post3-cu126-nixl-v0.4.1", "sglang", "0.4.9.post3", False),
    ("public.ecr.aws/deep-learning-containers/vllm:0.11.0-gpu-py312-ec2", "vllm", "0.11.0", False),
    ("mirror.example.com/intel/vllm:0.10.2-xpu", "vllm", "0.10.2", False),
    ("quay.io/ascend/vllm-ascend:v0.9.1rc1", "vllm", "0.9.1rc1", False),
    # sweep 35: a platform or device suffix is no pre-release (read as `0.19.1-a`, it sorted before 0.19.1)
    ("vllm/vllm-openai-cpu:v0.19.1-arm64", "vllm", "0.19.1", True),
    ("vllm/vllm-openai:v0.11.0-aarch64", "vllm", "0.11.0", True),
    ("vllm/vllm-openai:v0.24.0-aarch64-ubuntu2404", "vllm", "0.24.0", True),
    ("vllm/vllm-openai:v0.24.0-b200", "vllm", "0.24.0", True),
    ("vllm/vllm-openai:v0.8.5-devel", "vllm", "0.8.5", True),
    ("rocm/vllm:rocm6.3.1_vllm_0.8.5-devel", "vllm", "0.8.5", False),
    ("rocm/vllm:rocm6.3.1_vllm_0.8.5.post1_20250513", "vllm", "0.8.5.post1", False),
    ("vllm/vllm-openai:v0.11.0-rc1", "vllm", "0.11.0-rc1", True),
    ("vllm/vllm-openai:v0.6.1.post1", "vllm", "0.6.1.post1", True),
    ("docker.io/lmsysorg/sglang-rocm:v0.4.6.post1-rocm630", "sglang", "0.4.6.post1", False),
    ("example.com/team/sglang-custom:v0.4.6", "sglang", None, False),
    # Hugging Face Deep Learning Containers name the TGI release in the image name or beside PyTorch's
    ("us-docker.pkg.dev/deeplearning-platform-release/gcr.io/huggingface-text-generation-inference-cu121.2-1"
     ".ubuntu2204.py310", "tgi", "2.1", True),
    ("us-docker.pkg.dev/deeplearning-platform-release/gcr.io/huggingface-text-generation-inference-cu124.3-0-1"
     ".ubuntu2204.py311", "tgi", "3.0.1", True),
    ("763104351884.dkr.ecr.us-east-1.amazonaws.com/huggingface-pytorch-tgi-inference:2.1.1-tgi2.0.0-gpu-py310"
     "-cu121-ubuntu22.04", "tgi", "2.0.0", True),
])
def test_engine_from_image(image, engine, version, entry):
    assert engine_from_image(image) == (engine, version)
    assert image_entrypoint_is_engine(image) is entry


def test_parse_never_raises_on_junk():
    for junk in ([], ["--"], ["-"], ["--=x"], ["-O"], [None, 3, "--tp"], ["--max-model-len="]):
        parse_invocation("vllm", junk)
    parse_invocation("nonesuch", ["--x", "1"])


# --- properties -----------------------------------------------------------------------------------
from hypothesis import given, settings as hsettings, strategies as hst  # noqa: E402

from ctxlint.engines.specs import ENGINES, spec_for  # noqa: E402

_SPELLINGS = sorted({s for e in ENGINES for f in spec_for(e).flags for s in f.spellings + f.negatives})
_TOKEN = hst.one_of(hst.sampled_from(_SPELLINGS), hst.text(max_size=8),
                    hst.sampled_from(["-1", "1M", "128k", "auto", "{}", "--", "=", "$(X)", "${Y}"]),
                    hst.builds(lambda a, b: f"{a}={b}", hst.sampled_from(_SPELLINGS), hst.text(max_size=5)))


@hsettings(max_examples=400, deadline=None)
@given(hst.sampled_from(ENGINES + ("nonesuch",)), hst.lists(_TOKEN, max_size=10))
def test_random_token_lists_never_raise_and_spans_slice(engine, items):
    res = split_list(items)
    tokens = res.commands[0].tokens if res.commands else []
    inv = parse_invocation(engine, tokens, {"MAX_TOTAL_TOKENS": "x", "LLAMA_ARG_CTX_SIZE": "8k"})
    for st in inv.settings.values():
        if st.origin == "flag" and st.value_span is not None and st.token_index is not None:
            tok = tokens[st.token_index]
            src = items[st.item]
            a, b = st.value_span
            assert 0 <= a <= b <= len(src)
            if not tok.refs and st.raw_text and " " not in st.raw_text and "$" not in src:  # K8s $$ escapes $
                assert src[a:b] == st.raw_text
    for p in inv.unknown_flags + inv.errors + inv.duplicates:
        if p.span is not None and p.item is not None:
            assert 0 <= p.span[0] <= p.span[1] <= len(items[p.item])


def test_vllm_dotted_json_and_optimization_level():
    inv, _, s = parse_shell("vllm serve m --hf-overrides.rope_scaling.factor 4 "
                            "--kv-transfer-config.kv_role=kv_consumer -O3")
    assert inv.value("hf_overrides") == {"rope_scaling": {"factor": 4}}
    assert inv.disaggregation_role == "decode"
    st = inv.settings["kv_transfer_config"]
    assert s[slice(*st.value_span)] == "kv_consumer"
    assert inv.value("optimization_level") == "3"


def test_apply_config_precedence():
    from ctxlint.engines import apply_config
    inv, _, _ = parse_shell("vllm serve m --config c.yaml --max-model-len 4096")
    merged = apply_config(inv, {"max-model-len": 8192, "gpu_memory_utilization": "0.8"}, "c.yaml")
    assert merged.value("max_model_len") == 4096  # CLI wins on vLLM
    assert merged.settings["gpu_memory_utilization"].origin == "config-file"
    assert merged.value("gpu_memory_utilization") == 0.8
    inv, _, s = parse_shell("trtllm-serve serve m --max_seq_len 4096 --extra_llm_api_options x.yaml")
    merged = apply_config(inv, {"max_seq_len": 8192, "kv_cache_config": {"free_gpu_memory_fraction": 0.5,
                                                                            "max_tokens": 100000}}, "x.yaml")
    assert merged.value("max_seq_len") == 8192  # the LLM-API YAML wins on TRT-LLM
    assert s[slice(*merged.duplicates[0].span)] == "--max_seq_len"
    assert merged.value("kv_cache_free_gpu_memory_fraction") == 0.5
    assert merged.value("kv_cache_config.max_tokens") == 100000
    assert apply_config(inv, ["not", "a", "map"]).errors


def test_by_name_is_the_first_flag_of_that_name_in_every_table():
    from ctxlint.engines import flags_llamacpp, flags_lmdeploy, flags_sglang, flags_tgi, flags_trtllm, flags_vllm

    tables = [flags_vllm.SPEC_, flags_vllm.DYNAMO_SPEC, flags_sglang.SPEC_, flags_sglang.DYNAMO_SPEC,
              flags_trtllm.SPEC_, flags_trtllm.DISAGG_SPEC, flags_trtllm.DYNAMO_SPEC, flags_tgi.SPEC_,
              flags_llamacpp.SPEC_, flags_lmdeploy.SPEC_]
    for spec in tables:
        for name in {f.name for f in spec.flags} | {"nope", "", "--max-model-len"}:
            assert spec.by_name(name) is next((f for f in spec.flags if f.name == name), None)


def test_vllm_read_limit_mm_per_prompt_key_value_pairs_before_0_10_and_json_since():
    # vLLM's nullable_kvs read `image=1,video=2` until 0.10.0 removed it (vllm-project/vllm#21615)
    inv, _, _ = parse_shell("vllm serve m --limit-mm-per-prompt IMAGE=1,video=2")
    (e,) = inv.errors
    assert e.since == "0.10.0" and inv.value("limit_mm_per_prompt") == {"image": 1, "video": 2}
    assert e.message.endswith('; write {"image": 1, "video": 2} (vllm read KEY=VALUE pairs before 0.10.0)')
    assert (e.refused_by("0.9.2"), e.refused_by("v0.10.0"), e.refused_by("0.11.1"), e.refused_by(None),
            e.refused_by("latest")) == (False, True, True, None, None)
    for every_release in ("image=x", "image=1=2", "image=1,image=2", "{image=1}", "{bad"):  # nullable_kvs too
        (e,) = parse_shell(f"vllm serve m --limit-mm-per-prompt '{every_release}'")[0].errors
        assert e.since is None and e.refused_by("0.9.2") is True, every_release
    assert not parse_shell("""vllm serve m --limit-mm-per-prompt '{"image": 1}'""")[0].errors
    (e,) = parse_shell("vllm serve m --kv-transfer-config a=1")[0].errors  # a dataclass flag: JSON only
    assert e.since is None


def test_vllm_read_enable_chunked_prefill_false_before_its_switch_refused_it():
    # StoreBoolean (nargs "?") read `--enable-chunked-prefill=false` until the flag became a
    # BooleanOptionalAction switch, which refuses `=value` (0.9.2 is one: fixes.NEGATIVES_SINCE)
    inv, _, _ = parse_shell("vllm serve m --enable-chunked-prefill=false")
    (e,) = inv.errors
    assert (e.since, inv.value("enable_chunked_prefill")) == ("0.9.2", False)
    assert (e.refused_by("0.8.3"), e.refused_by("0.9.2"), e.refused_by(None)) == (False, True, None)
    assert parse_shell("vllm serve m --enable-chunked-prefill=True")[0].value("enable_chunked_prefill") is True
    (e,) = parse_shell("vllm serve m --enable-chunked-prefill=0")[0].errors  # StoreBoolean took true/false only
    assert e.since is None
    (e,) = parse_shell("vllm serve m --enforce-eager=false")[0].errors  # a store_true switch: never read
    assert e.since is None
    (e,) = parse_shell("vllm serve m --no-enable-chunked-prefill=false")[0].errors  # no release read this
    assert e.since is None
    # sweep 11 (huggingface/open-r1 serve_r1_vllm.slurm): `--enable-chunked-prefill false`, the value after a space,
    # was read as the switch and a stray positional (`false` became the model); StoreBoolean took it as the value,
    # a BooleanOptionalAction switch leaves it a stray argument argparse refuses
    inv, _, s = parse_shell("vllm serve org/m --enable-chunked-prefill false --max-num-batched-tokens 2048")
    (e,) = inv.errors
    assert (inv.value("enable_chunked_prefill"), inv.model.value, inv.value("max_num_batched_tokens")) == \
        (False, "org/m", 2048)
    assert (e.since, s[slice(*e.span)], e.refused_by("0.8.3"), e.refused_by("0.9.2")) == ("0.9.2", "false", False, True)
    assert parse_shell("python3 -m vllm.entrypoints.openai.api_server --enable-chunked-prefill true --model org/m"
                       )[0].model.value == "org/m"
    # a switch no release read a value for stays as it was: the word is a second positional, which argparse refuses
    (e,) = parse_shell("vllm serve org/m --enforce-eager false")[0].errors
    assert (e.message.split(" (")[0], e.since) == ("unrecognized arguments: false", None)
    # a release candidate of the refusing release refuses too
    assert (e.refused_by("0.9.2rc1"), Problem("x", None, None, since="0.10.0").refused_by("v0.10.0rc1")) == (True, True)


def test_a_kv_transfer_config_keeps_the_keys_no_unresolved_reference_touches():
    # sweep 10e: vLLM's own examples/online_serving/disaggregated_prefill.sh puts `$VLLM_HOST_IP` inside the JSON; the
    # whole value was unknown, so kv_producer/kv_consumer servers were two unified roles. A reference inside a string
    # value leaves the other keys known; one in a key or outside a string leaves nothing.
    def role(script):
        [cmd] = split_shell(script).commands
        inv = parse_invocation("vllm", cmd.tokens, {}, "vllm", "serve", 2)
        return inv.value("kv_transfer_config"), inv.disaggregation_role, [p.flag for p in inv.unresolved]

    known = ("vllm serve m --kv-transfer-config "
             """'{"kv_connector":"P2pNcclConnector","kv_role":"kv_producer","kv_ip":"'$IP'"}'""")
    assert role(known) == ({"kv_connector": "P2pNcclConnector", "kv_role": "kv_producer"}, "prefill",
                           ["kv_transfer_config"])
    outside = """vllm serve m --kv-transfer-config '{"kv_role":"kv_producer","kv_port":'$PORT'}'"""
    assert role(outside)[:2] == (None, None)
    assert role("""vllm serve m --kv-transfer-config '{"kv_role":"'$ROLE'"}'""")[:2] == ({}, None)
    # review of 0fc724c: the `--flag=value` form too, and a JSON too deep to parse is unknown, not an error
    assert role(known.replace("--kv-transfer-config ", "--kv-transfer-config="))[:2] == (
        {"kv_connector": "P2pNcclConnector", "kv_role": "kv_producer"}, "prefill")
    deep = "vllm serve m --kv-transfer-config '" + '{"a":' * 3000 + '"\'$X\'"' + "}" * 3000 + "'"
    [cmd] = split_shell(deep).commands
    assert not parse_invocation("vllm", cmd.tokens, {}, "vllm", "serve", 2).errors
