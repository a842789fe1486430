"""A MoE model whose routed experts' share of the weights is unknown (a published parameter count, no count by
part) spread over more GPUs than TP x PP: the weights one GPU holds are a band from "all of them experts" to "none
of them", so CTX203 is no error on that unknown alone.

Sweep of NVIDIA/srt-slurm recipes copied in SemiAnalysisAI/InferenceX
(benchmarks/multi_node/srt-slurm-recipes/vllm/minimax-m3/b200-fp4/8k1k/1p1d-dep2-tp4-c1-c16-8k1k.yaml): the
prefill worker runs nvidia/MiniMax-M3-NVFP4 at TP 1 with --data-parallel-size 2 --enable-expert-parallel on B200s.
vLLM shards the FusedMoE layers over TP x DP ranks (physics/served.expert_split), so each GPU holds half of the
experts; ctxlint said "224.22 GiB > 178.06 GiB" (all 428e9 parameters at NVFP4 on one GPU) as an error.
MiniMax-M3's experts are now counted from its config (test_minimax_m3.py), so the band is tested on the same entry
with its split taken away, as a model known only by a published count is.
"""
from __future__ import annotations

import pytest

from ctxlint.engine import lint_paths
from ctxlint.physics.gpu_weights import weights_per_gpu
from ctxlint.physics.weights import named_format
from ctxlint.records import replace
from ctxlint.resolution.resolve import resolve

GIB = 2 ** 30


@pytest.fixture(scope="module")
def resolved():
    # the checkpoint is MXFP8 with NVFP4 experts (test_minimax_m3.py); the band is tested with one format over
    # every linear layer, NVFP4, as a checkpoint known only by its name and a published count is read
    r = resolve("nvidia/MiniMax-M3-NVFP4")
    assert r.arch.num_experts == 128 and r.arch.total_params_b == 428.0
    assert r.weights.key == "mxfp8+nvfp4-experts"
    return replace(r, weights=named_format("nvfp4"))


@pytest.fixture(scope="module")
def arch(resolved):
    return replace(resolved.arch, expert_params_b=None, embed_params_b=None, lm_head_params_b=None)


def test_dp_split_widens_the_low_end_only(arch, resolved):
    fmt = resolved.weights
    whole, _, _ = weights_per_gpu(arch, 1, 1, fmt=fmt)
    split, formula, notes = weights_per_gpu(arch, 1, 1, fmt=fmt, expert_split=2.0,
                                            expert_how="vLLM EP over TP x DP 2")
    # 428e9 x 4.5 bits / 8 = 240.75e9 B = 224.22 GiB at the point, as without the split
    assert round(split.point / GIB, 2) == round(whole.point / GIB, 2) == 224.22
    assert split.low == pytest.approx(whole.low / 2) and split.high == whole.high
    assert "routed experts' share unknown: down to 1/2 if all were experts (vLLM EP over TP x DP 2)" in formula
    assert any("share of the weights is unknown" in n for n in notes)


def test_attention_replicas_widen_the_high_end_only(arch):
    whole, _, _ = weights_per_gpu(arch, 4, 1)
    held, formula, _ = weights_per_gpu(arch, 4, 1, rest_replicas=4, expert_how="SGLang DP attention 4")
    assert held.point == whole.point and held.low == whole.low
    assert held.high == pytest.approx(whole.high * 4)
    assert "up to x 4 if none were (SGLang DP attention 4)" in formula


def test_no_weights_error_for_the_recipe_shape(tmp_path):  # with the experts' share now known (test_minimax_m3.py)
    script = tmp_path / "mm3.sh"
    script.write_text("#!/bin/bash\n#SBATCH --gres=gpu:b200:2\n"
                      "vllm serve nvidia/MiniMax-M3-NVFP4 --tensor-parallel-size 1 --data-parallel-size 2 "
                      "--enable-expert-parallel --max-model-len 9472 --kv-cache-dtype fp8 "
                      "--gpu-memory-utilization 0.90\n")
    report = lint_paths([str(script)])
    ids = sorted(f.rule for f in report.findings)
    # the experts' share known, the weights are 124.72 GiB a GPU (test_minimax_m3.py) and the 9,472-token window fits
    # its 420,544-token pool, where before the unknown share's band left it inside a band (CTX210)
    assert ids == []
    # the same model on one GPU without DP is still refused: all 232.93 GiB of its weights on one B200 (the routed
    # experts NVFP4, the other linear layers MXFP8, the embeddings and LM head, 2 x 1.2292e9, at 16 bits:
    # 413.1222e9 x 4.5 / 8 + (428 - 413.1222 - 2.4584)e9 x 8.25 / 8 + 2.4584e9 x 2 B)
    script.write_text("#!/bin/bash\n#SBATCH --gres=gpu:b200:1\n"
                      "vllm serve nvidia/MiniMax-M3-NVFP4 --max-model-len 9472\n")
    (error,) = [f for f in lint_paths([str(script)]).findings if f.rule == "CTX203"]
    assert error.message.startswith("232.93 GiB > 178.35 GiB: the weights of MiniMaxAI/MiniMax-M3 per GPU")
