"""Context, memory and parallelism flags of one engine given to another, which exits on them at startup, and
SGLang's flags that no vLLM release has (SGLANG_ONLY) given to vLLM.

`python -m sglang.launch_server ... --max-model-len 131072` stops with "unrecognized arguments: --max-model-len":
SGLang's ServerArgs parser is a plain argparse.ArgumentParser (allow_abbrev left on) with no such flag, and vLLM's
FlexibleArgumentParser refuses SGLang's `--context-length` alike. ctxlint's own flag tables list only the flags it
reads, so an unknown flag alone proves nothing; these spellings do: each was checked against the engine's FULL
flag list at one release (tests/engines/test_foreign_flags.py, lists read from the sglang 0.5.23 wheel's
sglang/srt/server_args.py and sglang/srt/arg_groups/fields/*.py, and the vllm 0.12.0 wheel's
vllm/engine/arg_utils.py and vllm/entrypoints/openai/cli_args.py): none is a flag there, nor a prefix argparse
would expand to one. SGLang's own `--max-total-tokens` (TGI's name too) and `--tensor-parallel-size` (an alias
of its --tp-size) are real SGLang flags, so they are not here.
"""
from __future__ import annotations

from typing import Iterable, Optional

from .result import Problem

# spelling -> (what it is, whose), this engine's flag for it
TO_SGLANG = {
    "--max-model-len": ("vLLM's context length", "--context-length"),
    "--rope-scaling": ("vLLM's RoPE scaling", "--json-model-override-args '{\"rope_scaling\": ...}'"),
    "--rope-theta": ("vLLM's RoPE theta", "--json-model-override-args '{\"rope_theta\": ...}'"),
    "--hf-overrides": ("vLLM's model config overrides", "--json-model-override-args"),
    "--gpu-memory-utilization": ("vLLM's memory fraction", "--mem-fraction-static"),
    "--kv-cache-memory-bytes": ("vLLM's KV cache size", "--max-total-tokens (the pool in tokens)"),
    "--max-num-seqs": ("vLLM's running-request limit", "--max-running-requests"),
    "--max-num-batched-tokens": ("vLLM's tokens per step", "--chunked-prefill-size"),
    "--max-input-tokens": ("TGI's prompt limit", "--context-length (prompt and output)"),
    "--max-input-length": ("TGI's prompt limit", "--context-length (prompt and output)"),
    "--max-batch-prefill-tokens": ("TGI's prefill batch limit", "--max-prefill-tokens"),
    "--max-batch-total-tokens": ("TGI's batch token budget", "--max-total-tokens"),
    "--num-shard": ("TGI's tensor-parallel size", "--tp-size"),
    "--cuda-memory-fraction": ("TGI's memory fraction", "--mem-fraction-static"),
}
TO_VLLM = {
    "--context-length": ("SGLang's context length", "--max-model-len"),
    "--mem-fraction-static": ("SGLang's memory fraction", "--gpu-memory-utilization"),
    "--max-total-tokens": ("SGLang's KV pool and TGI's context length", "--max-model-len for the context, "
                           "--num-gpu-blocks-override for the pool"),
    "--max-running-requests": ("SGLang's running-request limit", "--max-num-seqs"),
    "--chunked-prefill-size": ("SGLang's prefill chunk", "--max-num-batched-tokens"),
    "--max-prefill-tokens": ("SGLang's prefill batch limit", "--max-num-batched-tokens"),
    "--tp-size": ("SGLang's tensor-parallel size", "--tensor-parallel-size (-tp)"),
    "--tp": ("SGLang's tensor-parallel size", "--tensor-parallel-size (-tp)"),
    "--pp-size": ("SGLang's pipeline-parallel size", "--pipeline-parallel-size (-pp)"),
    "--dp-size": ("SGLang's data-parallel size", "--data-parallel-size (-dp)"),
    "--max-input-tokens": ("TGI's prompt limit", "--max-model-len (prompt and output)"),
    "--max-input-length": ("TGI's prompt limit", "--max-model-len (prompt and output)"),
    "--max-batch-prefill-tokens": ("TGI's prefill batch limit", "--max-num-batched-tokens"),
    "--max-batch-total-tokens": ("TGI's batch token budget", "--max-num-batched-tokens"),
    "--num-shard": ("TGI's tensor-parallel size", "--tensor-parallel-size (-tp)"),
    "--cuda-memory-fraction": ("TGI's memory fraction", "--gpu-memory-utilization"),
}
# SGLang's own flags that no vLLM release ctxlint reads has, nor a flag they are a prefix of (argparse expands a
# unique prefix): each is in the sglang 0.5.23 list (tests/engines/data/sglang-0.5.23-flags.txt) and neither a
# flag of the vllm 0.12.0 and 0.34.0 lists nor its name (dashes or underscores) in any file of vllm/ in the
# vllm 0.2.0, 0.3.3, 0.4.2, 0.5.5, 0.6.6, 0.7.3, 0.8.5, 0.9.2, 0.10.2, 0.11.2, 0.16.0, 0.20.2 and 0.27.1 sdists,
# save `--enable-metrics`, found only in vllm/entrypoints/openai/run_batch.py (`vllm run-batch`, a batch job,
# no server ctxlint reads; `vllm serve` and the API server module have none and serve /metrics without it:
# vllm-0.4.2 api_server.py Mount("/metrics"), vllm-0.8.5 api_server.py mount_metrics, vllm-0.27.1
# entrypoints/serve/instrumentator/metrics.py). vLLM's parser exits on any of them whatever its release, so each
# is refused at the flag, said as SGLang's; a flag not in this set (or TO_VLLM) is not judged.
SGLANG_ONLY = frozenset((
    "--allow-auto-truncate", "--attention-context-parallel-size", "--attention-data-parallel-size", "--attn-cp-size",
    "--attn-dp-size", "--cuda-graph-max-bs-decode", "--cuda-graph-max-bs-prefill", "--decode-attention-backend",
    "--disable-cuda-graph", "--disable-hybrid-swa-memory", "--disable-radix-cache",
    "--disaggregation-bootstrap-port", "--disaggregation-ib-device", "--disaggregation-mode",
    "--disaggregation-transfer-backend", "--dist-init-addr", "--enable-dp-attention", "--enable-dp-lm-head",
    "--enable-flashinfer-allreduce-fusion", "--enable-hierarchical-cache", "--enable-hisparse",
    "--enable-kv-cache-sharding", "--enable-metrics", "--enable-mixed-chunk", "--enable-prefill-cp",
    "--ep-dispatch-algorithm", "--ep-num-redundant-experts", "--eplb-algorithm", "--expert-parallel-size",
    "--incremental-streaming-output", "--json-model-override-args", "--language-only", "--load-balance-method",
    "--lora-paths", "--mamba-full-memory-ratio", "--max-mamba-cache-size", "--max-queued-requests",
    "--mm-feature-transport", "--moe-a2a-backend", "--moe-data-parallel-size", "--moe-dense-tp-size",
    "--moe-dp-size", "--moe-runner-backend", "--num-reserved-decode-tokens", "--prefill-attention-backend",
    "--schedule-conservativeness", "--speculative-algorithm", "--speculative-draft-model-path",
    "--speculative-eagle-topk", "--speculative-num-draft-tokens", "--speculative-num-steps",
    "--swa-full-tokens-ratio", "--torch-compile-max-bs", "--watchdog-timeout",
))
_VLLM_INSTEAD = {"--enable-metrics": "vLLM serves /metrics without a flag"}
_LABEL = {"vllm": "vLLM", "sglang": "SGLang"}


