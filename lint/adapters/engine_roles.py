"""What one parsed engine invocation says about its role, per engine.

Each engine names the same facts differently (engines.md §0): the context
length is vLLM `max_model_len`, SGLang `context_length`, TGI
`max_total_tokens` (prompt + output; `max_input_tokens` is only the prompt
limit), TRT-LLM `max_seq_len`, llama.cpp `ctx_size` (per slot: divided by
`--parallel` unless the KV cache is unified) and LMDeploy `session_len`. Only
values the deployment states are read; engine defaults stay unknown here and
are left to the capacity stage.
"""
from __future__ import annotations

from typing import Any, Callable, Optional, Tuple

from ctxlint.engines import Invocation, Setting
from ctxlint.model import DECODE, PREFILL, UNIFIED, Parallelism, Source, Val, placed_later

from ..records import record

STATED = ("flag", "env", "config-file", "launcher")  # what the engine is given (not its own defaults)
SourceOf = Callable[[Setting], Source]

_CONTEXT = {"vllm": "max_model_len", "sglang": "context_length", "tgi": "max_total_tokens",
            "trtllm": "max_seq_len", "llamacpp": "ctx_size", "lmdeploy": "session_len", "tgis": "max_sequence_length"}
# The settings that decide each engine's context length: its own, and TGI's prompt limit, which caps it.
CONTEXT_SETTINGS = {engine: (name,) + (("max_input_tokens", "max_input_length") if engine == "tgi" else ())
                    for engine, name in _CONTEXT.items()}
_PARALLEL = {  # engine -> (tensor, pipeline, data) setting names
    "vllm": ("tensor_parallel_size", "pipeline_parallel_size", "data_parallel_size"),
    "sglang": ("tp_size", "pp_size", "dp_size"),
    "trtllm": ("tp_size", "pp_size", None),
    "lmdeploy": ("tp", None, "dp"),
    "tgi": ("num_shard", None, None),
    "tgis": ("num_shard", None, None),
    "llamacpp": (None, None, None),
}
# Parallel sizes and role markers: unresolved values of these are worth a note.
PARALLEL_SETTINGS = {name for names in _PARALLEL.values() for name in names if name} | {
    "data_parallel_size_local", "nnodes"}
RELEVANT_SETTINGS = PARALLEL_SETTINGS | {"disaggregation_mode", "role", "server_role", "kv_transfer_config"}
_STATED = frozenset(STATED)
_PARALLEL_NAMES = tuple(sorted(PARALLEL_SETTINGS))  # role_facts: a parallel size stated but not known
_PARALLEL_PER_POD = tuple(n for n in _PARALLEL_NAMES if n != "data_parallel_size")  # vLLM DP ranks of its own
_KV_DTYPE = {"vllm": "kv_cache_dtype", "sglang": "kv_cache_dtype", "tgi": "kv_cache_dtype",
             "llamacpp": "cache_type_k"}
# vLLM's CUDA default block size (engines.md §0; vllm/config/cache.py), used when
# --num-gpu-blocks-override is given without --block-size.
_VLLM_BLOCK = 16


@record(frozen=True)
class RoleFacts:
    kind: str
    kind_source: Optional[Source]
    context_length: Optional[Val[int]]
    kv_pool_tokens: Optional[Val[int]]
    kv_cache_dtype: Optional[Val[str]]
    parallelism: Parallelism
    engine_args: Tuple[Tuple[str, Val[Any]], ...]
    parallel_unknown: bool = False  # a parallel size is given but its value is not known
    per_pod: bool = False  # vLLM --data-parallel-size-local or -rank: this pod runs its own share of ranks
    draft_layers: Optional[Val[int]] = None  # speculative decoding's draft layers that hold KV pages


def _stated(inv: Invocation, name: Optional[str]) -> Optional[Setting]:
    s = inv.settings.get(name) if name else None
    return s if s is not None and s.origin in _STATED and s.value is not None else None


def _positive_int(inv: Invocation, name: Optional[str], where: SourceOf) -> Optional[Val[int]]:
    s = _stated(inv, name)
    if s is None or isinstance(s.value, bool) or not isinstance(s.value, int) or s.value <= 0:
        return None
    return Val(s.value, where(s), raw=s.raw_text)


def role_kind(inv: Invocation, where: SourceOf) -> Tuple[str, Optional[Source]]:
    kind = inv.disaggregation_role
    if kind not in (PREFILL, DECODE):
        return UNIFIED, None
    for key in ("disaggregation_mode", "role", "server_role", "is_prefill_worker", "is_decode_worker",
                "kv_transfer_config"):
        s = _stated(inv, key)
        if s is not None:
            return kind, where(s)
    return kind, None


