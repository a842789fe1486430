"""A ModelOpt checkpoint whose quantization_config gives no quant_algo but one group of 4-bit float weights in groups
of 16 (nvidia/Kimi-K2.6-NVFP4, nvidia/Kimi-K2.7-Code-NVFP4, nvidia/Gemma-4-31B-IT-NVFP4 as vendored in
ai-dynamo/aiconfigurator@095f58a51c4ca8e61b66ec108d86f223f8d559ce:aic-core/src/aiconfigurator_core/model_configs/)
is NVFP4: "modelopt" alone was read as FP8, weighing these checkpoints ~1.8x and refusing srt-slurm recipes that
run Kimi-K2.6 NVFP4 with "weights do not fit"."""
from __future__ import annotations

import pytest

from ctxlint.physics.quant_config import from_quantization_config
from ctxlint.resolution.resolve import resolve

_GROUPS = {"group_0": {"weights": {"num_bits": 4, "type": "float", "group_size": 16}}}


def test_groups_decide_when_no_quant_algo():
    assert from_quantization_config({"quant_method": "modelopt", "config_groups": _GROUPS}).key == "nvfp4"
    eight = {"group_0": {"weights": {"num_bits": 8, "type": "float"}}}
    assert from_quantization_config({"quant_method": "modelopt", "config_groups": eight}).key == "fp8"
    # quant_algo still decides where it is given, and plain "modelopt" without groups stays FP8, as before
    assert from_quantization_config({"quant_method": "modelopt", "quant_algo": "FP8",
                                     "config_groups": _GROUPS}).key == "fp8"
    assert from_quantization_config({"quant_method": "modelopt"}).key == "fp8"
    assert from_quantization_config({"quant_method": "modelopt", "quant_algo": "NVFP4"}).key == "nvfp4"


@pytest.mark.parametrize("model, key", [("nvidia/Kimi-K2.6-NVFP4", "nvfp4-experts"),
                                        ("nvidia/Kimi-K2.7-Code-NVFP4", "nvfp4-experts"),
                                        ("nvidia/Gemma-4-31B-IT-NVFP4", "nvfp4")])
def test_catalog_entries_are_nvfp4(model, key):
    # the Kimi checkpoints exclude attention and shared experts from NVFP4 (test_nvfp4_experts_only.py)
    assert resolve(model).weights.key == key
