"""SGLang flags (`python -m sglang.launch_server`, `sglang serve`).

Source: sgl-project/sglang:python/sglang/srt/server_args.py (ServerArgs,
add_cli_args) and engines.md §2.1. Plain argparse: bools are store_true,
prefix abbreviation is on (so `--tp` reaches `--tp-size`), and only
`--context-length`, `--max-total-tokens`, `--max-prefill-tokens` use SGLang's
own human_readable_int.
"""
from __future__ import annotations

from .flagspec import EngineEnv, EngineSpec, F, FlagSpec

CTX, KV, MEM, PAR, SCHED, ROLE, SPEC, ROPE, MODEL = (
    "context", "kv_pool", "memory", "parallel", "scheduler", "role", "speculative", "rope", "model")


def T(name: str, *spellings: str, **kw: object) -> FlagSpec:
    """store_true flag."""
    return F(name, *spellings, kind="bool", default=False, **kw)  # type: ignore[arg-type]


FLAGS = (
    F("model_path", "--model-path", "--model", tags=MODEL),
    F("tokenizer_path", "--tokenizer-path", tags=MODEL),
    F("served_model_name", "--served-model-name", tags=MODEL),
    T("enable_lora", "--enable-lora", tags=MODEL),
    F("lora_paths", "--lora-paths", kind="list", tags=MODEL, doc="name=path, one per adapter"),
    F("revision", "--revision", tags=MODEL),
    # argparse choices, the same in every release read (sglang-0.5.4 and 0.5.23 wheels' ServerArgs)
    F("dtype", "--dtype", default="auto", choices=("auto", "half", "float16", "bfloat16", "float", "float32")),
    F("quantization", "--quantization", tags=MODEL),
    T("trust_remote_code", "--trust-remote-code"),
    F("config", "--config", doc="YAML config file merged into the CLI [U: newer releases]"),
    F("context_length", "--context-length", kind="int", int_rule="sglang", tags=CTX),
    F("json_model_override_args", "--json-model-override-args", kind="json", default="{}", tags=ROPE),
    T("allow_auto_truncate", "--allow-auto-truncate", tags=CTX),
    F("mem_fraction_static", "--mem-fraction-static", kind="float", tags=MEM,
      doc="fraction of TOTAL memory for weights + KV pool; None = auto"),
    F("max_total_tokens", "--max-total-tokens", kind="int", int_rule="sglang", tags=KV,
      doc="upper bound on the KV pool, not a guarantee"),
    F("max_prefill_tokens", "--max-prefill-tokens", kind="int", int_rule="sglang", default=16384, tags=SCHED),
    F("chunked_prefill_size", "--chunked-prefill-size", kind="int", tags=SCHED, doc="-1 disables chunking"),
    F("page_size", "--page-size", kind="int", tags=KV, doc="1 historically"),
    # argparse choices by release (the wheels' sglang/srt/server_args.py, arg_groups/fields/model.py from 0.5.20):
    # auto, fp8_e5m2 in 0.3.6-0.4.0; fp8_e4m3 from 0.4.2; bf16, bfloat16 from 0.5.4; fp4_e2m1 from 0.5.5; mxfp8,
    # nvfp4, fp4_mx_block16 from 0.5.16; fp4_e2m1 gone from 0.5.21 (every 0.3.6-0.5.23 wheel but 0.5.0 read). Every
    # release's names, so that only a name no release takes is refused (vLLM's `fp8`, `fp16`, `int8`)
    F("kv_cache_dtype", "--kv-cache-dtype", default="auto", tags=KV, choices=(
        "auto", "fp8_e5m2", "fp8_e4m3", "bf16", "bfloat16", "fp4_e2m1", "mxfp8", "nvfp4", "fp4_mx_block16")),
    F("max_running_requests", "--max-running-requests", kind="int", tags=SCHED),
    F("max_queued_requests", "--max-queued-requests", kind="int", tags=SCHED),
    F("schedule_conservativeness", "--schedule-conservativeness", kind="float", default=1.0, tags=SCHED),
    T("disable_radix_cache", "--disable-radix-cache", tags=KV),
    T("enable_mixed_chunk", "--enable-mixed-chunk", tags=SCHED),
    T("enable_hierarchical_cache", "--enable-hierarchical-cache", tags=KV),
    F("cpu_offload_gb", "--cpu-offload-gb", kind="int", default=0, tags=MEM),
    F("swa_full_tokens_ratio", "--swa-full-tokens-ratio", kind="float", default=0.8, tags=KV),
    T("disable_hybrid_swa_memory", "--disable-hybrid-swa-memory", tags=KV),
    # Llama 4's chunked layers in a pool of ((1 - h) + h x chunk / context) x the full pool's tokens, 0.4.9-0.5.7
    # (nargs "?", const 0.5: sgl-project/sglang@v0.4.9:python/sglang/srt/server_args.py); from 0.5.8 a no-op
    # DeprecatedAction (sglang-0.5.8/sglang/srt/server_args.py:2940-2944, still in 0.5.10's), absent from the 0.5.14
    # wheel's ServerArgs on (0.5.11-0.5.13 not read: a refusal is assumed only from 0.5.14)
    F("hybrid_kvcache_ratio", "--hybrid-kvcache-ratio", kind="float", takes="optional", tags=KV, removed_in="0.5.14",
      instead="write --swa-full-tokens-ratio for a window pool's share"),
    F("mamba_full_memory_ratio", "--mamba-full-memory-ratio", kind="float", tags=KV),
    F("max_mamba_cache_size", "--max-mamba-cache-size", kind="int", tags=KV),
    # the temporal state's dtype (float32 default up to 0.5.8, then the config's; physics/mamba_sglang.py)
    F("mamba_ssm_dtype", "--mamba-ssm-dtype", tags=KV),
    # The decode CUDA-graph batch: --cuda-graph-max-bs up to 0.5.13, then an alias of --cuda-graph-max-bs-decode
    # (DeprecatedAliasStoreAction, sglang-0.5.14/sglang/srt/server_args.py:6359, sglang-0.5.19/...:3929-3934); 0.5.20
    # registers no such flag, and argparse exits on the prefix of both new spellings ("ambiguous option"). The
    # -decode and -prefill fields are new in 0.5.14 (sglang-0.5.14/sglang/srt/server_args.py:1939-1946); the prefill
    # one caps the prefill graphs' capture sizes, so their memory reserve (physics/mem_sglang.py).
    F("cuda_graph_max_bs", "--cuda-graph-max-bs", kind="int", tags=MEM, removed_in="0.5.20",
      instead="write --cuda-graph-max-bs-decode {value}"),
    F("cuda_graph_max_bs_decode", "--cuda-graph-max-bs-decode", kind="int", tags=MEM),
    F("cuda_graph_max_bs_prefill", "--cuda-graph-max-bs-prefill", kind="int", tags=MEM),
    T("disable_cuda_graph", "--disable-cuda-graph", tags=MEM),
    F("tp_size", "--tensor-parallel-size", "--tp-size", kind="int", default=1, tags=PAR),
    # 'cuda', 'xpu', 'hpu', 'npu', 'cpu' (--device's help); None = auto-detect. A non-NVIDIA one sets Role.vendor
    F("device", "--device", tags=PAR),
    F("pp_size", "--pipeline-parallel-size", "--pp-size", kind="int", default=1, tags=PAR),
    F("dp_size", "--data-parallel-size", "--dp-size", kind="int", default=1, tags=PAR),
    # `--ep` is an exact alias, never an abbreviation of --ep-size and --ep-num-redundant-experts (ServerArgs.ep_size
    # aliases; sgl-project/sglang@001067fffe33427bee0ed2f007fb7551a1d76b44:python/sglang/srt/server_args.py; the
    # sgl-cookbook's launch commands use it)
    F("ep_size", "--expert-parallel-size", "--ep-size", "--ep", kind="int", default=1, tags=PAR),
    F("attn_cp_size", "--attention-context-parallel-size", "--attn-cp-size", kind="int", default=1,
      tags=PAR),
    # Decode context parallelism, from 0.5.15 (not in the 0.5.14 wheel's ServerArgs; sglang==0.5.15:sglang/srt/
    # server_args.py:823-827, sglang==0.5.23:sglang/srt/arg_groups/fields/parallel.py:52-58): the pool's rows are
    # per rank, a request's tokens over attn_dcp_size ranks (physics/served.decode_context_parallel)
    F("dcp_size", "--dcp-size", "--decode-context-parallel-size", kind="int", default=1, tags=PAR,
      spelled_since=(("--dcp-size", "0.5.15"), ("--decode-context-parallel-size", "0.5.15"))),
    # PD prefill workers only, from 0.5.22 (sglang==0.5.22:sglang/srt/arg_groups/fields/parallel.py:184-191)
    T("enable_kv_cache_sharding", "--enable-kv-cache-sharding", tags=KV,
      spelled_since=(("--enable-kv-cache-sharding", "0.5.22"),)),
    F("moe_dp_size", "--moe-data-parallel-size", "--moe-dp-size", kind="int", default=1, tags=PAR),
    T("enable_dp_attention", "--enable-dp-attention", tags=PAR),
    # DP attention's width from 0.5.22, DP attention by itself (sglang-0.5.22 wheel: sglang/srt/arg_groups/fields/
    # parallel.py:81-90; a derived field, no flag, in 0.5.21: fields/parallel.py:285); the reserve reads it
    # (physics/reserve_sglang.dp_attention_width)
    F("attn_dp_size", "--attention-data-parallel-size", "--attn-dp-size", kind="int", default=1, tags=PAR,
      spelled_since=(("--attention-data-parallel-size", "0.5.22"), ("--attn-dp-size", "0.5.22"))),
    # a VLM's language model alone: no VLM reduction of the automatic fraction (physics/vlm_sglang.py; sglang-0.5.23
    # wheel: sglang/srt/arg_groups/fields/disagg.py:136-146, memory_hook.py:283-288)
    T("language_only", "--language-only", tags=MEM), T("language_model_only", "--language-model-only", tags=MEM),
    # Gemma-3, Llama-4 and Step3-VL are served as text without it, with no VLM reduction (physics/vlm_sglang.py)
    T("enable_multimodal", "--enable-multimodal", tags=MEM),
    # cuda_ipc / cuda_vmm reserve SGLANG_MM_FEATURE_CACHE_MB out of the KV budget (physics/vlm_sglang.mm_reserve;
    # sglang-0.5.21 wheel: sglang/srt/arg_groups/fields/mm.py:138)
    F("mm_feature_transport", "--mm-feature-transport", choices=("cpu", "cuda_ipc", "cuda_vmm"), tags=MEM),
    F("nnodes", "--nnodes", kind="int", default=1, tags=PAR),
    F("node_rank", "--node-rank", kind="int", default=0, tags=PAR),
    F("dist_init_addr", "--dist-init-addr", tags=PAR),
    F("disaggregation_mode", "--disaggregation-mode", default="null", choices=("null", "prefill", "decode"),
      tags=ROLE),
    F("disaggregation_transfer_backend", "--disaggregation-transfer-backend", default="mooncake", tags=ROLE),
    F("disaggregation_bootstrap_port", "--disaggregation-bootstrap-port", kind="int", default=8998, tags=ROLE),
    F("disaggregation_ib_device", "--disaggregation-ib-device", tags=ROLE),
    F("num_reserved_decode_tokens", "--num-reserved-decode-tokens", kind="int", default=512, tags=ROLE),
    F("speculative_algorithm", "--speculative-algorithm", tags=SPEC),
    F("speculative_draft_model_path", "--speculative-draft-model-path", tags=SPEC),
    F("speculative_num_steps", "--speculative-num-steps", kind="int", tags=SPEC),
    F("speculative_eagle_topk", "--speculative-eagle-topk", kind="int", tags=SPEC),
    F("speculative_num_draft_tokens", "--speculative-num-draft-tokens", kind="int", tags=SPEC),
    F("host", "--host", default="127.0.0.1"),
    F("port", "--port", kind="int", default=30000),
    # Seen in the corpus; listed so that their arity is right.
    F("attention_backend", "--attention-backend"), T("enable_dp_lm_head", "--enable-dp-lm-head"),
    # read with --attention-backend for gpt-oss's SWA pool in 0.5.8-0.5.9 (physics/swa_sglang.py)
    F("prefill_attention_backend", "--prefill-attention-backend"),
    F("decode_attention_backend", "--decode-attention-backend"),
    T("enable_metrics", "--enable-metrics"), T("enable_torch_compile", "--enable-torch-compile"),
    F("torch_compile_max_bs", "--torch-compile-max-bs", kind="int"),
    F("ep_num_redundant_experts", "--ep-num-redundant-experts", kind="int", tags=PAR),
    F("ep_dispatch_algorithm", "--ep-dispatch-algorithm", tags=PAR),
    F("eplb_algorithm", "--eplb-algorithm", tags=PAR), F("log_level", "--log-level"),
    F("moe_a2a_backend", "--moe-a2a-backend", tags=PAR), F("moe_dense_tp_size", "--moe-dense-tp-size",
                                                           kind="int", tags=PAR),
    F("moe_runner_backend", "--moe-runner-backend"), F("reasoning_parser", "--reasoning-parser"),
    F("tool_call_parser", "--tool-call-parser"), F("chat_template", "--chat-template"),
    F("load_balance_method", "--load-balance-method", tags=ROLE), T("skip_tokenizer_init", "--skip-tokenizer-init"),
    F("stream_interval", "--stream-interval", kind="int"), F("watchdog_timeout", "--watchdog-timeout", kind="float"),
    F("model_loader_extra_config", "--model-loader-extra-config"),
    # Deprecated (a no-op DeprecatedAction) in 0.5.19 (sglang-0.5.19/sglang/srt/server_args.py:3861-3865), gone from
    # 0.5.20 (not among the 0.5.20-0.5.23 wheels' ServerArgs options)
    T("prefill_round_robin_balance", "--prefill-round-robin-balance", tags=ROLE, removed_in="0.5.20",
      instead="remove it; it did nothing since its deprecation"),
    T("enable_flashinfer_allreduce_fusion", "--enable-flashinfer-allreduce-fusion"),
    # Deprecated aliases of --dsa-prefill-backend / --dsa-decode-backend in 0.5.19 (sglang-0.5.19/sglang/srt/
    # server_args.py:3871-3910, DeprecatedAliasStoreAction), gone from 0.5.20 (not among the 0.5.20-0.5.23 wheels'
    # ServerArgs options, which have the --dsa-* spellings)
    F("nsa_prefill_backend", "--nsa-prefill-backend", removed_in="0.5.20",
      instead="write --dsa-prefill-backend {value}"),
    F("nsa_decode_backend", "--nsa-decode-backend", removed_in="0.5.20", instead="write --dsa-decode-backend {value}"),
    T("incremental_streaming_output", "--incremental-streaming-output"),
    F("random_seed", "--random-seed", kind="int"),
    # DeepSeek-V4's pools are not read under these (physics/dsv4_sglang.py): HiSparse shrinks the ratio-4 pool by its
    # host-to-device ratio, and prefill context parallelism (the NSA spelling to 0.5.12, DSA from 0.5.13, the one
    # `--enable-prefill-cp` from 0.5.14, the others its deprecated aliases there) is not modelled. Switches only,
    # no release refuses them here (bytedance-iaas/sglang@v0.5.12, v0.5.13, v0.5.14: python/sglang/srt/server_args.py)
    T("enable_hisparse", "--enable-hisparse", tags=KV),
    T("enable_nsa_prefill_context_parallel", "--enable-nsa-prefill-context-parallel", tags=PAR),
    T("enable_dsa_prefill_context_parallel", "--enable-dsa-prefill-context-parallel", tags=PAR),
    T("enable_prefill_context_parallel", "--enable-prefill-context-parallel", tags=PAR),
    T("enable_prefill_cp", "--enable-prefill-cp", tags=PAR),
)

