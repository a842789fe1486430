"""NVIDIA's DeepSeek-V4 NVFP4 checkpoints: FP8 with NVFP4 routed experts (ModelOpt MIXED_PRECISION).

Their config.json (ai-dynamo/aiconfigurator@095f58a51c4ca8e61b66ec108d86f223f8d559ce:aic-core/src/
aiconfigurator_core/model_configs/nvidia--DeepSeek-V4-{Flash,Pro}-NVFP4_config.json) keeps DeepSeek's FP8
quantization_config and adds quant_algo MIXED_PRECISION, moe_quant_algo NVFP4 and a per-layer list of the routed
experts only; vLLM's DeepseekV4FP8Config serves the experts as NVFP4 and every other linear layer as FP8.
"""
from __future__ import annotations

from ctxlint.engine import lint_text
from ctxlint.physics.gpu_weights import weights_per_gpu
from ctxlint.physics.hf_config import arch_from_hf_config
from ctxlint.physics.quant_config import from_quantization_config, with_expert_dtype
from ctxlint.resolution.format_families import families
from ctxlint.resolution.resolve import resolve

GIB = 2 ** 30

# nvidia/DeepSeek-V4-Flash-NVFP4's quantization_config, its 43-entry list cut to two
QUANT = {"activation_scheme": "dynamic", "fmt": "e4m3", "quant_method": "fp8", "scale_fmt": "ue8m0",
         "weight_block_size": [128, 128], "quant_algo": "MIXED_PRECISION", "moe_quant_algo": "NVFP4",
         "group_size": 16, "kv_cache_quant_algo": None,
         "ignore": ["*.attn.*", "*.ffn.shared_experts.*", "head", "mtp.*"],
         "producer": {"name": "modelopt", "version": "dsv4-nvfp4-experts"},
         "config_groups": {"group_0": {"targets": ["Linear"], "weights": {
             "dynamic": False, "group_size": 16, "num_bits": 4, "type": "float"}}},
         "quantized_layers": {"layers.0.ffn.experts": {"group_size": 16, "quant_algo": "NVFP4"},
                              "layers.42.ffn.experts": {"group_size": 16, "quant_algo": "NVFP4"}}}


def test_the_quantization_config_reads_as_fp8_with_nvfp4_experts():
    fmt = from_quantization_config(QUANT)
    assert (fmt.key, fmt.label, fmt.bits, fmt.scope) == ("fp8+nvfp4-experts", "FP8 with NVFP4 experts", 4.5,
                                                         "experts+fp8")
    assert with_expert_dtype(fmt, "fp4") is fmt  # the config's own expert_dtype: still NVFP4, not MXFP4
    assert with_expert_dtype(fmt, "fp8").key == "fp8"  # vLLM takes NVFP4 experts only under fp4
    # either signal alone says it: the list of routed experts, or moe_quant_algo
    assert from_quantization_config({k: v for k, v in QUANT.items() if k != "moe_quant_algo"}).key == \
        "fp8+nvfp4-experts"
    assert from_quantization_config({"quant_method": "fp8", "moe_quant_algo": "NVFP4"}).key == "fp8+nvfp4-experts"
    # a list that names an attention layer too is not that split: FP8 as before
    odd = dict(QUANT, moe_quant_algo=None, quantized_layers=dict(QUANT["quantized_layers"], **{
        "layers.0.attn.wq_a": {"quant_algo": "NVFP4"}}))
    assert from_quantization_config(odd).key == "fp8"
    # DeepSeek's own V4 config (no moe_quant_algo, no list) stays FP8 with MXFP4 experts
    own = {k: QUANT[k] for k in ("activation_scheme", "fmt", "quant_method", "scale_fmt", "weight_block_size")}
    assert with_expert_dtype(from_quantization_config(own), "fp4").key == "fp8+mxfp4-experts"


