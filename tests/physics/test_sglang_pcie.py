"""SGLang over more than two PCIe cards runs no custom all-reduce: the memory before the weights may be what
one GPU's CUDA context leaves (mem_sglang.pcie_group), the band's top; a 4x L4 boot log holds it."""
from __future__ import annotations

import pytest

from ctxlint.physics import mem_sglang
from ctxlint.physics.terms import GIB
from tests.helpers import run

TOTAL = 21.95 * GIB


@pytest.mark.parametrize("device, tp, pp, top", [
    ("L4", 4, 1, 0.3),             # PCIe, more than two: no custom all-reduce
    ("L4", 2, 1, 1.8),             # two PCIe cards may still run it
    ("H100-SXM-80GB", 4, 1, 1.8),  # NVLink: the multi-GPU figure
    ("A100-40GB", 4, 1, 1.8),      # SXM4 or PCIe: not known to be PCIe
    ("L4", 1, 4, 1.8),             # pipeline stages of one GPU each: no tensor-parallel group above two
    ("L4", 1, 1, 0.3),             # one GPU
])
def test_memory_before_weights_band_top(device, tp, pp, top):
    pre, _, _, _ = mem_sglang.terms(TOTAL, 23034, tp, pp, {"mem_fraction_static": 0.85}, "0.4.3.post4", device)
    assert round((TOTAL - pre.high) / GIB, 6) == top
    assert pre.point == TOTAL - (2.0 if tp * pp > 1 else 0.4) * GIB  # the point stays


def _script(tmp_path, extra: str = "", header: str = ""):
    path = tmp_path / "serve.sh"
    path.write_text(f"#!/bin/bash\n{header}pip install sglang==0.4.3.post4\npython3 -m sglang.launch_server "
                    f"--model-path Qwen/QwQ-32B --tensor-parallel-size 4{extra}\n")
    return path


def test_l4_group_of_four_is_within_band_not_refused(tmp_path):
    # didier-durand/llms-in-clouds@b001c869:docs/sglang.md: 46,611 tokens, holding the 40,960 default context
    path = _script(tmp_path, header="#SBATCH --gres=gpu:l4:4\n")
    out = run(["check", "--isolated", "--select", "CTX201,CTX210", str(path)]).out
    assert out.startswith(f"{path}:4:46: CTX210 [warning] 40,960 is inside the unified KV pool's estimated band "
                          "13,796-54,811 (point 29,896)")


def test_common_device_verdicts_read_the_pcie_rule(tmp_path):
    # with mem_fraction_static set the search's sizes decide most devices; a PCIe card above TP 2 is estimated
    # on itself, as a stated L4 would be
    path = _script(tmp_path, " --mem-fraction-static 0.85")
    out = run(["check", "--isolated", "--select", "CTX208", str(path)]).out
    assert "(L4 maybe, A10G maybe, L40S yes," in out