ENGINE_ENV = (
    # layers per pipeline stage, comma-separated (sglang==0.5.23: sglang/srt/distributed/utils.py get_pp_indices;
    # physics/pp_partition.py)
    EngineEnv("SGLANG_PP_LAYER_PARTITION", "str", None, "decoder layers of each PP stage"),
    EngineEnv("SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN", "bool", False,
              "lets --context-length exceed the derived length with a warning (engines.md §2.2a)"),
    EngineEnv("SGLANG_DISAGGREGATION_WAITING_TIMEOUT", "int", 300, "seconds decode waits for KV"),
    EngineEnv("SGLANG_DISAGG_STAGING_BUFFER", "bool", False, "needed for heterogeneous TP PD (non-MLA)"),
    EngineEnv("SGLANG_MAX_NEW_TOKENS_LIMIT", "int", None, "extra output cap on newer versions"),
    # read by physics/vlm_sglang.post_capture_planned (sglang-0.5.21..0.5.23 wheels: sglang/srt/environ.py)
    EngineEnv("SGLANG_ENABLE_POST_CAPTURE_KV_SIZING", "bool", False, "sizes the KV pool after CUDA-graph capture"),
    EngineEnv("SGLANG_VLM_CACHE_SIZE_MB", "int", 100, "a multimodal model's embedding cache, off the KV budget"),
    EngineEnv("SGLANG_MM_FEATURE_CACHE_MB", "int", 1024, "the GPU feature-transport pool, off the KV budget"),
    # read by physics/mamba_sglang.py from 0.5.9 (sglang==0.5.9:sglang/srt/environ.py:439-440); --mamba-ssm-dtype
    # wins over the first, the config's mamba_ssm_dtype loses to it (configs/mamba_utils.py:50-53)
    EngineEnv("SGLANG_MAMBA_SSM_DTYPE", "str", None, "a Mamba model's temporal state dtype (0.5.9+)"),
    EngineEnv("SGLANG_MAMBA_CONV_DTYPE", "str", "bfloat16", "a Mamba model's conv state dtype (0.5.9+)"),
    # read by physics/dsv4_sglang.py as SGLang's EnvBool / EnvStr read them (sgl-project/sglang@14f81a67:
    # python/sglang/srt/environ.py; the second from 0.5.14): DeepSeek-V4's c128 compressor states
    EngineEnv("SGLANG_OPT_USE_ONLINE_COMPRESS", "str", None, "DeepSeek-V4's online c128 compressor (one state)"),
    EngineEnv("SGLANG_DSV4_COMPRESS_STATE_DTYPE", "str", "float32", "DeepSeek-V4's compressor state dtype (0.5.14+)"),
)

