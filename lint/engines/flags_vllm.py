"""vLLM flags that matter for context, capacity, parallelism and PD roles.

Source: vllm-project/vllm:vllm/engine/arg_utils.py (EngineArgs.add_cli_args)
and the config dataclasses in vllm/config/ (engines.md §1.1). vLLM's
FlexibleArgumentParser accepts `--max_model_len` for `--max-model-len`
(underscores become dashes before argparse reads them), keeps argparse's
prefix abbreviation (`--max-num-seq` is `--max-num-seqs`: it never passes
allow_abbrev=False, vllm-project/vllm@00da11e37d1ffac917c3427fff227500302eb452:
vllm/utils/argparse_utils.py), and uses BooleanOptionalAction for bools.
"""
from __future__ import annotations

from .flagspec import B, EngineEnv, EngineSpec, F

CTX, KV, MEM, PAR, SCHED, ROLE, SPEC, ROPE, MODEL = (
    "context", "kv_pool", "memory", "parallel", "scheduler", "role", "speculative", "rope", "model")
# From 0.33.0 FlexibleArgumentParser registers EnableDisableAction for every BooleanOptionalAction: a switch spelled
# `--enable-x` also takes `--disable-x`, and `--disable-x` takes `--enable-x`, each setting the dest to the inverse
# (`--no-x` kept). vllm-0.33.0 and vllm-0.34.0/vllm/utils/argparse_utils.py:120-145, registered at :179; absent from
# the 0.28.0-0.32.0 wheels. Only dataclass bool fields (BooleanOptionalAction) get it, not store_true flags
# (--disable-log-stats, --headless).
PAIRED = "0.33.0"
MAMBA_DTYPES_SINCE = (("float16", "0.13.0"), ("bfloat16", "0.22.0"))  # MambaDType's later choices (below)
# Bare human-readable numbers in a dataclass-typed flag's JSON (`{"max_cudagraph_capture_size": 1k}`), expanded before
# it is read: vllm-0.20.0 to 0.34.0 wheels' vllm/engine/arg_utils.py `_expand_json_human_readable_numbers` in
# `parse_dataclass`; not in the 0.19.0 wheel's. Not --hf-overrides or --speculative-config (typed json.loads).
JSON_SUFFIXES = "0.20.0"

