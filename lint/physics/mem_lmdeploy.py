"""LMDeploy's KV budget per GPU (engines.md §8; budget.py dispatches here).

TurboMind: KV = free after weights x cache_max_entry_count (0.8; 0.5 of the total in 0.2.0-0.2.1); the PyTorch
engine first reserves (max_prefill_token_num + 2 x max_batches) x vocab x 2 bytes for logits. The backend is
chosen at run time (lmdeploy_backend.py): the point takes the PyTorch reserve, the high bound TurboMind's, unless
`--backend` says which. A pool given in blocks is blocks x `--cache-block-seq-len` (64), the block size of both
engines (lmdeploy-0.18.0 wheel: lmdeploy/cli/utils.py `cache_block_seq_len`, cli/serve.py
`block_size=args.cache_block_seq_len` for PyTorch): `--num-gpu-blocks` on the PyTorch engine, and a
`--cache-max-entry-count` of 1 or more where TurboMind reads it as blocks.
"""
from __future__ import annotations

from typing import Any, Mapping, Optional

from .budget import CONTEXT, Budget, _finish, _missing, _num
from .lmdeploy_backend import backend as pick_backend
from .lmdeploy_backend import ratio_refused
from .models import ModelArch
from .terms import GIB, Term, gib

_DEFAULT_RATIO = 0.8  # lmdeploy/messages.py TurbomindEngineConfig / PytorchEngineConfig.cache_max_entry_count


def budget(arch: ModelArch, total: Optional[float], tp: int, pp: int, s: Mapping[str, Any],
           weights: Optional[Term], version: Optional[str]) -> Budget:
    block = int(_num(s, "cache_block_seq_len", 0) or _num(s, "block_size", 64) or 64)
    engine = pick_backend(arch, s, version)
    asm: list[str] = []
    blocks = int(_num(s, "num_gpu_blocks", 0) or 0)
    if blocks > 0 and engine == "pytorch":
        # an explicit count is kept as given: `if self.cache_config.num_gpu_blocks != 0: # User supplied an
        # explicit block count. Do not resize it` (lmdeploy-0.18.0 wheel: lmdeploy/pytorch/engine/executor/
        # base.py `_update_num_gpu_blocks`); a release before 0.18.0 refuses the flag (CTX301) and its value is
        # dropped before it reaches here (engines/int_eras.at_release)
        return Budget(None, block, fixed_blocks=blocks, steps=(("num_gpu_blocks", f"{blocks} x {block}",
                                                                blocks * block),),
                      assumptions=("LMDeploy PyTorch engine: pool fixed by --num-gpu-blocks",))
    if blocks < 0:  # PytorchEngineConfig asserts num_gpu_blocks >= 0 (CTX301, lmdeploy_refusals.py): no pool from it
        asm.append(f"--num-gpu-blocks {blocks} is refused by LMDeploy's PyTorch engine (CTX301): the pool from "
                   "cache_max_entry_count assumed")
    if blocks > 0:
        asm.append(f"--num-gpu-blocks {blocks} is read by the PyTorch engine only: " + (
            "TurboMind runs this model and sizes its pool from cache_max_entry_count" if engine == "turbomind" else
            "TurboMind, if it runs this model, sizes its pool from cache_max_entry_count (assumed here)"))
    ratio = float(_num(s, "cache_max_entry_count", _DEFAULT_RATIO))
    if ratio >= 1:
        refused = ratio_refused(engine, version)
        if refused:  # the engine exits at start-up (CTX301): no pool from the value
            asm.append(f"cache_max_entry_count {ratio:g} is refused by LMDeploy {version}"
                       f"{' ' + engine if engine else ''} (CTX301): the default {_DEFAULT_RATIO:g} assumed")
            ratio = _DEFAULT_RATIO
        else:
            n = int(ratio)
            why = "TurboMind reads a value of 1 or more as a number of blocks" + (
                "" if refused is False else ": only 0.10.0-0.14.x (and before 0.4.1) do; the PyTorch engine, "
                                            "TurboMind 0.4.1-0.9.x and 0.15.0 and later refuse it (CTX301)")
            return Budget(None, block, fixed_blocks=n, steps=(("cache_max_entry_count (blocks)", f"{n} x {block}",
                                                               n * block),), assumptions=(*asm, why))
    miss = _missing(total, weights, block, "cache_max_entry_count")
    if miss:
        return miss
    stated = str(s.get("backend") or "").lower()
    prefill = int(_num(s, "max_prefill_token_num", 8192) or 8192)
    batches = int(_num(s, "max_batch_size", 256) or 256)
    runtime = (prefill + 2 * batches) * (arch.vocab_size or 128_256) * 2
    reserve = Term("PyTorch runtime reserve", runtime if stated != "turbomind" else 0.0,
                   runtime if stated == "pytorch" else 0.0, runtime if stated != "turbomind" else 0.0,
                   f"({prefill} + 2 x {batches}) x vocab x 2 B")
    nt = Term("NCCL", 0.6 * GIB if tp * pp > 1 else 0.0, 0.0, 1.5 * GIB if tp * pp > 1 else 0.3 * GIB, "")
    base = Term.exact("device memory", total, gib(total))
    rule = "LMDeploy: KV = free after weights x cache_max_entry_count"
    return _finish(base, [CONTEXT, weights, nt, reserve], block, "cache_max_entry_count", rule, [rule, *asm],
                   scale=ratio)