def test_a_config_json_with_it():
    cfg = {"architectures": ["DeepseekV4ForCausalLM"], "model_type": "deepseek_v4", "num_hidden_layers": 43,
           "num_attention_heads": 64, "num_key_value_heads": 1, "head_dim": 512, "hidden_size": 4096,
           "expert_dtype": "fp4", "quantization_config": QUANT}
    assert arch_from_hf_config(cfg, "nvidia/DeepSeek-V4-Flash-NVFP4").weight_format.key == "fp8+nvfp4-experts"


def test_weights_per_gpu():
    # V4-Pro: routed experts 1547.3962e9 x 4.5 / 8 = 870.41036e9 B; the rest (1572.9972 - 1547.3962 - 2 x 0.9267)e9
    # x 1 = 23.7476e9 B (61.9571e9 B when its attention was counted as plain q/k/v/o); embeddings and head
    # 2 x 0.9267e9 x 2 = 3.7068e9 B: 897.86476e9 B = 836.20 GiB, 104.53 GiB a GPU at TP 8 (was 108.97)
    pro = resolve("nvidia/DeepSeek-V4-Pro-NVFP4")
    assert (pro.arch.name, pro.weights.key) == ("deepseek-ai/DeepSeek-V4-Pro", "fp8+nvfp4-experts")
    tp8, formula, notes = weights_per_gpu(pro.arch, 8, 1, fmt=pro.weights)
    assert tp8.point == 112_233_095_312.5 and round(tp8.point / GIB, 2) == 104.53
    assert formula == "1573e9 params as FP8 with NVFP4 experts = 836.20 GiB / (8 x 1)"
    assert "weights FP8 with NVFP4 experts: 4.5 bits per quantized weight (MoE experts; other linear layers FP8, " \
           "embeddings and LM head at 16 bits)" in notes
    # NVIDIA's agg-dp4-mtp-8k1k recipe (vLLM, DP 4 with EP, TP 1): the experts over 4 GPUs, the rest whole on each:
    # 228.23 GiB a GPU (263.81 before, within 4 GiB of a B300's 267.65 GiB where the recipe runs)
    dp4, _, _ = weights_per_gpu(pro.arch, 1, 1, fmt=pro.weights, expert_split=4)
    assert round(dp4.point / GIB, 2) == 228.23
    # V4-Flash at TP 2: 152.92 GiB / 2 = 76.46 GiB (was 79.53)
    flash = resolve("nvidia/DeepSeek-V4-Flash-NVFP4")
    assert (flash.arch.name, flash.weights.key) == ("deepseek-ai/DeepSeek-V4-Flash", "fp8+nvfp4-experts")
    tp2, _, _ = weights_per_gpu(flash.arch, 2, 1, fmt=flash.weights)
    assert tp2.point == 82_096_293_750.0 and round(tp2.point / GIB, 2) == 76.46
    # deepseek-ai's own checkpoints are untouched: MXFP4 experts
    assert resolve("deepseek-ai/DeepSeek-V4-Pro").arch.weight_format.key == "fp8+mxfp4-experts"


ALIAS = """\
name: alias
model:
  path: "dsv4"
  container: "dynamo-sglang"
  precision: "{precision}"
resources: {{gpu_type: gb300, gpus_per_node: 4, agg_nodes: 2, agg_workers: 1}}
backend:
  sglang_config:
    aggregated:
      served-model-name: "nvidia/DeepSeek-V4-Pro-NVFP4"
      tensor-parallel-size: 8
"""


def test_an_srt_slurm_precision_agrees_with_either_part():
    assert families("fp8+nvfp4-experts") == ("fp8", "nvfp4")
    for precision in ("fp4", "nvfp4", "fp8"):
        [dep] = lint_text(ALIAS.format(precision=precision), "r.yaml").deployments
        assert (dep.resolution.weights.key, dep.resolution.weights.alt) == ("fp8+nvfp4-experts", ()), precision
