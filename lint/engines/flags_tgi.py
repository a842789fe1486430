"""Hugging Face TGI launcher flags (`text-generation-launcher`).

Source: huggingface/text-generation-inference:launcher/src/main.rs (`Args`,
clap `#[clap(long, env)]`), engines.md §3.1. Every flag is also read from the
SCREAMING_CASE env var of its field (`--max-total-tokens` <- MAX_TOTAL_TOKENS);
the command line wins. Integers are clap `usize`: digits only, no suffixes.
Option<bool> fields such as `--sharded` take a value (`--sharded true`). Enum
fields (`--quantize`, `--dtype`) take only their variants' names.
"""
from __future__ import annotations

from .flagspec import EngineEnv, EngineSpec, F

CTX, KV, MEM, PAR, SCHED, SPEC, ROPE, MODEL = (
    "context", "kv_pool", "memory", "parallel", "scheduler", "speculative", "rope", "model")


def _env(name: str) -> str:
    return name.upper()


_ROWS = (
    F("model_id", "--model-id", default="bigscience/bloom-560m", tags=MODEL),
    F("revision", "--revision", tags=MODEL),
    F("sharded", "--sharded", kind="bool", takes="one", tags=PAR),
    # No default here: unset, find_num_shards counts CUDA_VISIBLE_DEVICES (v0.4.0 on), else NVIDIA_VISIBLE_DEVICES
    # (v0.8.0 on; `all` one item before v3.3.7, nvidia-smi's GPUs from it), else ZE_AFFINITY_MASK (v2.1.0 on,
    # @83634dc1), else 1 (launcher/src/main.rs at
    # @411d6247, @081b9265, @dfb3fbe7): adapters/tgi_shards.py reads it where the file settles those variables.
    F("num_shard", "--num-shard", kind="int", tags=PAR),
    # clap ValueEnum (`#[clap(long, env, value_enum)]`): its variants kebab-cased, nothing else (`bf16` is refused).
    # Every release's names, so none a pinned release reads is flagged: launcher/src/main.rs `enum Quantization`
    # has bitsandbytes and gptq from 0.8 (a bare switch before), awq, eetq, bitsandbytes-nf4/-fp4 from 1.1
    # (huggingface/text-generation-inference@3ef5ffbc:launcher/src/main.rs, v1.0.0 has the first two only),
    # fp8 from 2.0, exl2 and marlin from 2.1 (@192d49af), compressed-tensors from 3.0 (@8f326c97); none removed
    # since (@db931fcf).
    F("quantize", "--quantize", tags=MODEL, choices=(
        "awq", "compressed-tensors", "eetq", "exl2", "gptq", "marlin", "bitsandbytes", "bitsandbytes-nf4",
        "bitsandbytes-fp4", "fp8")),
    # `enum Dtype`: float16 and, from 0.9.3 on, `#[clap(name = "bfloat16")]`; 0.9.0-0.9.2 spelled it b-float16.
    F("dtype", "--dtype", choices=("float16", "bfloat16", "b-float16")),
    F("kv_cache_dtype", "--kv-cache-dtype", choices=("fp8_e4m3fn", "fp8_e5m2"), tags=KV),
    F("trust_remote_code", "--trust-remote-code", kind="bool", default=False),
    F("max_concurrent_requests", "--max-concurrent-requests", kind="int", default=128, tags=SCHED),
    F("max_best_of", "--max-best-of", kind="int", default=2),
    F("max_stop_sequences", "--max-stop-sequences", kind="int", default=4),
    F("max_top_n_tokens", "--max-top-n-tokens", kind="int", default=5),
    F("max_input_tokens", "--max-input-tokens", kind="int", tags=CTX),
    F("max_input_length", "--max-input-length", kind="int", tags=CTX,
      doc="deprecated spelling of max_input_tokens; setting both is an error"),
    F("max_total_tokens", "--max-total-tokens", kind="int", tags=CTX),
    F("waiting_served_ratio", "--waiting-served-ratio", kind="float", default=0.3, tags=SCHED),
    F("max_batch_prefill_tokens", "--max-batch-prefill-tokens", kind="int", tags=SCHED),
    F("max_batch_total_tokens", "--max-batch-total-tokens", kind="int", tags=KV),
    F("max_waiting_tokens", "--max-waiting-tokens", kind="int", default=20, tags=SCHED),
    F("max_batch_size", "--max-batch-size", kind="int", tags=SCHED),
    F("cuda_graphs", "--cuda-graphs", doc="comma list; 0 disables"),
    F("hostname", "--hostname", default="0.0.0.0"),
    F("port", "--port", "-p", kind="int", default=3000),
    F("cuda_memory_fraction", "--cuda-memory-fraction", kind="float", default=1.0, tags=MEM),
    F("rope_scaling", "--rope-scaling", choices=("linear", "dynamic"), tags=ROPE),
    F("rope_factor", "--rope-factor", kind="float", tags=ROPE),
    F("speculate", "--speculate", kind="int", tags=SPEC),
    F("lora_adapters", "--lora-adapters"),
    F("payload_limit", "--payload-limit", kind="int", default=2000000),
)
# The first release whose launcher has the flag, where it is later than the first tag read (v0.2.0): earlier ones
# exit on it (clap). From `struct Args` of launcher/src/main.rs at every tag v0.2.0-v3.3.7
# (huggingface/text-generation-inference@dfb3fbe; engines/tgi_args.py has the flags this table does not list).
# --max-input-tokens came in 2.0.0, before which the launcher took --max-input-length only (v1.4.5). Set by its
# environment variable instead, a flag an older launcher lacks is no error: clap reads only the variables of its
# own arguments, and an unknown variable is ignored.
_SINCE = {"sharded": "0.4.0", "dtype": "0.9.0", "kv_cache_dtype": "2.4.0", "trust_remote_code": "0.7.0",
          "waiting_served_ratio": "0.7.0", "cuda_graphs": "2.0.0", "cuda_memory_fraction": "0.9.4",
          "rope_scaling": "1.0.1", "rope_factor": "1.0.1", "speculate": "1.3.0", "lora_adapters": "2.1.0",
          "max_input_tokens": "2.0.0", "max_total_tokens": "0.3.2", "max_best_of": "0.4.0",
          "max_stop_sequences": "0.3.2", "max_top_n_tokens": "1.0.3", "max_batch_prefill_tokens": "0.9.0",
          "max_batch_total_tokens": "0.7.0", "hostname": "0.9.1",
          "payload_limit": "2.4.1"}  # launcher and TRT-LLM backend alike: neither has --payload-limit before v2.4.1