# Arguments of SGLang's benchmark scripts that no server argument is, nor starts (argparse would take a prefix of
# one for it): bench_one_batch's BenchArgs (sgl-project/sglang@009441505062411de64a6e06e346779899eb53dc:
# python/sglang/bench_one_batch.py) and the arguments bench_serving, bench_one_batch_server and
# bench_offline_throughput have in both v0.4.9 (python/sglang/bench_*.py) and v0.5.23 (python/sglang/benchmark/),
# each checked against ServerArgs' options of both releases. Those scripts parse ServerArgs too, so their argument
# files also hold server keys. `launch_server --config` turns every key of the file into `--key value` and parses
# it with ServerArgs' parser alone, which exits on these (prepare_server_args; sgl-project/sglang@
# 49cba38008c769e5e60c0a8758c21b80462c406e:python/sglang/srt/utils/server_args_config_parser.py
# `_convert_config_to_args`). One-word names a later server flag could start (backend, profile, seed, temperature)
# are left out.
BENCH_KEYS = frozenset((
    "apply_chat_template", "base_url", "batch_size", "client_stream_interval", "correctness_test", "cut_len",
    "dataset_name", "dataset_path", "disable_ignore_eos", "disable_stream", "disable_tqdm", "do_not_exit",
    "extra_request_body", "flush_cache", "gsp_num_groups", "gsp_output_len", "gsp_prompts_per_group",
    "gsp_question_len", "gsp_system_prompt_len", "input_len", "input_len_step_percentage", "log_decode_step",
    "lora_name", "max_concurrency", "num_prompts", "output_details", "output_file", "output_len", "pd_separated",
    "profile_by_stage", "prompt_filename", "prompt_suffix", "random_input_len", "random_output_len",
    "random_range_ratio", "request_rate", "result_filename", "return_logprob", "run_name", "sharegpt_context_len",
    "sharegpt_output_len", "show_report", "skip_warmup", "tokenize_prompt", "warmup_requests"))