FLAGS = (
    F("model", "--model", tags=MODEL, doc="also the positional MODEL of `vllm serve`"),
    F("served_model_name", "--served-model-name", kind="list", tags=MODEL),
    # LoRA adapters are served under their own names (gateways route to them: ctxlint.stack).
    B("enable_lora", "--enable-lora", default=False, tags=MODEL, inverse_since=PAIRED),
    F("lora_modules", "--lora-modules", kind="list", tags=MODEL, doc="name=path or JSON, one per adapter"),
    F("revision", "--revision", tags=MODEL),
    F("tokenizer", "--tokenizer", tags=MODEL),
    # ModelDType, argparse choices in every release read (vllm-0.30.0 to 0.34.0 wheels' vllm/config/model.py)
    F("dtype", "--dtype", default="auto", choices=("auto", "half", "float16", "bfloat16", "float", "float32")),
    F("quantization", "--quantization", "-q", tags=MODEL),
    B("trust_remote_code", "--trust-remote-code", default=False),
    F("config", "--config", doc="YAML file whose keys are flag names; CLI wins"),
    # Context length, read three ways by release (FlagSpec.int_eras): `type=int` until vllm-project/vllm#16181
    # "[Misc] Human-readable max-model-len" (merged 2025-04-07, the day after v0.8.3) made it human_readable_int,
    # first in 0.8.4 (Farrrrland/vllm084@36ca3c652f00a1d6c5d6860bc237ad38425e2d53:vllm/engine/arg_utils.py);
    # human_readable_int_or_auto (-1 / `auto` = auto-fit to the KV memory) from vllm-project/vllm#29431, first in
    # 0.14.0: the 0.12.0 and 0.13.0 wheels' vllm/engine/arg_utils.py read it with human_readable_int (no `auto`,
    # and `-1` is kept as the length: vllm/config/model.py has no -1 case), the 0.14.0 wheel's with
    # human_readable_int_or_auto and `max_model_len is None or max_model_len == -1` in _get_and_verify_max_len.
    F("max_model_len", "--max-model-len", kind="int", int_rule="vllm_auto", tags=CTX,
      int_eras=(("0.8.4", "argparse"), ("0.14.0", "vllm"))),
    F("hf_overrides", "--hf-overrides", kind="json", tags=ROPE),
    # Flags later releases dropped (FlagSpec.removed_in: argparse exits on them there, CTX301). Each is absent from
    # the 0.12.0 wheel's vllm/engine/arg_utils.py and vllm/config/*.py. --rope-scaling / --rope-theta: removed by
    # vllm-project/vllm#28006 (merged 2025-11-04), first left out of v0.11.1 (vllm-project/recipes#856; 0.13.0:
    # "unrecognized arguments: --rope-scaling", gpustack/gpustack#4236); until then ModelConfig merged them into
    # hf_overrides with "Please instead use `--hf-overrides '{...}'`" (vllm/config/model.py, __post_init__).
    F("rope_scaling", "--rope-scaling", kind="json", tags=ROPE, removed_in="0.11.1",
      instead="write --hf-overrides '{\"rope_scaling\": {value}}' instead"),
    F("rope_theta", "--rope-theta", kind="float", tags=ROPE, removed_in="0.11.1",
      instead="write --hf-overrides '{\"rope_theta\": {value}}' instead"),
    # vllm-project/vllm#25543 "[V0 Deprecation] Remove max_seq_len_to_capture", first left out of v0.11.0
    # (NVIDIA-NeMo/Curator#1200 drops it "for vllm 0.11.0"); V1 sizes CUDA graphs by batch, not by length.
    F("max_seq_len_to_capture", "--max-seq-len-to-capture", kind="int", tags=MEM, removed_in="0.11.0",
      instead="remove it; V1 captures CUDA graphs by batch size, --max-cudagraph-capture-size"),
    # vllm-project/vllm#20968 removed TokenizerPoolConfig (--tokenizer-pool-size/-type/-extra-config) "in time
    # for v0.10.0"; deprecated since vllm#16790, the pool did nothing.
    F("tokenizer_pool_size", "--tokenizer-pool-size", kind="int", removed_in="0.10.0",
      instead="remove it"),
    B("disable_sliding_window", "--disable-sliding-window", default=False, tags=CTX, inverse_since=PAIRED),
    F("generation_config", "--generation-config", default="auto"),
    F("override_generation_config", "--override-generation-config", kind="json"),
    # KV pool and memory (CacheConfig).
    # `--device-memory-utilization`: the same dest, from 0.31.0 (vllm-project/vllm@v0.31.0:vllm/engine/arg_utils.py;
    # absent from the 0.28.0-0.30.0 wheels' arg_utils.py; vllm-0.34.0/vllm/engine/arg_utils.py:1403-1408).
    # The default is by release, and by KV sizing from 0.34.0 (ctxlint.physics.vllm_extensible).
    F("gpu_memory_utilization", "--gpu-memory-utilization", "--device-memory-utilization", kind="float", default=0.9,
      tags=MEM, spelled_since=(("--device-memory-utilization", "0.31.0"),),
      doc="fraction of TOTAL device memory: 0.90, 0.92 from 0.20.0, 1.0 with 0.34's extensible KV cache"),
    F("kv_cache_memory_bytes", "--kv-cache-memory-bytes", kind="int", int_rule="vllm", tags=(KV, MEM)),
    # 0.34.0: size the KV cache from the memory measured after warmup and capture (on by default on CUDA/ROCm;
    # vllm-0.34.0/vllm/engine/arg_utils.py:1413, vllm/config/cache.py:395-405; ctxlint.physics.vllm_extensible)
    # The whole flag is 0.34.0's: every spelling of it is refused before.
    B("enable_extensible_kv_cache", "--enable-extensible-kv-cache", tags=(KV, MEM), inverse_since="0.34.0",
      spelled_since=(("--enable-extensible-kv-cache", "0.34.0"), ("--no-enable-extensible-kv-cache", "0.34.0"))),
    F("num_gpu_blocks_override", "--num-gpu-blocks-override", kind="int", tags=KV),
    F("block_size", "--block-size", kind="int", default=16, tags=KV),
    F("kv_cache_dtype", "--kv-cache-dtype", default="auto", tags=KV),
    # Dropped in 0.28.0: CacheConfig.calculate_kv_scales is in the 0.27.0 wheel's vllm/engine/arg_utils.py and not in
    # 0.28.0's (deprecated "to be removed", vllm-project/vllm#37565)
    B("calculate_kv_scales", "--calculate-kv-scales", default=False, tags=KV, removed_in="0.28.0",
      instead="remove it; the KV scales come from the checkpoint, else 1.0"),
    B("enable_prefix_caching", "--enable-prefix-caching", default=True, tags=KV, inverse_since=PAIRED),
    F("kv_offloading_size", "--kv-offloading-size", kind="float", tags=KV),
    # Mamba / linear-attention state dtypes (physics/mamba.py sizes the state pages by them): argparse choices from
    # CacheConfig's MambaDType. Both flags from 0.10.1 (vllm==0.10.1:vllm/engine/arg_utils.py; absent from
    # vllm==0.10.0's); MambaDType is ("auto", "float32") in vllm==0.10.1 to 0.12.0:vllm/config/cache.py, float16 from
    # vllm==0.13.0, bfloat16 from vllm==0.22.0 (absent from 0.21.0's; kept to 0.34.0)
    F("mamba_cache_dtype", "--mamba-cache-dtype", default="auto", tags=KV,
      choices=("auto", "bfloat16", "float16", "float32"), choices_since=MAMBA_DTYPES_SINCE,
      spelled_since=(("--mamba-cache-dtype", "0.10.1"),)),
    F("mamba_ssm_cache_dtype", "--mamba-ssm-cache-dtype", default="auto", tags=KV,
      choices=("auto", "bfloat16", "float16", "float32"), choices_since=MAMBA_DTYPES_SINCE,
      spelled_since=(("--mamba-ssm-cache-dtype", "0.10.1"),)),
    F("kv_offloading_backend", "--kv-offloading-backend", tags=KV),
    F("cpu_offload_gb", "--cpu-offload-gb", kind="float", default=0.0, tags=MEM),
    # V0's CPU swap, unused by V1: vllm-project/vllm#36216 dropped --swap-space; in the 0.17.1 wheel's
    # vllm/engine/arg_utils.py, not in 0.18.0's (nor any later: unslothai/unsloth-zoo#1210 read 0.18.0-0.29.0)
    F("swap_space", "--swap-space", kind="float", default=4.0, tags=MEM, doc="V0 only", removed_in="0.18.0",
      instead="remove it; V1 never swaps KV to CPU"),
    B("disable_hybrid_kv_cache_manager", "--disable-hybrid-kv-cache-manager", default=False, tags=KV,
      inverse_since=PAIRED),
    B("enforce_eager", "--enforce-eager", default=False, tags=MEM),
    # Scheduler.
    # human_readable_int from vllm-project/vllm#18968 (opened 2025-05-30 against a main whose `10k` failed with
    # "invalid int value: '10k'", after 0.9.0 was cut); the 0.12.0 wheel lists it among human_readable_ints.
    # 0.9.1 is the first release that can have it (not verified there: a refusal is assumed only before it).
    F("max_num_batched_tokens", "--max-num-batched-tokens", kind="int", int_rule="vllm", tags=SCHED,
      int_eras=(("0.9.1", "argparse"),)),
    F("max_num_seqs", "--max-num-seqs", kind="int", tags=SCHED),
    # StoreBoolean (`=false` read) until a BooleanOptionalAction switch; 0.9.2 is one (fixes.NEGATIVES_SINCE)
    B("enable_chunked_prefill", "--enable-chunked-prefill", tags=SCHED, doc="on by default in V1",
      explicit_until="0.9.2", inverse_since=PAIRED),
    # vllm-project/vllm#49244 dropped the V0 fields (V1 refused values above 1): in the 0.26.0 wheel's
    # vllm/engine/arg_utils.py, not in 0.27.0's
    F("max_num_partial_prefills", "--max-num-partial-prefills", kind="int", default=1, tags=SCHED,
      removed_in="0.27.0", instead="remove it; V1 caps long prefills with --long-prefill-token-threshold"),
    F("long_prefill_token_threshold", "--long-prefill-token-threshold", kind="int", tags=SCHED),
    B("scheduler_reserve_full_isl", "--scheduler-reserve-full-isl", default=True, tags=SCHED),
    # Multi-step scheduling (V0): its flags went with vllm-project/vllm#22779 (merged 2025-08-13); 0.10.2 is the
    # first release sure to lack it (0.10.1 was cut about then, not verified: a refusal is not assumed there).
    F("num_scheduler_steps", "--num-scheduler-steps", kind="int", default=1, removed_in="0.10.2",
      instead="remove it"),
    # Parallelism.
    F("tensor_parallel_size", "--tensor-parallel-size", "-tp", kind="int", default=1, tags=PAR),
    # DEVICE_OPTIONS: auto, cuda, neuron, cpu, tpu, xpu, hpu
    # (HabanaAI/vllm-fork@5052d326d1ee697ad2f0d2b8e5a595175b1a39c1:vllm/engine/arg_utils.py); a non-NVIDIA one sets
    # Role.vendor (engines.image_builds)
    F("device", "--device", tags=PAR),
    F("pipeline_parallel_size", "--pipeline-parallel-size", "-pp", kind="int", default=1, tags=PAR),
    F("data_parallel_size", "--data-parallel-size", "-dp", kind="int", default=1, tags=PAR),
    F("data_parallel_size_local", "--data-parallel-size-local", "-dpl", kind="int", tags=PAR),
    F("data_parallel_rank", "--data-parallel-rank", "-dpn", kind="int", tags=PAR),
    B("enable_expert_parallel", "--enable-expert-parallel", "-ep", default=False, tags=PAR,
      doc="-ep alias [U]", inverse_since=PAIRED),
    # elastic EP turns 0.34's extensible KV cache off (vllm-0.34.0/vllm/config/vllm.py:3214)
    B("enable_elastic_ep", "--enable-elastic-ep", tags=PAR, inverse_since=PAIRED),
    F("decode_context_parallel_size", "--decode-context-parallel-size", "-dcp", kind="int", default=1,
      tags=PAR),
    F("prefill_context_parallel_size", "--prefill-context-parallel-size", "-pcp", kind="int", default=1,
      tags=PAR, doc="[U] spelling"),
    F("distributed_executor_backend", "--distributed-executor-backend", tags=PAR),
    # Multi-node without Ray: one engine's ranks over `--nnodes` nodes (the mp executor; vLLM 0.11.1 on, vllm#23691).
    F("nnodes", "--nnodes", "-n", kind="int", default=1, tags=PAR),
    F("node_rank", "--node-rank", "-r", kind="int", default=0, tags=PAR),
    F("master_addr", "--master-addr", tags=PAR), F("master_port", "--master-port", kind="int", tags=PAR),
    # store_true (no --no- form). `vllm serve --headless` starts no API server, only engines (a data-parallel node)
    # or, at --node-rank >= 1, node 0's engine's workers (vLLM 0.9.0 on; ServeSubcommand.cmd, run_headless,
    # vllm-project/vllm@00a5fdd20935ba7679750db22997dcf539ca4591:vllm/entrypoints/cli/serve.py)
    F("headless", "--headless", kind="bool", default=False, tags=ROLE),
    # PD disaggregation and speculative decoding.
    F("kv_transfer_config", "--kv-transfer-config", kind="json", tags=ROLE, json_suffixes_since=JSON_SUFFIXES,
      doc='JSON with "kv_role": kv_producer | kv_consumer | kv_both'),
    F("speculative_config", "--speculative-config", kind="json", tags=SPEC),
    # Shortcuts for its keys (specs.vllm_speculative merges them): in the 0.22.0 to 0.34.0 wheels' vllm/engine/
    # arg_utils.py (0.34.0: :1899-1904, merged at :2140-2155), not in 0.21.0's
    F("spec_method", "--spec-method", tags=SPEC, spelled_since=(("--spec-method", "0.22.0"),)),
    F("spec_model", "--spec-model", tags=SPEC, spelled_since=(("--spec-model", "0.22.0"),)),
    F("spec_tokens", "--spec-tokens", kind="int", tags=SPEC, spelled_since=(("--spec-tokens", "0.22.0"),)),
    F("compilation_config", "--compilation-config", "-cc", kind="json", doc="-cc alias [U]",
      json_suffixes_since=JSON_SUFFIXES),
    # The attention backend's settings, `indexer_kv_dtype` among them (the dtype of MiniMax-M3's index-key cache,
    # physics/msa_index.py); in the 0.13.0 to 0.34.0 wheels' vllm/engine/arg_utils.py (0.34.0: :1925)
    F("attention_config", "--attention-config", "-ac", kind="json", json_suffixes_since=JSON_SUFFIXES),
    # Newest FlexibleArgumentParser rewrites -O3 / -O=3 / -O 3 to --optimization-level
    # (vllm/utils/argparse_utils.py); older releases read -O as the compilation config.
    F("optimization_level", "--optimization-level", "-O"),
    F("host", "--host"),
    F("port", "--port", kind="int", default=8000),
    # Seen in the corpus; listed so that their arity is right (no context meaning).
    F("tokenizer_mode", "--tokenizer-mode"), F("load_format", "--load-format"),
    F("download_dir", "--download-dir"), F("chat_template", "--chat-template"),
    F("tool_call_parser", "--tool-call-parser"),
    # --reasoning-parser and --enable-reasoning came with vllm-project/vllm#12473 (opened 2025-01-27, v0.7.0's day):
    # neither is in the vllm==0.7.0 wheel (no "reasoning" in vllm/entrypoints/openai/cli_args.py nor
    # vllm/engine/arg_utils.py there; wheel sha256 946c4169df196138...), both are in 0.7.1's, so 0.7.0 and earlier
    # exit on them ("unrecognized arguments")
    F("reasoning_parser", "--reasoning-parser", spelled_since=(("--reasoning-parser", "0.7.1"),)),
    # store_true in the vllm==0.7.1 wheel (vllm/entrypoints/openai/cli_args.py), a deprecated BooleanOptionalAction
    # in 0.9.2's (vllm/engine/arg_utils.py: "will be removed in v0.10.0"), in no file of the 0.10.0 wheel
    # (vllm-project/vllm#18538: "unrecognized arguments: --enable-reasoning" on 0.10.0). Its --no- form is only in
    # the later ones, so it is not listed.
    F("enable_reasoning", "--enable-reasoning", kind="bool", removed_in="0.10.0",
      spelled_since=(("--enable-reasoning", "0.7.1"),),
      instead="remove it; --reasoning-parser alone turns reasoning on"),
    B("enable_auto_tool_choice", "--enable-auto-tool-choice"), F("api_key", "--api-key", kind="list"),
    F("uvicorn_log_level", "--uvicorn-log-level"), B("disable_uvicorn_access_log", "--disable-uvicorn-access-log"),
    F("disable_access_log_for_endpoints", "--disable-access-log-for-endpoints"),
    # --disable-log-requests: a deprecated BooleanOptionalAction up to 0.16.0 (vllm-0.16.0/vllm/engine/arg_utils.py
    # :2087-2093), gone from 0.17.0 (not in the 0.17.1-0.32.0 wheels; "removed from vLLM 0.17.0",
    # llm-d/llm-d-benchmark#781), back in 0.33.0 as the inverse of --enable-log-requests (EnableDisableAction, PAIRED)
    B("disable_log_requests", "--disable-log-requests", removed_in="0.17.0", restored_in=PAIRED,
      instead="request logging is off by default; write --no-enable-log-requests or nothing"),
    # store_true in every release read (0.16.0-0.34.0 wheels' vllm/engine/arg_utils.py): no --no- form
    F("disable_log_stats", "--disable-log-stats", kind="bool", default=False),
    F("api_server_count", "--api-server-count", kind="int", tags=PAR),
    F("data_parallel_address", "--data-parallel-address", "-dpa", tags=PAR),
    F("data_parallel_rpc_port", "--data-parallel-rpc-port", "-dpp", kind="int", tags=PAR),
    F("data_parallel_start_rank", "--data-parallel-start-rank", "-dpr", kind="int", tags=PAR),
    B("data_parallel_hybrid_lb", "--data-parallel-hybrid-lb", "-dph", tags=PAR),
    B("data_parallel_external_lb", "--data-parallel-external-lb", "-dpe", tags=PAR),
    F("all2all_backend", "--all2all-backend", tags=PAR),
    B("enable_eplb", "--enable-eplb", tags=PAR, inverse_since=PAIRED),
    F("eplb_config", "--eplb-config", kind="json", tags=PAR, json_suffixes_since=JSON_SUFFIXES),
    B("enable_dbo", "--enable-dbo", inverse_since=PAIRED),
    F("dbo_decode_token_threshold", "--dbo-decode-token-threshold", kind="int"),
    B("async_scheduling", "--async-scheduling", tags=SCHED),
    F("max_cudagraph_capture_size", "--max-cudagraph-capture-size", kind="int", tags=MEM),
    F("attention_backend", "--attention-backend"), F("moe_backend", "--moe-backend"),
    F("model_loader_extra_config", "--model-loader-extra-config", kind="json"),
    F("stream_interval", "--stream-interval", kind="int"),
    F("kv_events_config", "--kv-events-config", kind="json", json_suffixes_since=JSON_SUFFIXES),
    F("limit_mm_per_prompt", "--limit-mm-per-prompt", kind="json", kvs_until="0.10.0"),  # image=1 before
    B("language_model_only", "--language-model-only", doc="[U]"),
    # The multimodal profile's switches (physics/vllm_mm.py), each release's vllm/engine/arg_utils.py read:
    # --skip-mm-profiling from 0.10.1 (in the 0.10.1.1 wheel, not 0.10.0's), --mm-encoder-tp-mode from 0.10.2 ("weights"
    # or "data"; not in 0.10.1.1), which took over --enable-multimodal-encoder-data-parallel (0.10.0-0.11.0 wheels;
    # deprecated "and will be removed in v0.13", absent from the 0.13.0 wheel)
    B("skip_mm_profiling", "--skip-mm-profiling", tags=MEM,
      spelled_since=(("--skip-mm-profiling", "0.10.1"), ("--no-skip-mm-profiling", "0.10.1"))),
    F("mm_encoder_tp_mode", "--mm-encoder-tp-mode", choices=("weights", "data"), tags=MEM,
      spelled_since=(("--mm-encoder-tp-mode", "0.10.2"),)),
    B("enable_multimodal_encoder_data_parallel", "--enable-multimodal-encoder-data-parallel", tags=MEM,
      removed_in="0.13.0", instead="write --mm-encoder-tp-mode data"),
    F("mm_processor_kwargs", "--mm-processor-kwargs", kind="json", tags=MEM),
)