# --max-batch-size: in v0.2.0-v0.8.2, left out of v0.9.0-v1.4.0, back from v1.4.1 (v1.0.0's launcher has no
# max_batch_size; v1.4.1's has it again)
_GAP = {"max_batch_size": ("0.9.0", "1.4.1", "releases 0.9.0-1.4.0 have no --max-batch-size: leave it out")}
FLAGS = tuple(F(f.name, *f.spellings, kind=f.kind, default=f.default, takes=f.takes, env=(_env(f.name),),
                choices=f.choices, tags=f.tags, doc=f.doc,
                spelled_since=tuple((s, _SINCE[f.name]) for s in f.spellings) if f.name in _SINCE else (),
                **(dict(zip(("removed_in", "restored_in", "instead"), _GAP[f.name])) if f.name in _GAP else {}))
              for f in _ROWS)

ENGINE_ENV = (
    EngineEnv("TGI_WIGGLE_ROOM", "float", 0.90, "multiplies CUDA_MEMORY_FRACTION; strictly in (0, 1)"),
    EngineEnv("ATTENTION", "str", None, "flashdecoding -> block 256, flashinfer -> 1, paged -> 16"),
    EngineEnv("PREFIX_CACHING", "bool", None, "prefix caching switch"),
    EngineEnv("PREFILL_CHUNKING", "bool", True, "without chunking the default context collapses"),
)

# The launcher exits when both max_input_tokens and max_input_length are set, flag or env alike ("Both
# `max_input_tokens` (..) and `max_input_length` (..) are set. Please define only `max_input_tokens`"):
# huggingface/text-generation-inference@db931fcf42da018a3657580c64bf2720f167f9ab:launcher/src/main.rs:2101-2106.
# Both came with that check in 2.0.0 (@1b2670c823e5232a4e81c16314ac6d4dc8e59cff, "Improve the defaults for the
# launcher"; v1.4.5 has max_input_length alone, as a usize with a default).
EXCLUSIVE = (("max_input_tokens", "max_input_length", "2.0.0",
              "max_input_length is the deprecated spelling of max_input_tokens, and TGI refuses both"),)

SPEC_ = EngineSpec("tgi", FLAGS, int_rule="clap", float_rule="clap", env_prefix_all=True,
                   engine_env=ENGINE_ENV, exclusive=EXCLUSIVE, refuses_unknown=True)