SPEC_ = EngineSpec("sglang", FLAGS, int_rule="argparse", allow_abbrev=True,
                   engine_env=ENGINE_ENV, config_flags=("config",), foreign_keys=BENCH_KEYS, refuses_foreign=True)

# `python -m sglang_router.launch_server` puts ServerArgs and the router's arguments on one argparse parser: the
# router's are all spelled `--router-*` (RouterArgs.add_cli_args with use_router_prefix=True, exclude_host_port=True)
# but `--worker-urls`, plus `--router-dp-worker-base-port`. It calls parser.parse_args itself, never
# prepare_server_args, so `--config` is parsed and its file never read: no config flag here
# (sgl-project/sglang@106f37cea63a70dea91958cb633ccbd87c932d40:sgl-model-gateway/bindings/python/src/sglang_router/
# launch_server.py, router_args.py). Other `--router-*` flags are read as unknown (no capacity setting among them).
ROUTER_EXTRA = (
    F("router_dp_worker_base_port", "--router-dp-worker-base-port", kind="int", default=31000),
    F("worker_urls", "--worker-urls", kind="list"),
)
ROUTER_SPEC = EngineSpec("sglang", ROUTER_EXTRA + FLAGS, int_rule="argparse", allow_abbrev=True,
                         engine_env=ENGINE_ENV)

# Dynamo's SGLang worker passes SGLang's own flags through (engines.md §6) [U].
DYNAMO_EXTRA = (
    # Dynamo's SGLang worker maps agg and pd to SGLang's null before SGLang reads it (components/src/dynamo/
    # sglang/args.py)
    F("disaggregation_mode", "--disaggregation-mode", default="null",
      choices=("null", "agg", "pd", "prefill", "decode", "encode"), tags=ROLE),
    F("dyn_reasoning_parser", "--dyn-reasoning-parser"), F("dyn_tool_call_parser", "--dyn-tool-call-parser"),
    F("migration_limit", "--migration-limit", kind="int"), F("endpoint", "--endpoint"),
)
DYNAMO_SPEC = EngineSpec("sglang", DYNAMO_EXTRA + FLAGS, int_rule="argparse", allow_abbrev=True,  # Dynamo's win
                         engine_env=ENGINE_ENV, config_flags=("config",))