ENGINE_ENV = (
    EngineEnv("VLLM_ALLOW_LONG_MAX_MODEL_LEN", "bool", False,
              "lets --max-model-len exceed the derived length with a warning (engines.md §1.2a)"),
    EngineEnv("VLLM_USE_V1", "bool", None, "V0/V1 engine switch on older releases"),
    # Llama 4's chunked layers are bounded by their chunk only with it set (default "0" in 0.10.1-0.13, "1" from
    # 0.14.0): vllm-project/vllm@v0.12.0/@v0.14.0:vllm/envs.py, ctxlint.physics.vllm_chunked
    EngineEnv("VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE", "bool", None,
              "hybrid KV cache manager kept for chunked local attention (Llama 4)"),
    EngineEnv("VLLM_ATTENTION_BACKEND", "str", None, "attention backend override"),
    # layers per pipeline stage, comma-separated (vllm-project/vllm@5a6541d:vllm/distributed/utils.py
    # get_pp_indices; physics/pp_partition.py)
    EngineEnv("VLLM_PP_LAYER_PARTITION", "str", None, "decoder layers of each PP stage"),
    EngineEnv("VLLM_NIXL_SIDE_CHANNEL_HOST", "str", "localhost", "NixlConnector side channel"),
    EngineEnv("VLLM_NIXL_SIDE_CHANNEL_PORT", "int", 5600, "NixlConnector side channel"),
    EngineEnv("VLLM_MOONCAKE_BOOTSTRAP_PORT", "int", 8998, "MooncakeConnector bootstrap"),
    # vllm-project/vllm@f6ff3f0f903ec4dc46b3fae16e830715f52b9223:vllm/platforms/cpu.py: the CPU backend's KV
    # cache is this many GiB (CpuPlatform: cache_config.cpu_kvcache_space_bytes); GPU platforms ignore it
    EngineEnv("VLLM_CPU_KVCACHE_SPACE", "str", None, "KV cache space of the CPU backend, GiB"),
    # vllm-project/vllm-neuron@a5ef7c88c3e4e44bea9af9051d8fb113588c0a21:vllm_neuron/platform.py: 1 runs vLLM's own
    # scheduler instead of the plugin's, which keeps --block-size (ctxlint.neuron); other platforms ignore it
    EngineEnv("DISABLE_NEURON_CUSTOM_SCHEDULER", "str", None, "vllm-neuron: vLLM's scheduler, --block-size kept"),
)

