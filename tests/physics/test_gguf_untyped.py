"""A GGUF file whose type ctxlint does not size is never sized as its base's 16-bit checkpoint (weights._GGUF_UNKNOWN,
names._ref), and unsloth's dynamic `_K_XL` types above 4 bits are sized from their base block types
(weights._GGUF: Q5_K 5.5, Q6_K 6.5625, Q8_0 8.5 bits, up to 16 for the layers unsloth keeps wider)."""
from __future__ import annotations

import re

import pytest

from ctxlint.engine import lint_text
from ctxlint.physics.gpu_weights import weights_per_gpu
from ctxlint.physics.models import lookup_model
from ctxlint.physics.weights import format_by_key
from ctxlint.resolution.names import parse_ref

CACHE_FILE = "/models/unsloth_Qwen3-Coder-Next-GGUF_UD-Q8_K_XL_Qwen3-Coder-Next-UD-Q8_K_XL-00001-of-00003.gguf"


@pytest.mark.parametrize("written, key", [
    # llama.cpp's -hf cache name of unsloth's split file (sweep p31: TheWizardTower/abrazo llama-swap config)
    (CACHE_FILE, "gguf-ud-q8-k-xl"),
    ("/models/Model-UD-Q8_K_XL.gguf", "gguf-ud-q8-k-xl"),
    ("/models/Qwen3.5-9B-UD-Q5_K_XL.gguf", "gguf-ud-q5-k-xl"),
    ("/models/gemma-4-E2B-it-UD-Q6_K_XL.gguf", "gguf-ud-q6-k-xl"),
    ("/models/UD-Q8_K_XL/Qwen3-8B-Q8_K_XL.gguf", "gguf-q8-k-xl"),
    # bartowski's `_L` (the base type, embed and output at Q8_0) and llama-quantize's `Q4_K` alias (review of gguf32:
    # both were the unknown band, whose 4.85-bit point is below Q6_K's 6.5625-bit floor)
    ("/models/Qwen2-VL-7B-Instruct-Q6_K_L.gguf", "gguf-q6-k-l"),
    ("unsloth_Qwen3-Coder-Next-GGUF_Qwen3-Coder-Next-Q6_K_L.gguf", "gguf-q6-k-l"),
    ("/models/Qwen3-8B-Q4_K.gguf", "gguf-q4-k"),
    # a file whose name holds no type, or one ctxlint does not know: some GGUF type
    ("/models/Qwen3-Coder-Next.gguf", "gguf"),
    ("/models/Qwen3-Coder-Next-MXFP4_MOE.gguf", "gguf"),
])
def test_a_gguf_file_always_has_a_gguf_format(written, key) -> None:
    assert parse_ref(written).weights.key == key


def test_bartowskis_l_types_and_the_quantize_aliases_keep_their_base_types_floor() -> None:
    bands = {k: (f.bits, f.low, f.high) for k in ("q4-k-l", "q5-k-l", "q6-k-l", "q4-k", "q5-k", "q3-k")
             for f in [format_by_key("gguf-" + k)]}
    assert bands == {"q4-k-l": (4.85, 4.5, 8.5), "q5-k-l": (5.7, 5.5, 8.5), "q6-k-l": (6.5625, 6.5625, 8.5),
                     "q4-k": (4.85, 4.5, 5.2), "q5-k": (5.7, 5.5, 6.0), "q3-k": (3.9, 3.4375, 4.3)}
    for alias, full in (("q4-k", "q4-k-m"), ("q5-k", "q5-k-m"), ("q3-k", "q3-k-m")):
        a, b = format_by_key("gguf-" + alias), format_by_key("gguf-" + full)
        assert (a.bits, a.low, a.high) == (b.bits, b.low, b.high)


def test_a_repository_folder_is_not_read_as_a_gguf_file() -> None:
    assert parse_ref("/models/Qwen3-8B").weights is None


def test_the_xl_types_span_their_base_block_type_to_16_bits() -> None:
    bands = {k: (f.bits, f.low, f.high) for k in ("ud-q5-k-xl", "ud-q6-k-xl", "ud-q8-k-xl", "q8-k-xl")
             for f in [format_by_key("gguf-" + k)]}
    assert bands == {"ud-q5-k-xl": (5.5, 5.5, 16.0), "ud-q6-k-xl": (6.5625, 6.5625, 16.0),
                     "ud-q8-k-xl": (8.5, 8.5, 16.0), "q8-k-xl": (8.5, 8.5, 16.0)}
    # Llama-3.1-8B, 8.0303e9 params: 8.5 bits is 8,532,193,750 B (7.95 GiB) where BF16 is 16,060,600,000 B
    term = weights_per_gpu(lookup_model("Llama-3.1-8B"), 1, 1, 0, format_by_key("gguf-ud-q8-k-xl"))[0]
    assert term.point == 8_532_193_750
    assert term.high == 8.0303e9 * 16 / 8 * 1.02


def _need(path: str) -> tuple:
    script = f"#!/bin/sh\nllama-server -m {path} -c 32768 -ngl 99 --port 8080\n"
    (finding,) = [f for f in lint_text(script, "start.sh").findings if f.rule == "CTX208"]
    point, low, high = re.search(r"needs >= ([\d.]+) \(band ([\d.]+)-([\d.]+)\) GiB", finding.message).groups()
    return float(point), float(low), float(high), finding.message


def test_an_unsloth_q8_k_xl_file_is_not_sized_as_bf16() -> None:
    # Qwen3-Coder-Next (Qwen3-Next-80B-A3B's network, 79.7e9 params): at BF16 one 32,768-token request needed
    # >= 150.2 GiB, the band's low 149; at 8.5 bits it is ~80.7, the low bound the Q8_0 blocks' 79.8, the high the
    # 16-bit figure
    for path in (CACHE_FILE, "/models/Qwen3-Coder-Next-UD-Q8_K_XL.gguf"):
        point, low, high, message = _need(path)
        assert 79 < low <= point < 82 and high > 150, message
        assert "A100-SXM4-80GB no" in message and "H200 maybe" in message


def test_a_gguf_without_a_type_is_a_wide_band() -> None:
    # 1.56 to 16 bits (weights._GGUF_UNKNOWN): the band spans ~15.7 to the 16-bit 154.5 GiB, and every device
    # between is a "maybe", never the BF16 figure's "no"
    point, low, high, message = _need("/models/Qwen3-Coder-Next.gguf")
    assert low < 20 and high > 150 and point < 60, message
    assert "L4 maybe" in message and "A100-SXM4-80GB maybe" in message


def test_a_gpt_oss_gguf_without_a_type_keeps_the_converters_mxfp4_experts() -> None:
    # gpt-oss-20b, 19.1103e9 of 20.9079e9 params routed experts: llama.cpp's converter writes them MXFP4 whatever the
    # file's type (weights.gguf_mxfp4_experts), so the point is 4.25 bits for them, 4.85 (the unknown band's) for the
    # rest: 10,152,346,875 + 1.7976e9 x 4.85 / 8 = 11,242,141,875 B; requantized, anything from 1.56 to 16 bits
    term, formula, _ = weights_per_gpu(lookup_model("gpt-oss-20b"), 1, 1, 0, format_by_key("gguf"))
    assert term.point == 11_242_141_875
    assert formula.startswith("19.1103e9 expert params as MXFP4 + 1.7976e9 as GGUF (type not named)")
    assert term.high == 20.9079e9 * 16 / 8 * 1.02
