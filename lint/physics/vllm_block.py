"""vLLM's KV-cache block size when `--block-size` is not given: 16 tokens, 64 from 0.34.0.

The pool is whole blocks (num_blocks x block_size), BlockPool keeps one block back as its null block
(pool.RESERVE) and a request takes whole blocks, so the default moves every vLLM pool and longest request.
- `CacheConfig.DEFAULT_BLOCK_SIZE` is 16 through 0.33.0 (vllm-0.33.0 wheel: vllm/config/cache.py:185) and 64
  in 0.34.0 (vllm-0.34.0 wheel: vllm/config/cache.py:185); `_apply_block_size_default` (:482-492) sets it
  when the flag is absent. `--block-size` stays a plain positive int (arg_utils.py:596, cache.py:188 `gt=0`):
  no choices changed.
- `Platform.update_block_size_for_backend` (vllm-0.34.0 wheel: vllm/platforms/interface.py:760-804, the
  same in 0.33.0) keeps the default where every attention backend supports it (`get_preferred_block_size`,
  vllm/v1/attention/backend.py:158-166): FlashAttention (`MultipleOf(16)`, flash_attn.py:357-368),
  FlashInfer (16/32/64, flashinfer.py:587-604) and Triton (`MultipleOf(16)`) all take 64.
- A hybrid (Mamba) model's attention block is a multiple of max(the smallest kernel block, the cache's
  block size) (`_align_hybrid_block_size`, interface.py:1083-1117): of 64 from 0.34.0 (mamba.py).
A release that is not known is estimated under each release (releases.py: 0.34.0 is one), so the band
covers both sizes. Asked with no release (a budget given without one is not folded), 16: the block of every
log before 0.34 (410,128 tokens from a logged budget, tests/test_capacity_cli.py), a difference of a block.
A CPU build's and Neuron's own defaults are set by their callers (ctxlint.held.vllm_block).
"""
from __future__ import annotations

from typing import Any, Mapping, Optional

from ctxlint.versions import parse_version

BLOCK_OLD, BLOCK_NEW, BLOCK_NEW_SINCE = 16, 64, "0.34.0"
_SINCE = parse_version(BLOCK_NEW_SINCE)


def default_block(version: Optional[str]) -> int:
    """vLLM's block size on a GPU when the flag is not given, for `version` (None: 16, see above). Remembered by
    the release's text: every estimate asks, ~30 per role a CTX208 search probes."""
    found = _BY_RELEASE.get(version)
    if found is None:
        v = parse_version(version) if version else None
        found = BLOCK_NEW if v is not None and v >= _SINCE else BLOCK_OLD
        if len(_BY_RELEASE) < 1024:
            _BY_RELEASE[version] = found
    return found


_BY_RELEASE: dict = {}


def given_block(settings: Mapping[str, Any]) -> Optional[int]:
    """`--block-size` as a positive whole number, else None ('16' from a shell is read as 16)."""
    raw = settings.get("block_size")
    if raw is None or isinstance(raw, bool):
        return None
    if type(raw) is int:
        return raw if raw > 0 else None
    try:
        f = float(raw)
    except (TypeError, ValueError):
        return None
    return int(f) if f.is_integer() and f > 0 else None


def block_size(settings: Mapping[str, Any], version: Optional[str]) -> int:
    """The block a vLLM role runs with: its `--block-size`, else the release's default."""
    return given_block(settings) or default_block(version)