SPEC_ = EngineSpec("vllm", FLAGS, int_rule="argparse", underscore_equals_dash=True, allow_abbrev=True,
                   attached_short=True, engine_env=ENGINE_ENV, config_flags=("config",), dotted_json=True,
                   refuses_foreign=True)

# Dynamo's vLLM worker (`python -m dynamo.vllm`) takes every vLLM flag plus its own
# (ai-dynamo/dynamo:components/src/dynamo/vllm/backend_args.py, engines.md §6).
DYNAMO_EXTRA = (
    B("is_prefill_worker", "--is-prefill-worker", default=False, env="DYN_VLLM_IS_PREFILL_WORKER", tags=ROLE),
    B("is_decode_worker", "--is-decode-worker", default=False, env="DYN_VLLM_IS_DECODE_WORKER", tags=ROLE),
    F("disaggregation_mode", "--disaggregation-mode", choices=("agg", "pd", "prefill", "decode", "encode"), tags=ROLE,
      env="DYN_VLLM_DISAGGREGATION_MODE",
      doc="newer Dynamo releases (components/src/dynamo/vllm/backend_args.py: agg and pd serve both phases)"),
    F("dyn_endpoint", "--endpoint"),
    F("migration_limit", "--migration-limit", kind="int"),
    F("dyn_reasoning_parser", "--dyn-reasoning-parser"), F("dyn_tool_call_parser", "--dyn-tool-call-parser"),
)
# Dynamo parses them with vLLM's FlexibleArgumentParser too (components/src/dynamo/vllm/args.py): prefixes as vLLM's.
DYNAMO_SPEC = EngineSpec("vllm", FLAGS + DYNAMO_EXTRA, int_rule="argparse", underscore_equals_dash=True,
                         allow_abbrev=True, attached_short=True, engine_env=ENGINE_ENV, config_flags=("config",), dotted_json=True)
