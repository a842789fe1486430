"""vLLM's MXFP4 expert padding (mxfp4_padding.gpt_oss_factor) applies to weights whose point is MXFP4, not to a
16-bit point whose band names MXFP4 among the formats the checkpoint may also be (gpu_weights._spanning writes them
after "; as "). Before, such a band was padded and its low end became the padded 16-bit point: one H100 serving
Qwen2.5-72B-Instruct under its served name from an opaque `/model` was a false CTX209 (tests/adapters/
test_served_model_name.py)."""
from __future__ import annotations

from ctxlint.physics.gpu_weights import weights_per_gpu
from ctxlint.physics.models import lookup_model
from ctxlint.physics.mxfp4_padding import gpt_oss_factor
from ctxlint.physics.weights import FORMATS, format_by_key
from ctxlint.records import replace


def test_a_16_bit_band_that_may_be_mxfp4_is_not_padded():
    arch = lookup_model("Qwen/Qwen2.5-72B-Instruct")
    band = replace(FORMATS["bf16"], alt=(FORMATS["mxfp4"], FORMATS["fp8"]), alt_why="the checkpoint may be another")
    weights, _, _ = weights_per_gpu(arch, 1, 1, 0, band)
    assert "; as MXFP4" in weights.how and gpt_oss_factor(arch, weights, 1, 1) is None


def test_an_mxfp4_point_is_padded_as_before():
    arch = lookup_model("openai/gpt-oss-120b")
    weights, _, _ = weights_per_gpu(arch, 1, 1, 0, format_by_key("mxfp4-experts"))
    assert gpt_oss_factor(arch, weights, 1, 1) == (1.09, 1.06, 1.10)


def test_an_mxfp4_point_in_a_band_is_padded_and_the_bands_other_ends_stay():
    from ctxlint.physics.mxfp4_padding import gpt_oss_padded

    arch = lookup_model("openai/gpt-oss-120b")
    band = replace(format_by_key("mxfp4-experts"), alt=(FORMATS["nvfp4"], FORMATS["bf16"]),
                   alt_why="the checkpoint may be another")
    weights, _, _ = weights_per_gpu(arch, 1, 1, 0, band)
    padded = gpt_oss_padded(weights, gpt_oss_factor(arch, weights, 1, 1), "")
    assert padded.point == weights.point * 1.09
    assert (padded.low, padded.high) == (min(weights.low, weights.point * 1.06), weights.high)
    point, _, _ = weights_per_gpu(arch, 1, 1, 0, format_by_key("mxfp4-experts"))
    alone = gpt_oss_padded(point, gpt_oss_factor(arch, point, 1, 1), "")
    assert (alone.low, alone.high) == (point.point * 1.06, point.point * 1.10)  # a point alone: as before