def _context(inv: Invocation, where: SourceOf) -> Optional[Val[int]]:
    ctx = _positive_int(inv, _CONTEXT.get(inv.engine), where)
    if ctx is None or inv.engine != "llamacpp":
        return ctx
    parallel = _stated(inv, "n_parallel")
    unified = _stated(inv, "kv_unified")
    if parallel is not None and isinstance(parallel.value, int) and parallel.value > 1 and \
            not (unified is not None and unified.value is True):
        per_slot = ctx.value // parallel.value  # llama-server: n_ctx_seq = n_ctx / n_parallel
        ctx = Val(per_slot, ctx.source, raw=f"{ctx.raw or ctx.value} / --parallel {parallel.value}")
    # --kv-unified-per-slot caps every slot (ggml-org/llama.cpp#24124; b11434 tools/server/server-context.cpp:1362
    # `std::min(n_ctx_seq, params_base.kv_unified_per_slot)`); without -c the capacity stage sizes the pool from it
    cap = _positive_int(inv, "kv_unified_per_slot", where)
    if cap is not None and cap.value < ctx.value:
        return Val(cap.value, cap.source, raw=f"{cap.raw or cap.value} (--kv-unified-per-slot; {ctx.raw or ctx.value})")
    return ctx


def _pool(inv: Invocation, where: SourceOf) -> Optional[Val[int]]:
    if inv.engine == "vllm":
        blocks = _positive_int(inv, "num_gpu_blocks_override", where)
        if blocks is None:
            return None
        size = inv.settings.get("block_size")
        block = size.value if size is not None and isinstance(size.value, int) and size.value > 0 else _VLLM_BLOCK
        return Val(blocks.value * block, blocks.source, raw=f"{blocks.value} blocks x {block} tokens")
    if inv.engine == "sglang":
        return _positive_int(inv, "max_total_tokens", where)
    if inv.engine == "trtllm":
        return _positive_int(inv, "kv_cache_config.max_tokens", where)
    return None


def _external_rank(inv: Invocation) -> bool:
    """vLLM --data-parallel-rank, whatever its value (often an unresolved `$(LWS_WORKER_INDEX)`): the
    rank alone turns on external load balancing, and the instance runs that one rank
    (`data_parallel_size_local = 1` in create_engine_config,
    vllm-project/vllm@99d7eb5d6a512cfcc5a2b104f24ebf2d6cda772b:vllm/engine/arg_utils.py)."""
    s = inv.settings.get("data_parallel_rank") if inv.engine == "vllm" else None
    return s is not None and s.origin in STATED


def _per_pod(inv: Invocation) -> bool:
    """A vLLM instance that runs its own share of the data-parallel ranks: the rest run elsewhere."""
    return inv.engine == "vllm" and (_stated(inv, "data_parallel_size_local") is not None or _external_rank(inv))


def _parallelism(inv: Invocation, where: SourceOf) -> Parallelism:
    tensor, pipeline, data = _PARALLEL.get(inv.engine, (None, None, None))
    if _external_rank(inv):
        data = None  # one rank: data parallel 1 on this instance
    elif inv.engine == "vllm" and _stated(inv, "data_parallel_size_local") is not None:
        data = "data_parallel_size_local"  # ranks this pod runs; the rest run elsewhere
    if inv.engine == "sglang" and _stated(inv, "enable_dp_attention") is not None \
            and inv.value("enable_dp_attention") is True:
        data = None  # DP attention runs inside the TP group: no extra GPUs
    return Parallelism(tensor=_positive_int(inv, tensor, where), pipeline=_positive_int(inv, pipeline, where),
                       data=_positive_int(inv, data, where))


def _dtype(inv: Invocation, where: SourceOf) -> Optional[Val[str]]:
    if inv.engine == "lmdeploy":  # --quant-policy 8 or int8: int8 KV, 16 or fp8: FP8, ... (lmdeploy_quant.py)
        from ctxlint.engines.lmdeploy_quant import KV_DTYPES

        s = _stated(inv, "quant_policy")
        if s is None or s.value not in KV_DTYPES:
            return None
        return Val(KV_DTYPES[s.value], where(s), raw=f"--quant-policy {s.raw_text}")
    s = _stated(inv, _KV_DTYPE.get(inv.engine))
    if s is None and inv.engine == "trtllm":
        # the LLM API's KvCacheConfig.dtype ("auto": the checkpoint's), else QuantConfig.kv_cache_quant_algo
        # (NVIDIA/TensorRT-LLM@0004396720054fd8e205cbf616f21f0b57c6b412:tensorrt_llm/llmapi/llm_args.py)
        s = _stated(inv, "kv_cache_config.dtype") or _stated(inv, "quant_config.kv_cache_quant_algo")
    if s is None or not isinstance(s.value, str):
        return None
    return Val(s.value, where(s), raw=s.raw_text)


