"""Names that differ from a catalogued id only by a spelling the resolver states: a float dtype written after the
name (`-BF16`)."""
from __future__ import annotations

import pytest

from ctxlint.resolution.names import parse_ref
from ctxlint.resolution.resolve import resolve


@pytest.mark.parametrize("written, base, key", [
    ("/mnt/nvme_raid0/gitroot/DeepSeek-R1-0528-BF16", "deepseek-r1-0528", "bf16"),
    ("unsloth/DeepSeek-V3-bf16", "deepseek-v3", "bf16"),
    ("TheBloke/Llama-2-7B-fp16", "llama-2-7b", "bf16"),
    ("org/Some-Model-FP32", "some-model", "fp32"),
])
def test_a_float_dtype_after_the_name_states_the_format(written, base, key) -> None:
    ref = parse_ref(written)
    assert (ref.base, ref.weights.key) == (base, key)



def test_a_16_bit_copy_of_an_fp8_checkpoint_is_that_network_in_16_bits() -> None:
    # sweep c30 (honkliu/Jiuzhang's SGLang scripts): DeepSeek-R1-0528 cast to BF16; the catalog's checkpoint is FP8
    found = resolve("/mnt/nvme_raid0/gitroot/DeepSeek-R1-0528-BF16")
    assert (found.arch.name, found.weights.key) == ("deepseek-ai/DeepSeek-R1", "bf16")
    assert found.how.endswith("; 16-bit weights (from the name)")
    assert resolve("deepseek-ai/DeepSeek-R1-0528").weights.key == "fp8"  # the checkpoint itself is unchanged



def test_a_bf16_release_named_as_written_says_nothing_more_about_its_weights() -> None:
    # NVIDIA's `-BF16` over a 16-bit catalog checkpoint: the name says what the catalog does
    assert resolve("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16").how == \
        "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16: built-in catalog"

