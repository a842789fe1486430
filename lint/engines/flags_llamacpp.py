"""llama.cpp `llama-server` flags.

Source: ggml-org/llama.cpp:common/arg.cpp and tools/server/README.md
(engines.md §5.1). Each option has short and long spellings and most have a
LLAMA_ARG_* env var (the command line wins). Integers go through std::stoi,
which silently ignores trailing text (`-c 128k` is 128).
"""
from __future__ import annotations

from .flagspec import EngineSpec, F

CTX, KV, PAR, SCHED, SPEC, ROPE, MODEL = (
    "context", "kv_pool", "parallel", "scheduler", "speculative", "rope", "model")

# The other spellings common/arg.cpp's is_truthy/is_falsey (and is_autoy) accept besides on/off (auto).
_BOOLISH = ("enabled", "true", "1", "disabled", "false", "0")
_AUTOISH = ("-1",)

FLAGS = (
    F("model", "-m", "--model", env="LLAMA_ARG_MODEL", tags=MODEL),
    F("hf_repo", "-hf", "-hfr", "--hf-repo", env="LLAMA_ARG_HF_REPO", tags=MODEL),
    F("model_url", "-mu", "--model-url", env="LLAMA_ARG_MODEL_URL", tags=MODEL),
    F("alias", "-a", "--alias", env="LLAMA_ARG_ALIAS", tags=MODEL),
    F("ctx_size", "-c", "--ctx-size", kind="int", default=0, env="LLAMA_ARG_CTX_SIZE", tags=CTX,
      doc="0 = the GGUF n_ctx_train; total over all slots unless --kv-unified"),
    F("n_predict", "-n", "--predict", "--n-predict", kind="int", default=-1, env="LLAMA_ARG_N_PREDICT"),
    F("n_parallel", "-np", "--parallel", kind="int", default=-1, env="LLAMA_ARG_N_PARALLEL", tags=SCHED,
      doc="-1 = auto (older versions: 1)"),
    # -no-kvu: ggml-org/llama.cpp@b11434:common/arg.cpp (`{"-no-kvu", "--no-kv-unified"}`)
    F("kv_unified", "-kvu", "--kv-unified", kind="bool", negatives=("-no-kvu", "--no-kv-unified"),
      env="LLAMA_ARG_KV_UNIFIED", tags=KV),
    # ggml-org/llama.cpp#24124 (b11434: common/arg.cpp, tools/server/server.cpp:176-186): caps each slot, and
    # without -c sizes the pool to n_parallel x N (physics/llamacpp.py)
    F("kv_unified_per_slot", "--kv-unified-per-slot", kind="int", default=0, env="LLAMA_ARG_KV_UNIFIED_PER_SLOT",
      tags=CTX, doc="0 = unset; per-slot cap, and without -c the pool is n_parallel x N"),
    F("cont_batching", "-cb", "--cont-batching", kind="bool", default=True, negatives=("-nocb", "--no-cont-batching"),
      env="LLAMA_ARG_CONT_BATCHING", tags=SCHED),
    F("n_batch", "-b", "--batch-size", kind="int", default=2048, env="LLAMA_ARG_BATCH", tags=SCHED),
    F("n_ubatch", "-ub", "--ubatch-size", kind="int", default=512, env="LLAMA_ARG_UBATCH", tags=SCHED),
    F("context_shift", "--context-shift", kind="bool", default=False, negatives=("--no-context-shift",),
      env="LLAMA_ARG_CONTEXT_SHIFT", tags=CTX),
    F("cache_type_k", "-ctk", "--cache-type-k", default="f16", env="LLAMA_ARG_CACHE_TYPE_K", tags=KV),
    F("cache_type_v", "-ctv", "--cache-type-v", default="f16", env="LLAMA_ARG_CACHE_TYPE_V", tags=KV),
    F("no_kv_offload", "-nkvo", "--no-kv-offload", kind="bool", default=False, env="LLAMA_ARG_NO_KV_OFFLOAD",
      tags=KV),
    F("swa_full", "--swa-full", kind="bool", default=False, env="LLAMA_ARG_SWA_FULL", tags=KV),
    # common_arg_utils::is_truthy/is_falsey/is_autoy: `1`, `true`, `enabled` are `on`, and so on.
    F("flash_attn", "-fa", "--flash-attn", takes="optional", choices=("on", "off", "auto") + _BOOLISH + _AUTOISH,
      default="auto", env="LLAMA_ARG_FLASH_ATTN", doc="a bare flag on older versions"),
    F("n_gpu_layers", "-ngl", "--gpu-layers", "--n-gpu-layers", env="LLAMA_ARG_N_GPU_LAYERS", tags=PAR),
    F("split_mode", "-sm", "--split-mode", env="LLAMA_ARG_SPLIT_MODE", tags=PAR),
    F("tensor_split", "-ts", "--tensor-split", env="LLAMA_ARG_TENSOR_SPLIT", tags=PAR),
    # Placement that moves weights off the GPU or adds devices: with any of them set, ctxlint does not hold the
    # whole model and KV against one GPU (lint/llamacpp_cells.py). Spellings: common/arg.cpp, tools/server/README.md.
    F("override_tensor", "-ot", "--override-tensor", env="LLAMA_ARG_OVERRIDE_TENSOR", tags=PAR),
    F("cpu_moe", "-cmoe", "--cpu-moe", kind="bool", default=False, env="LLAMA_ARG_CPU_MOE", tags=PAR),
    F("n_cpu_moe", "-ncmoe", "--n-cpu-moe", kind="int", default=0, env="LLAMA_ARG_N_CPU_MOE", tags=PAR),
    F("device", "-dev", "--device", env="LLAMA_ARG_DEVICE", tags=PAR),
    F("rpc", "--rpc", env="LLAMA_ARG_RPC", tags=PAR),
    F("fit", "-fit", "--fit", takes="optional", choices=("on", "off") + _BOOLISH, default="on", env="LLAMA_ARG_FIT"),
    F("fit_ctx", "-fitc", "--fit-ctx", kind="int", default=4096, env="LLAMA_ARG_FIT_CTX",
      doc="the least context --fit lowers an unset -c to (per stream)"),
    F("rope_scaling", "--rope-scaling", choices=("none", "linear", "yarn"), env="LLAMA_ARG_ROPE_SCALING_TYPE",
      tags=ROPE),
    F("rope_scale", "--rope-scale", kind="float", env="LLAMA_ARG_ROPE_SCALE", tags=ROPE),
    F("rope_freq_base", "--rope-freq-base", kind="float", env="LLAMA_ARG_ROPE_FREQ_BASE", tags=ROPE),
    F("rope_freq_scale", "--rope-freq-scale", kind="float", env="LLAMA_ARG_ROPE_FREQ_SCALE", tags=ROPE),
    F("yarn_orig_ctx", "--yarn-orig-ctx", kind="int", env="LLAMA_ARG_YARN_ORIG_CTX", tags=ROPE),
    F("override_kv", "--override-kv", tags=CTX, doc="e.g. llama.context_length=int:N; repeatable"),
    F("model_draft", "-md", "--model-draft", env="LLAMA_ARG_MODEL_DRAFT", tags=SPEC),
    F("draft_max", "--draft-max", "--draft", "--draft-n", "--spec-draft-n-max", kind="int",
      env="LLAMA_ARG_DRAFT_MAX", tags=SPEC),
    F("keep", "--keep", kind="int", default=0),
    F("cache_reuse", "--cache-reuse", kind="int", default=0, env="LLAMA_ARG_CACHE_REUSE", tags=KV),
    F("threads", "-t", "--threads", kind="int", env="LLAMA_ARG_THREADS"),
    F("jinja", "--jinja", kind="bool", default=False, env="LLAMA_ARG_JINJA"),
    F("host", "--host", default="127.0.0.1", env="LLAMA_ARG_HOST"),
    # Router mode: llama-server given no model (-m, -hf) loads none itself and "must not touch the GPU"; it serves
    # the models a directory or an INI preset names, each in a child llama-server with that model's own settings
    # (ggml-org/llama.cpp@145b628:common/arg.cpp --models-dir/--models-preset/--models-max/--models-autoload;
    # tools/server/server.cpp `is_router_server = params.model.path.empty()`). Listed so that a router's command
    # line is read for what it is (capacity_notes.router_mode), not as a server that forgot its model.
    F("models_dir", "--models-dir", env="LLAMA_ARG_MODELS_DIR"),
    F("models_preset", "--models-preset", env="LLAMA_ARG_MODELS_PRESET"),
    F("models_max", "--models-max", kind="int", env="LLAMA_ARG_MODELS_MAX"),
    F("models_autoload", "--models-autoload", kind="bool", negatives=("--no-models-autoload",),
      env="LLAMA_ARG_MODELS_AUTOLOAD"),
    F("port", "--port", kind="int", default=8080, env="LLAMA_ARG_PORT"),
)

# common_params_parse_ex makes `_` a `-` in a `--` word, then looks the whole word up in arg_to_options and throws
# "error: invalid argument: %s" for one it has not: no `=` is split, so `--ctx-size=8192` stops the server
# (ggml-org/llama.cpp@145b628:common/arg.cpp common_params_parse_ex; the same lookup in every common/arg.cpp read,
# from its first to the `parse_cli_args` lambda of later builds; gpustack/gpustack#3741 shows the server-cuda image
# exiting so in 2025-12). No build was found that splits it, so it is not banded by build.
# The same loop makes every `_` of a `--` word a `-` before the lookup, so `--ctx_size 8192` is --ctx-size
# (underscore_equals_dash; ggml-org/llama.cpp#6191 is a break of it in 2024-03, fixed days later, not banded)
SPEC_ = EngineSpec("llamacpp", FLAGS, int_rule="stoi", float_rule="stoi", splits_equals=False,
                   underscore_equals_dash=True)
