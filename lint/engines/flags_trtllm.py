"""TensorRT-LLM `trtllm-serve` flags, and Dynamo's TRT-LLM worker flags.

Source: NVIDIA/TensorRT-LLM:tensorrt_llm/commands/serve.py (click options,
underscore spellings) and engines.md §4.1; Dynamo's `python -m dynamo.trtllm`
uses kebab spellings (seen in the corpus; engines.md §6, [U] in code).
Click reads integers with Python int(): no suffixes.
"""
from __future__ import annotations

from .flagspec import EngineEnv, EngineSpec, F

CTX, KV, MEM, PAR, SCHED, ROLE, MODEL = (
    "context", "kv_pool", "memory", "parallel", "scheduler", "role", "model")

FLAGS = (
    F("model", "--model", tags=MODEL, doc="normally positional: trtllm-serve [serve] MODEL"),
    F("tokenizer", "--tokenizer", tags=MODEL),
    # PyTorch is the default from 1.0 (https://github.com/NVIDIA/TensorRT-LLM/pull/6419: "we've set the PyTorch as
    # the default backend with #5717"; https://github.com/NVIDIA/TensorRT-LLM/issues/8223: "v0.21.0 ... Backend:
    # TRT Engine (default)", "v1.0.0 ... Backend: PyTorch (default)"). Before, `--backend` was None = "the cpp
    # path", TensorRT engines, with `pytorch` its one choice (https://nvidia.github.io/TensorRT-LLM/0.18.2/commands/
    # trtllm-serve.html: "Set to 'pytorch' for pytorch path. Default is cpp path. Options: pytorch"). 1.0 spells
    # the TensorRT backend `trt`, later releases `tensorrt` (https://github.com/NVIDIA/TensorRT-LLM/pull/7829) and
    # take `trt` as its alias (NVIDIA/TensorRT-LLM@00209af149e7774406881a37283dce303571eb11:tensorrt_llm/commands/
    # serve.py ChoiceWithAlias): every release's choices, so none is refused falsely.
    F("backend", "--backend", default="pytorch", default_until=("1.0.0", "tensorrt"),
      choices=("pytorch", "tensorrt", "trt", "_autodeploy")),
    F("max_seq_len", "--max_seq_len", kind="int", tags=CTX, doc="None = deduced from the model config"),
    F("max_num_tokens", "--max_num_tokens", kind="int", default=8192, tags=SCHED),
    F("max_batch_size", "--max_batch_size", kind="int", default=2048, tags=SCHED),
    F("max_beam_width", "--max_beam_width", kind="int", default=1),
    F("tp_size", "--tp_size", "--tensor_parallel_size", kind="int", default=1, tags=PAR),
    F("pp_size", "--pp_size", "--pipeline_parallel_size", kind="int", default=1, tags=PAR),
    F("cp_size", "--cp_size", kind="int", default=1, tags=PAR),
    F("ep_size", "--ep_size", "--moe_expert_parallel_size", kind="int", tags=PAR),
    F("cluster_size", "--cluster_size", kind="int", tags=PAR),
    F("gpus_per_node", "--gpus_per_node", kind="int", tags=PAR),
    F("kv_cache_free_gpu_memory_fraction", "--kv_cache_free_gpu_memory_fraction",
      "--free_gpu_memory_fraction", kind="float", default=0.9, tags=(KV, MEM),
      doc="fraction of FREE memory after weights and profiling"),
    F("enable_chunked_prefill", "--enable_chunked_prefill", kind="bool", default=False, tags=SCHED),
    F("fail_fast_on_attention_window_too_large", "--fail_fast_on_attention_window_too_large",
      kind="bool", default=False, tags=CTX),
    F("trust_remote_code", "--trust_remote_code", kind="bool", default=False),
    F("extra_llm_api_options", "--extra_llm_api_options", "--config",
      doc="YAML of LLM-API keys that override the CLI"),
    F("server_role", "--server_role", tags=ROLE),
    F("disagg_cluster_uri", "--disagg_cluster_uri", tags=ROLE),
    F("metadata_server_config_file", "--metadata_server_config_file", tags=ROLE),
    F("host", "--host", default="localhost"),
    F("port", "--port", kind="int", default=8000),
    F("log_level", "--log_level"),
    F("reasoning_parser", "--reasoning_parser"),
    F("num_postprocess_workers", "--num_postprocess_workers", kind="int", default=0),
)