def foreign(engine: str, spelling: str, dashes: bool = False) -> Optional[tuple[str, str]]:
    """(what it is, this engine's flag) for another engine's flag given to `engine`, else None. dashes: the engine
    reads `--a_b` as `--a-b` (vLLM)."""
    table = TO_VLLM if engine == "vllm" else TO_SGLANG if engine == "sglang" else None
    if table is None or not spelling.startswith("--"):
        return None
    return table.get("--" + spelling[2:].replace("_", "-") if dashes else spelling)


def foreign_flags(engine: str, unknown: Iterable[Problem], dashes: bool = False) -> list[Problem]:
    """A refusal at each unknown flag that is another engine's (the parser's unknown flags, as typed)."""
    out = []
    for p in unknown:
        found = foreign(engine, p.flag or "", dashes) if p.flag else None
        if found is None and engine == "vllm" and p.flag and p.flag.startswith("--"):
            spelling = "--" + p.flag[2:].replace("_", "-") if dashes else p.flag
            if spelling in SGLANG_ONLY:  # rare: an SGLang flag of no context, memory or parallelism meaning
                said = _VLLM_INSTEAD.get(spelling, "vLLM has no argument by that name")
                out.append(Problem(f"unrecognized arguments: {p.flag} (SGLang's flag; {said})",
                                   p.token_index, p.span, p.item, p.flag))
                continue
        if found is not None:
            what, ours = found
            out.append(Problem(f"unrecognized arguments: {p.flag} ({what}; {_LABEL[engine]}'s is {ours})",
                               p.token_index, p.span, p.item, p.flag))
    return out
