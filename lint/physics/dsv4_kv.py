"""DeepSeek-V4's KV cache: vLLM's layout for the releases read, and why other engines get no size.

A V4 token is not one cost. Every layer keeps a 128-token window, the compress_ratios 4 and 128 layers a compressed
entry per 4 or 128 tokens (the 4x ones an indexer key too), and their compressors fp32 states over the tokens of a
batch. vLLM 0.20.0, 0.20.1, 0.21.0, 0.22.0 and 0.23.0 (with FlashMLA, its default; the wheels' own files read
alike) lay them out so:

- specs (fp8 only: the FlashMLA layout asserts it and turns fp8 into fp8_ds_mla): a compressed layer's cache holds
  block/ratio tokens a block at 584 B (MLAAttentionSpec storage_block_size), the 4x layers' indexer block/4 keys at
  index_head_dim + index_head_dim/128 x 4 B; every layer a window cache (SlidingWindowMLASpec, block 64, 584 B a
  token); each compressor a state of 2 x coff x head_dim fp32 a token (block 4 at ratio 4, 8 at 128; window
  coff x ratio); the indexer's compressor at index_head_dim. Pages are rounded up to 576 B
  (vllm/v1/kv_cache_interface.py MLAAttentionSpec, SlidingWindowMLASpec, _apply_alignment_padding;
  vllm/model_executor/layers/deepseek_v4_attention.py in 0.20-0.21, vllm/models/deepseek_v4/attention.py and
  compressor.py from 0.22, vllm/v1/attention/backends/mla/sparse_swa.py DeepseekV4SWACache);
- groups (vllm/v1/core/kv_cache_utils.py group_and_unify_kv_cache_specs, _get_kv_cache_groups_uniform_groups,
  _approximate_gcd): the compressed caches make one group whose distinct page sizes form a "layer tuple"; the window
  caches and each ratio's states form groups by (block, window), split into as many groups as a tuple count that
  least pads them; their pages are padded to the next page size of the tuple;
- memory (_max_memory_usage_bytes_from_groups, the startup check's and the block pool's): every block of every
  group costs tuples x tuple bytes; a request of L tokens takes cdiv(L, block) blocks in the compressed group and
  cdiv(min(window - 1 + max_num_batched_tokens, L), its block) + 1 in each window group (SlidingWindowSpec).

For the 30,000-token DeepSeek-V4-Flash request of vllm-project/vllm#44376 (fp8, block 256, LLM's 16,384 batched
tokens on a GH200) that gives 22 tuples of 47,808 B, 6,800 blocks: 6.66 GiB, and 13,528 tokens the longest whose
blocks fit 5.44 GiB, both as vLLM logged them. SGLang's V4 pools are sized in dsv4_sglang for the releases read
there. TensorRT-LLM's V4 cache manager was read (TRTLLM_V4 below) but not the solver that splits its memory, so its
pool stays unknown, and why_not_sized says what is missing.
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Mapping

from .kv import KVBreakdown, normalize_engine
from .models import ModelArch
from .served import positive_int

READ = ("0.20.0", "0.20.1", "0.21.0", "0.22.0", "0.23.0")  # the releases whose wheels were read
ALIGN = 576  # FlashMLA's page alignment
TOKEN_BYTES = 584  # fp8_ds_mla: 448 B NoPE + 128 B RoPE (bf16) + 8 B scales, for head_dim 512 with 64 of RoPE
WINDOW_BLOCK = 64  # DeepseekV4SWACache.block_size
STATE_BLOCK = {4: 4, 128: 8}  # CompressorStateCache.block_size by ratio
FLASHINFER = "flashinfer_mla_sparse_dsv4"  # 0.23's other backend, a plain-row layout not read here

_NOT_READ = "how {engine} sizes DeepSeek-V4's window, compressed and compressor-state pools has not been read from its code"
# TensorRT-LLM: DeepseekV4CacheManager gives each layer a window cache (window + draft tokens; it requires
# tokens_per_block 128 or 256), its compressed and indexer caches (tokens_per_block / ratio entries a block) and the
# compressor state and score caches (a window of ratio or 2 x ratio tokens), each a layer of KVCacheManagerV2. That
# manager divides its GPU quota among the pools by ratios it solves from a typical step (one context and
# max_batch_size - 1 generation requests at max_seq_len) and constraints from max_input_len and max_num_tokens, and
# the scheduler admits requests by bytes (get_max_resource_count: the quota in bytes), not by tokens.
TRTLLM_V4 = ("NVIDIA/TensorRT-LLM@10ce7685b1fbf165e784a72f53350ee094d584d9:"
             "tensorrt_llm/_torch/attention_backend/sparse/deepseek_v4/cache_manager.py")
_TRTLLM = ("TensorRT-LLM keeps DeepSeek-V4's window, compressed, indexer and compressor-state caches as separate "
           "KVCacheManagerV2 pools (DeepseekV4CacheManager, " + TRTLLM_V4 + ") whose shares of the memory its "
           "pool-ratio solver sets from max_batch_size, max_seq_len, max_input_len and max_num_tokens, and admits "
           "requests by bytes, not tokens; that solver (tensorrt_llm/runtime/kv_cache_manager_v2) has not been "
           "read, so no token pool is given")
_NAMES = {"sglang": "SGLang", "trtllm": "TensorRT-LLM", "tgi": "TGI", "lmdeploy": "LMDeploy", "llamacpp": "llama.cpp"}


def why_not_sized(engine: str | None) -> str:
    """The engine's part of why a DeepSeek-V4 KV size is not given (vLLM's layout is, where vllm_breakdown reads it)."""
    eng = normalize_engine(engine or "")
    if eng == "vllm":
        return "vLLM's layout is read for " + ", ".join(READ) + " with FlashMLA, an fp8 KV cache and one pipeline stage"
    if eng == "sglang":  # an estimate goes to dsv4_sglang, which says which releases it reads
        from .dsv4_sglang import BUILDS, RELEASES
        return f"SGLang's pools are sized for the releases read only ({', '.join(RELEASES)}, and the nightly " \
               f"builds {', '.join(BUILDS)})"
    if eng == "trtllm":
        return _TRTLLM
    return _NOT_READ.format(engine=_NAMES.get(eng or "", str(engine or "this engine")))


def _round_up(n: int, to: int) -> int:
    return -(-n // to) * to


def _least_padding(counts: list[int], lower: int) -> int:
    """vLLM's _approximate_gcd: the tuple count from `lower` to the largest count that pads the counts least up to
    its multiples (ties: the larger)."""
    best, best_pad = lower, None
    for d in range(lower, max(max(counts), lower) + 1):
        pad = sum((d - x % d) % d for x in counts)
        if best_pad is None or pad <= best_pad:
            best, best_pad = d, pad
    return best


def layout(ratios: tuple[int, ...], index_dim: int, block: int, mnbt: int, window: int, draft: int) -> dict:
    """The groups vLLM makes of V4's caches: tuple bytes, tuples, and per window group (blocks of one request's
    span): a dict with `tuple_bytes`, `tuples` and `windows` [(groups, span, block)]."""
    c4, c128 = ratios.count(4), ratios.count(128)
    index_row = index_dim + index_dim // 128 * 4
    full: Counter = Counter()  # layers by page size (vLLM's tuple holds each size once)
    for page, n in ((_round_up(block // 4 * TOKEN_BYTES, ALIGN), c4), (_round_up(block // 4 * index_row, ALIGN), c4),
                    (_round_up(block // 128 * TOKEN_BYTES, ALIGN), c128)):
        if n:
            full[page] += n
    sizes = sorted(full)
    state = {4: [_round_up(4 * 2 * 2 * 512 * 4, ALIGN), _round_up(4 * 2 * 2 * index_dim * 4, ALIGN)],
             128: [_round_up(8 * 2 * 512 * 4, ALIGN)]}
    # (layers per page size, window, block) of each group beside the compressed one, in vLLM's order
    groups = [(len(ratios) + draft, window, WINDOW_BLOCK)]
    groups += [(c4, 8, STATE_BLOCK[4])] if c4 else []
    groups += [(c128, 128, STATE_BLOCK[128])] if c128 else []
    counts = [max(full.values())] + [n for n, _, _ in groups]
    tuples = _least_padding(counts, counts[0])
    pages = [_round_up(WINDOW_BLOCK * TOKEN_BYTES, ALIGN)] + [max(p) for r, p in state.items() if (c4, c128)[r > 4]]
    if any(p > sizes[-1] for p in pages):
        raise ValueError("a window or state page larger than the compressed caches' (vLLM asserts against it)")
    if c4 and len({min(s for s in sizes if s >= p) for p in state[4]}) < 2:
        raise ValueError("the ratio-4 states padded to one page size, a grouping not read")
    windows, most = [], max(full.values())
    for n, win, blk in groups:
        split = -(-n // tuples)  # groups of at most `tuples` layers each, the layers dealt round
        most = max(most, -(-n // split))
        windows.append((split, win - 1 + mnbt, blk))
    # the pages of all the layers of each kind of group, padded to the tuple's next size (vLLM's concurrency weighs
    # a group's blocks by them: get_max_concurrency_for_kv_cache_config, UniformTypeKVCacheSpecs.page_size_bytes)
    def pad(page: int) -> int:
        return min(s for s in sizes if s >= page)
    sums = [sum(page * n for page, n in full.items()), (len(ratios) + draft) * pad(pages[0])]
    sums += [c4 * sum(pad(p) for p in state[4])] if c4 else []
    sums += [c128 * pad(state[128][0])] if c128 else []
    return {"tuple_bytes": sum(sizes), "tuples": most, "windows": windows, "first": tuples, "page_sums": sums}


def request_blocks(lay: Mapping[str, Any], block: int, length: int) -> int:
    """Blocks one request of `length` tokens takes over all groups (each costs tuples x tuple bytes)."""
    blocks = -(-length // block)
    for split, span, blk in lay["windows"]:
        blocks += split * (-(-min(span, length) // blk) + 1)
    return blocks


def vllm_breakdown(arch: ModelArch, version: str | None, settings: Mapping[str, Any], kv_cache_dtype: Any,
                   draft: int, pp: int, dcp: int) -> KVBreakdown:
    """V4 on vLLM as one KVBreakdown: bytes per token of the compressed group's blocks and, as the window terms
    (pool.window_cost), what each window group takes of a request. ValueError where the layout is not read."""
    why = ""
    name = str(kv_cache_dtype or "auto").strip().lower()
    block, mnbt = positive_int(settings.get("block_size"), 0), positive_int(settings.get("max_num_batched_tokens"), 0)
    if version not in READ:
        why = f"vLLM {version or '(version unknown)'}'s DeepSeek-V4 layout was not read (read: {', '.join(READ)})"
    elif not name.startswith("fp8"):
        why = f"vLLM's FlashMLA layout for DeepSeek-V4 asserts an fp8 KV cache; --kv-cache-dtype {name} was not read"
    elif str(settings.get("attention_backend") or "").lower() == FLASHINFER:
        why = "the FlashInfer backend's plain-row DeepSeek-V4 layout was not read"
    elif pp > 1 or dcp > 1:
        why = "DeepSeek-V4's groups over pipeline stages or decode context parallel ranks were not read"
    elif not block or block % 256:
        # DeepseekV4FlashMLASparseBackend.get_supported_kernel_block_sizes: [256] (vllm==0.20.0, vllm==0.23.0)
        why = "DeepSeek-V4's FlashMLA kernels take 256-token blocks: state --block-size (a multiple of 256; " \
              "vLLM refuses others)" if block else "state --block-size (a multiple of 256, the V4 FlashMLA " \
              "kernels' block)"
    elif not mnbt:
        why = "DeepSeek-V4's window caches and compressor states are sized over max_num_batched_tokens, whose " \
              "default differs by release and device: state --max-num-batched-tokens"
    elif arch.head_dim != 512 or (arch.qk_rope_head_dim or 64) != 64 or not arch.sliding_window:
        why = "a DeepSeek-V4 shape other than head_dim 512 with 64 of RoPE and a window"
    if why:
        raise ValueError(f"{arch.name}: DeepSeek-V4's compressed attention is sized on vLLM as the releases read "
                         f"lay it out; here {why}; state the pool the engine logs (kv_pool_tokens, or the "
                         "ctxlint.io/kv-pool-tokens annotation on a workload)")
    lay = layout(arch.compress_ratios, arch.index_head_dim or 128, block, mnbt, arch.sliding_window, draft)
    page = lay["tuples"] * lay["tuple_bytes"]
    bpt = page / block
    terms = tuple((split * page / blk, span, 1, blk) for split, span, blk in lay["windows"])
    kinds = ", ".join(f"{split} x cdiv(min({span:,}, L), {blk}) + 1" for split, span, blk in lay["windows"])
    n = arch.num_layers
    notes = (f"DeepSeek-V4 on vLLM {version}: every block of its {1 + sum(w[0] for w in lay['windows'])} KV cache "
             f"groups costs {lay['tuples']} tuples x {lay['tuple_bytes']:,} B = {page:,} B; a request of L tokens "
             f"takes cdiv(L, {block}) blocks of the compressed group and {kinds} of its window and compressor-state "
             "groups (_max_memory_usage_bytes_from_groups)",)
    return KVBreakdown(engine="vllm", dtype_bytes=1, heads_per_gpu=1, per_layer_bytes=bpt / n, full_layers_per_gpu=n,
                       sliding_layers_per_gpu=0, linear_layers_per_gpu=0, draft_layers=draft, per_token_layers=n,
                       bytes_per_token=bpt, bounded_bytes_per_request=sum(t[0] * t[1] for t in terms),
                       bounded_span=terms, state_bytes_per_request=None,
                       formula=f"{lay['tuples']} x {lay['tuple_bytes']:,} B / {block} (DeepSeek-V4 block)",
                       notes=notes, full_layer_bytes=bpt / n)