def _draft_layers(inv: Invocation, where: SourceOf) -> Optional[Val[int]]:
    """Draft layers with KV pages of their own, with the target's dimensions: EAGLE and EAGLE-3 heads
    and MTP modules are one decoder layer (vLLM: the draft's attention layers join the KV cache; the
    logged pool of Llama-3.1-8B + EAGLE matches 32 + 1 layers exactly, engines.md §1.3; SGLang scales
    the cell by 1 + draft_layers/num_layers, §2.3). Every published EAGLE head and MTP checkpoint has
    one (vLLM warns "only have one layer" for the MTP models it knows), but vLLM builds MiniMax-M3's num_mtp_modules,
    which the model side applies (physics.mtp.draft_layers). Draft *models*
    (vLLM draft_model, SGLang STANDALONE) and n-gram drafts are not counted: a model of its own (not
    modelled), or no KV at all."""
    if inv.engine == "vllm":
        s = _stated(inv, "speculative_config") or _stated(inv, "spec_method") or _stated(inv, "spec_model")
        if s is None:  # most roles: no speculative config to build
            return None
        from ctxlint.engines.specs import vllm_speculative

        spec = vllm_speculative(lambda name: None if _stated(inv, name) is None else _stated(inv, name).value)
        if spec is None:
            return None
        method, draft = (str(spec.get(k) or "").lower() for k in ("method", "model"))
        if not method:  # vLLM names the method after the draft's name (vllm/config/speculative.py)
            method = "eagle3" if "eagle3" in draft else "eagle" if "eagle-" in draft else ""
        if method not in ("eagle", "eagle3", "mtp") and not method.endswith("_mtp"):
            return None
    elif inv.engine == "sglang":
        s = _stated(inv, "speculative_algorithm")
        method = str(s.value).upper() if s is not None else ""
        if method not in ("EAGLE", "EAGLE3", "NEXTN"):
            return None
    else:
        return None
    return Val(1, where(s), raw=f"{method}: one draft layer")


# Words every engine's parser answers by printing and exiting: argparse's -h/--help (vLLM, SGLang, LMDeploy), clap's
# (TGI's launcher: -h/--help, --version), click's --help (trtllm-serve), llama.cpp's -h/--help and --version
# (ggml-org/llama.cpp@0017d6fb63f9590e791a7562b276148f7bd5b7fc:common/arg.cpp: `{"-h", "--help", "--usage"}`
# "print usage and exit", `{"--version"}` prints the build, then exit(0)); `vllm serve --version` is refused
# (no such option of `serve`), which starts no server either. A setup script's `"$SERVER" --version` smoke test
# (tmielsch/turboquant-setup@e1091302e539e2b992896a2803f36d793fae833a:scripts/linux/setup.sh) was a deployment.
_PRINTS_AND_EXITS = frozenset({"-h", "--help", "--version"})
# llama.cpp's other words that print and exit (the same common/arg.cpp): `--usage` (-h's third spelling),
# `-cl`/`--cache-list` (the cached models, exit(0)), `--completion-bash` (common_params_parse: exit(0)); another
# engine refuses them as unknown arguments, a finding of its own
_LLAMA_CPP_PRINTS_AND_EXITS = frozenset({"--usage", "-cl", "--cache-list", "--completion-bash"})


def serves_no_role(inv: Invocation, grouped: bool = False) -> bool:
    """An engine process that holds no serving role of its own: one asked for its help or version (it prints,
    then exits), Dynamo's multimodal encode worker (no LLM KV cache, dynamo/vllm/encode_engine.py), TensorRT-LLM's
    disaggregated router, an SGLang follower node (`--node-rank` >= 1 runs its schedulers and a dummy health check,
    no tokenizer or API: sglang entrypoints/engine.py; node 0's pod is the deployment), a vLLM `--headless` node
    (below), unless `grouped`: a group's worker template read as the engine of the whole group (a LeaderWorkerSet
    whose leader runs no engine ctxlint reads)."""
    if any(p.flag in _PRINTS_AND_EXITS or (inv.engine == "llamacpp" and p.flag in _LLAMA_CPP_PRINTS_AND_EXITS)
           for p in inv.unknown_flags):
        return True  # `llama-server --version`, `vllm serve --help`: a print, then an exit; no server starts
    if str(inv.value("disaggregation_mode", "")).lower() == "encode" and _takes_encode(inv):
        return True
    if inv.engine == "trtllm" and inv.subcommand == "disaggregated":
        return True  # `trtllm-serve disaggregated` runs only the router (commands/serve.py: OpenAIDisaggServer)
    if grouped or inv.engine not in ("sglang", "vllm"):
        return False
    rank = inv.value("node_rank")
    follower = isinstance(rank, int) and not isinstance(rank, bool) and rank >= 1
    if inv.engine == "sglang":
        return follower
    return inv.value("headless") is True and (inv.subcommand == "serve" or follower)


