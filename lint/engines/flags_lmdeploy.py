"""LMDeploy `lmdeploy serve api_server MODEL` flags.

Source: InternLM/lmdeploy:lmdeploy/cli/utils.py (ArgumentHelper),
lmdeploy/cli/serve.py and lmdeploy/messages.py (engines.md §8.1). Plain
argparse: `type=int`, store_true bools, prefix abbreviation allowed.
"""
from __future__ import annotations

from .flagspec import EngineSpec, F

CTX, KV, MEM, PAR, SCHED, ROLE, ROPE, MODEL = (
    "context", "kv_pool", "memory", "parallel", "scheduler", "role", "rope", "model")

FLAGS = (
    # The model is `api_server`'s positional `model_path` only, since the argparse CLI of 0.2.0 (lmdeploy==0.2.0,
    # 0.14.0, 0.16.0, 0.18.0:lmdeploy/cli/serve.py `parser.add_argument('model_path', ...)`); 0.1.0's python-fire CLI
    # (lmdeploy==0.1.0:lmdeploy/cli/cli.py fire.Fire, cli/serve.py `api_server(self, model_path, ...)`) took
    # `--model-path` too. Run in the 0.14.0-0.18.0 parsers, `serve api_server --model-path M` exits "unrecognized
    # arguments: --model-path" (M is read as the positional): no prefix of another option, it is no `--model-name`.
    F("model_path", "--model-path", tags=MODEL, removed_in="0.2.0",
      instead="lmdeploy serve api_server takes the model as its first positional argument: write "
              "`lmdeploy serve api_server {value}`"),
    F("model_name", "--model-name", tags=MODEL),
    # LoRA adapters of the PyTorch engine, from 0.3.0 (lmdeploy==0.3.0:lmdeploy/cli/utils.py `adapters`, absent from
    # 0.2.6's; the same in 0.14.0-0.18.0): `nargs='*'`, `NAME=PATH` each, or one bare PATH named `default`
    # (cli/utils.py get_lora_adapters). Their names are served beside the model's (serve/openai/utils.py
    # get_model_list; lint/stack.py served_names). TurboMind has no adapters: cli/serve.py passes them to
    # PytorchEngineConfig only.
    F("adapters", "--adapters", kind="list", takes="any", tags=MODEL, spelled_since=(("--adapters", "0.3.0"),),
      doc="NAME=PATH ..., or one PATH (named default); PyTorch engine only"),
    F("backend", "--backend", default="turbomind", choices=("turbomind", "pytorch")),
    F("session_len", "--session-len", kind="int", tags=CTX, doc="silently capped to the KV capacity"),
    F("cache_max_entry_count", "--cache-max-entry-count", kind="float", default=0.8, tags=(KV, MEM),
      doc="fraction of FREE memory after weights; >= 1: blocks or a refusal, by backend and release "
          "(physics/lmdeploy_backend.py)"),
    # The PyTorch engine's pool in blocks, from 0.18.0 (lmdeploy-0.18.0 wheel: lmdeploy/cli/utils.py
    # `num_gpu_blocks`, `type=int, default=0`; absent from 0.17.0's); cli/serve.py passes it to
    # PytorchEngineConfig only, and TurboMind never reads it
    F("num_gpu_blocks", "--num-gpu-blocks", kind="int", default=0, tags=KV,
      spelled_since=(("--num-gpu-blocks", "0.18.0"),), doc="PyTorch engine only; 0 = from cache_max_entry_count"),
    F("cache_block_seq_len", "--cache-block-seq-len", kind="int", default=64, tags=KV),
    F("max_prefill_token_num", "--max-prefill-token-num", kind="int", default=8192, tags=SCHED),
    F("max_batch_size", "--max-batch-size", kind="int", tags=SCHED),
    # Names (`int8`, `fp8`) from 0.14.0, plain numbers with release-dependent choices before (lmdeploy_quant.py)
    F("quant_policy", "--quant-policy", kind="int", default=0, tags=KV, int_rule="lmdeploy_qp",
      int_eras=(("0.13.0", "lmdeploy_qp_04"), ("0.14.0", "lmdeploy_qp_013")),
      doc="KV quantization: 4 int4, 8 int8, 16 fp8, 17 fp8_e5m2, 42 turbo_quant (by release)"),
    F("tp", "--tp", kind="int", default=1, tags=PAR),
    F("dp", "--dp", kind="int", default=1, tags=PAR),
    F("ep", "--ep", kind="int", default=1, tags=PAR),
    F("role", "--role", default="Hybrid", choices=("Hybrid", "Prefill", "Decode"), tags=ROLE),
    F("migration_backend", "--migration-backend", tags=ROLE),
    F("enable_prefix_caching", "--enable-prefix-caching", kind="bool", default=False, tags=KV),
    F("rope_scaling_factor", "--rope-scaling-factor", kind="float", tags=ROPE),
    # from 0.9.2 (InternLM/lmdeploy@9098ae8:lmdeploy/cli/utils.py ArgumentHelper.hf_overrides, absent from v0.9.1's
    # lmdeploy/cli; PR #3722 "Override HF config.json via CLI", which brought the FlexibleArgumentParser too)
    F("hf_overrides", "--hf-overrides", kind="json", tags=ROPE, spelled_since=(("--hf-overrides", "0.9.2"),)),
    F("model_format", "--model-format", tags=MODEL),
    F("dtype", "--dtype", default="auto"),
    F("server_name", "--server-name", default="0.0.0.0"),
    F("server_port", "--server-port", kind="int", default=23333),
)

# From 0.9.2 `lmdeploy` parses with a copy of vLLM's FlexibleArgumentParser (InternLM/lmdeploy@9098ae8 (v0.9.2):
# lmdeploy/cli/cli.py `parser = FlexibleArgumentParser(prog='lmdeploy', ...)`, lmdeploy/cli/utils.py
# FlexibleArgumentParser.parse_args; the same at v0.16.0 @1208bf0; v0.9.1's cli.py has a plain
# argparse.ArgumentParser): `_` is made `-` in a `--` word's name up to its first `.`, and `--a.b.c V` becomes
# `--a '{"b": {"c": V}}'` (V read as JSON, else kept a string). Before 0.9.2 argparse exits on either word
# (flexible_since; parse.py reports it for those releases).
SPEC_ = EngineSpec("lmdeploy", FLAGS, int_rule="argparse", allow_abbrev=True, underscore_equals_dash=True,
                   dotted_json=True, flexible_since="0.9.2")