# `trtllm-serve disaggregated -c disagg.yaml`: the orchestrator (engines.md §4.1).
DISAGG_FLAGS = (
    F("config_file", "--config_file", "-c", tags=ROLE),
    F("server_start_timeout", "--server_start_timeout", "-t", kind="int"),
    F("request_timeout", "--request_timeout", "-r", kind="int"),
    F("metadata_server_config_file", "--metadata_server_config_file", "-m", tags=ROLE),
    F("log_level", "--log_level", "-l"),
)

ENGINE_ENV = (
    EngineEnv("TRTLLM_KVCACHE_TRANSFER_BUFFER_SIZE", "str", "512MB", "disaggregated KV transfer buffer"),
    EngineEnv("TRTLLM_NIXL_KVCACHE_BACKEND", "str", None, "UCX | LIBFABRIC"),
    EngineEnv("TRTLLM_USE_MPI_KVCACHE", "bool", None, "old MPI KV transfer"),
)

SPEC_ = EngineSpec("trtllm", FLAGS, int_rule="click", float_rule="click", engine_env=ENGINE_ENV,
                   config_flags=("extra_llm_api_options",), config_overrides_cli=True)
DISAGG_SPEC = EngineSpec("trtllm", DISAGG_FLAGS, int_rule="click", float_rule="click",
                         engine_env=ENGINE_ENV, config_flags=("config_file",))

DYNAMO_FLAGS = (
    F("model", "--model-path", tags=MODEL),
    F("served_model_name", "--served-model-name", tags=MODEL),
    F("extra_llm_api_options", "--extra-engine-args", doc="TRT-LLM LLM-API YAML"),
    F("override_engine_args", "--override-engine-args", kind="json"),
    F("tp_size", "--tensor-parallel-size", kind="int", default=1, tags=PAR),
    F("pp_size", "--pipeline-parallel-size", kind="int", default=1, tags=PAR),
    F("ep_size", "--expert-parallel-size", kind="int", tags=PAR),
    F("max_batch_size", "--max-batch-size", kind="int", default=2048, tags=SCHED),
    F("max_num_tokens", "--max-num-tokens", kind="int", default=8192, tags=SCHED),
    F("max_seq_len", "--max-seq-len", kind="int", tags=CTX),
    F("max_beam_width", "--max-beam-width", kind="int", default=1),
    F("kv_cache_free_gpu_memory_fraction", "--free-gpu-memory-fraction", kind="float", default=0.9,
      tags=(KV, MEM)),
    F("kv_block_size", "--kv-block-size", kind="int", default=32, tags=KV),
    # older Dynamo releases: prefill_and_decode; newer ones agg/pd instead (ai-dynamo/dynamo
    # components/src/dynamo/trtllm/backend_args.py): every release's values, so none is refused falsely
    F("disaggregation_mode", "--disaggregation-mode", choices=("prefill_and_decode", "agg", "pd", "prefill", "decode", "encode"),
      env="DYN_TRTLLM_DISAGGREGATION_MODE", tags=ROLE),
    F("disaggregation_strategy", "--disaggregation-strategy", tags=ROLE),
    F("endpoint", "--endpoint"),
    F("dyn_reasoning_parser", "--dyn-reasoning-parser"), F("dyn_tool_call_parser", "--dyn-tool-call-parser"),
    F("publish_events_and_metrics", "--publish-events-and-metrics", kind="bool", default=False),
    F("request_plane", "--request-plane"), F("migration_limit", "--migration-limit", kind="int"),
)
# The worker builds the LLM with "backend": "pytorch" (its --extra-engine-args file may override it)
# (ai-dynamo/dynamo@00810a7b6a4b8cafa26c87311fb93cae9d1d9057:components/src/dynamo/trtllm/main.py init)
DYNAMO_SPEC = EngineSpec("trtllm", DYNAMO_FLAGS, int_rule="argparse", engine_env=ENGINE_ENV,
                         config_flags=("extra_llm_api_options",), config_overrides_cli=True,
                         launcher_settings=(("backend", "pytorch"),))

# LLM-API YAML keys that are the same setting as a CLI flag (engines.md §4.1).
CONFIG_KEY_ALIASES = {"kv_cache_config.free_gpu_memory_fraction": "kv_cache_free_gpu_memory_fraction",
                      "tensor_parallel_size": "tp_size", "pipeline_parallel_size": "pp_size",
                      "moe_expert_parallel_size": "ep_size",
                      # LlmArgs.context_parallel_size is the flag --cp_size (NVIDIA/TensorRT-LLM@4c05a74891e4df8066f08
                      # ed4ce14b0972abe4e25:tensorrt_llm/llmapi/llm_args.py; llm.py reads it as parallel_config.cp_size)
                      "context_parallel_size": "cp_size"}