# An SGLang node other than 0 runs its share of the TP (and PP) ranks, then only waits, so node 0's launch is the
# engine: `if server_args.node_rank >= 1:` / `# Non-zero-rank nodes do not run tokenizer processes.` /
# `launch_dummy_health_check_server(...)` / `scheduler_init_result.block_until_scheduler_exits()`, its ranks from
# `_calculate_rank_ranges(server_args.nnodes, ..., server_args.node_rank)` (Engine._launch_subprocesses and
# _launch_scheduler_processes, sgl-project/sglang@001067fffe33427bee0ed2f007fb7551a1d76b44:
# python/sglang/srt/entrypoints/engine.py).


def leads(inv: Invocation) -> bool:
    """An SGLang launch stated as node 0 of several (`--node-rank 0`, `--nnodes` not 1): an engine whose other
    nodes a launcher may start in the other branch of its `if`."""
    rank, nodes = _stated(inv, "node_rank"), inv.settings.get("nnodes")
    return inv.engine == "sglang" and rank is not None and rank.value == 0 and nodes is not None \
        and nodes.origin in STATED and nodes.value != 1


def follows(inv: Invocation, leader: Invocation) -> bool:
    """Node 0's partner in `if [ "$RANK" -eq 0 ]; then <--node-rank 0>; else <--node-rank $RANK>; fi`: an SGLang
    launch of the leader's model and `--nnodes` whose rank is given but not known. Script and engine say it is
    not node 0 (that one is the leader), so it is one of the leader's other nodes, no engine of its own. A rank
    that is not known with nothing tying it to a node-0 launch stays a launch of its own."""
    rank = inv.settings.get("node_rank")
    if inv.engine != "sglang" or rank is None or rank.origin not in STATED or rank.value is not None:
        return False
    return _same(inv.settings.get("nnodes"), leader.settings.get("nnodes")) and _same(inv.model, leader.model)


def _same(a: Optional[Setting], b: Optional[Setting]) -> bool:
    """Both stated, with the same value (or, where the value is not known, the same text: `$NNODES`)."""
    if a is None or b is None or a.origin not in STATED or b.origin not in STATED:
        return False
    return a.value == b.value if a.value is not None or b.value is not None else a.raw_text == b.raw_text


# vLLM `--headless`: `vllm serve` runs no API server (run_headless: data-parallel engines whose API server is the
# head's, or at --node-rank >= 1 the workers of node 0's engine: flags_vllm); the head is the deployment. The
# `vllm.entrypoints.openai.api_server` module read --headless only from vllm#36875 on (before, a data-parallel node
# served an API of its own), but a --node-rank >= 1 worker serves none there either (it failed at startup before).


def _takes_encode(inv: Invocation) -> bool:
    """The engine's own table has an `encode` mode (Dynamo's workers): plain SGLang's choices are null, prefill
    and decode, so `--disaggregation-mode encode` is its refusal (CTX301), not a worker without a role (sweep 11:
    such a server vanished, no deployment and no finding)."""
    from ctxlint.engines.specs import spec_for  # only an `encode` invocation asks

    flag = spec_for(inv.engine, inv.launcher, inv.subcommand).by_name("disaggregation_mode")
    return flag is not None and "encode" in flag.choices


def role_facts(inv: Invocation, where: SourceOf,
               later: Optional[Callable[[Setting], Callable[[], Source]]] = None) -> RoleFacts:
    """The role-level facts of one invocation; `where(setting)` gives a setting's source. `later(setting)`, when
    given, a function giving it at any later time: each stated setting's place is then found only if read
    (model.placed_later)."""
    kind, kind_source = role_kind(inv, where)
    # every setting is walked, defaults too (a config file's value takes a default's place): a list, no generator
    settings = inv.settings
    if later is None:
        args = tuple([(name, Val(s.value, where(s), raw=s.raw_text))
                      for name, s in settings.items() if s.origin in _STATED and s.value is not None])
    else:
        args = tuple([(name, placed_later(s.value, later(s), s.raw_text))
                      for name, s in settings.items() if s.origin in _STATED and s.value is not None])
    per_pod = _per_pod(inv)
    unknown = False
    for n in _PARALLEL_PER_POD if per_pod else _PARALLEL_NAMES:  # a loop: two nested generators cost more
        s = settings.get(n)
        if s is not None and s.value is None and s.origin in _STATED:
            unknown = True
            break
    return RoleFacts(kind, kind_source, _context(inv, where), _pool(inv, where), _dtype(inv, where),
                     _parallelism(inv, where), args, unknown, per_pod, _draft_layers(inv, where))
