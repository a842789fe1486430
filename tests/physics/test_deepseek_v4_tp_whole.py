"""DeepSeek-V4 on vLLM: the parameters it does not split over tensor parallelism. DeepseekV4Attention builds
fused_wqa_wkv with disable_tp=True, the indexer's wq_b and weights_proj as ReplicatedLinear, each compressor's
fused_wkv_wgate with disable_tp=True and no quantization (vllm-project/vllm@0484480bc73081c4a5133b3cb53018323fce632d:
vllm/models/deepseek_v4/attention.py, @01cc1d3e7640a8ada37f99ca60cc3ee66490cf38:vllm/models/deepseek_v4/
compressor.py), and the hyper-connections as plain fp32 parameters (@9aced75337cffadfa164213e30197b361f27411b:
vllm/models/deepseek_v4/common/hyper_connection.py). ctxlint divided all of them over TP x PP at FP8: V4-Pro's
weights at TP 8 were 98.90 GiB a GPU where vLLM holds 101.63."""
from __future__ import annotations

from ctxlint.physics.gpu_weights import weights_per_gpu, whole_on_each_rank
from ctxlint.physics.models import lookup_model
from ctxlint.physics.params_dsv4 import whole_on_each_tp_rank

GIB = 2 ** 30
# deepseek-ai/DeepSeek-V4-Pro's config.json (ai-dynamo/aiconfigurator@095f58a51c4ca8e61b66ec108d86f223f8d559ce:
# aic-core/src/aiconfigurator_core/model_configs/deepseek-ai--DeepSeek-V4-Pro_config.json), the keys read here
PRO = {"model_type": "deepseek_v4", "q_lora_rank": 1536, "index_n_heads": 64, "index_head_dim": 128, "hc_mult": 4,
       "compress_ratios": [128, 128] + [4, 128] * 29 + [4, 0]}


def test_what_each_rank_holds_whole_of_v4_pro():
    linear, half, single = whole_on_each_tp_rank(PRO, 7168, 61, 512)
    # 61 layers of fused wq_a/wkv 7168 x (1536 + 512); 30 ratio-4 layers' indexer wq_b 1536 x 64 x 128
    assert linear == 61 * 7168 * 2048 + 30 * 1536 * 64 * 128 == 1_272_971_264
    # q/kv norms 61 x 2048; 30 ratio-4 compressors 7168 x 2 x 2 x 512 (+ norm 512); 31 ratio-128 ones 7168 x 2 x 512
    # (+ norm 512); the indexer's weights_proj 7168 x 64 and compressor 7168 x 2 x 2 x 128 (+ norm 128)
    assert half == 61 * 2048 + 30 * (7168 * 2048 + 512) + 31 * (7168 * 1024 + 512) \
        + 30 * (7168 * 64 + 7168 * 512 + 128) == 791_965_952
    # ape 30 x 4 x 2 x 512 + 31 x 128 x 512 + 30 x 4 x 2 x 128; hyper-connections 61 x 2 x (24 x 4 x 7168 + 27);
    # the head combiner 4 x 4 x 7168 + 5
    assert single == 30 * 4096 + 31 * 65536 + 30 * 1024 + 61 * 2 * (24 * 4 * 7168 + 27) + 16 * 7168 + 5 \
        == 86_254_819


def test_the_catalog_keeps_them():
    assert lookup_model("deepseek-ai/DeepSeek-V4-Flash").tp_whole_params == (446_693_376, 309_681_792, 35_302_679)
    assert lookup_model("deepseek-ai/DeepSeek-V4-Pro").tp_whole_params[0] == 1_272_971_264


def test_v4_pro_at_tp_8_on_vllm_holds_them_whole():
    arch = lookup_model("deepseek-ai/DeepSeek-V4-Pro")
    split, formula, _ = weights_per_gpu(arch, 8, 1)
    notes: list = []
    held, how = whole_on_each_rank("vllm", arch, 8, 1, arch.weight_format, split, formula, notes)
    linear, half, single = arch.tp_whole_params
    # held whole at FP8 / 16 bits / fp32, where the split counted them / 8 at FP8
    extra = linear + 2 * half + 4 * single - (linear + half + single) / 8
    assert abs(held.point - split.point - extra) < 1 and abs(held.low - split.low - extra) < 1
    assert f"{split.point / GIB:.2f} {held.point / GIB:.2f}" == "98.90 101.63"
    assert how.endswith("+ 2.73 GiB vLLM keeps whole on each TP rank (fused wq_a/wkv, compressors, indexer)")
    assert notes == ["DeepSeek-V4 on vLLM: 2.15e9 parameters (fused wq_a/wkv, compressors, indexer projections, "
                     "hyper-connections) are not split over TP: 2.73 GiB more a GPU"]
    # a PP stage holds its layers' share; other engines and other models are left as counted
    assert whole_on_each_rank("vllm", arch, 8, 2, arch.weight_format, split, formula, [])[0].point \
        == split.point + extra / 2
    assert whole_on_each_rank("sglang", arch, 8, 1, arch.weight_format, split, formula, [])[0] is split
    llama = lookup_model("meta-llama/Llama-3.1-70B-Instruct")
    assert whole_on_each_rank("vllm", llama, 8, 1, llama.weight_format, split, formula, [])[0] is split


def test_an_unreadable_layout_holds_nothing_whole():
    assert whole_on_each_tp_rank({**PRO, "compress_ratios": [4] * 60}, 7168, 61, 512) is None
    assert whole_on_each_tp_rank({**PRO, "q_lora_rank": None}, 7168, 61, 512) is None
    assert whole_on_each_tp_rank({k: v for k, v in PRO.items() if k != "index_n_heads"}, 7168, 61, 512) is None


def test_an_uneven_pp_partition_holds_the_largest_stages_share_whole():
    # VLLM_PP_LAYER_PARTITION=40,21: weights_per_gpu puts 40/61 of the layers on a GPU of the first stage, and that
    # stage's ranks hold 40/61 of the unsplit parameters whole, not 1/2 of them (1.63 GiB at TP 4, not 1.24)
    from ctxlint.physics.model_side import model_side

    arch = lookup_model("deepseek-ai/DeepSeek-V4-Pro")
    linear, half, single = arch.tp_whole_params
    extra = (linear + 2 * half + 4 * single - (linear + half + single) / 4) * 40 / 61
    side = model_side("vllm", arch, 4, 2, 1, "fp8", 0, {"VLLM_PP_LAYER_PARTITION": "40,21"}, None, None)
    split = weights_per_gpu(arch, 4, 2, stage_sizes=(40, 21))[0]
    assert abs(side.weights.point - split.point - extra) < 1 and abs(side.weights.low - split.low - extra) < 1
    assert side.w_formula.endswith(f"+ {extra / GIB:.2f} GiB vLLM keeps whole on each TP rank (fused wq_a/wkv, "
                                   "compressors, indexer)") and f"{extra / GIB:.2f}" == "1.63"
    # an even partition is the even split's 1 / PP
    assert whole_on_each_rank("vllm", arch, 4, 2, arch.weight_format, split, "", [], (31, 31))[0].point \
        == whole_on_each_rank("vllm", arch, 4, 2, arch.weight_format, split, "", [])[0].point


def test_a_checkpoint_format_left_open_moves_each_end_by_its_own_bytes():
    # a recipe whose precision leaves the checkpoint open (stated_format: fmt.alt): weights_per_gpu's band runs from
    # the lightest format's low end to the heaviest's high end, and what vLLM holds whole adds to the low end the
    # least any format gives (a 4-bit checkpoint's fused wq_a/wkv at 4.5 bits, not FP8's 8: 0.41 GiB less at the
    # low end, which CTX203 reads) and to the high end the most (a 16-bit one's at 16: 0.94 GiB more)
    from ctxlint.physics.weights import BF16, FORMATS, linear_bytes
    from ctxlint.records import replace

    arch = lookup_model("deepseek-ai/DeepSeek-V4-Pro")
    linear, half, single = arch.tp_whole_params
    fmt = replace(arch.weight_format, alt=(FORMATS["nvfp4"], BF16), alt_why="the recipe says so")
    split, formula, _ = weights_per_gpu(arch, 8, 1, fmt=fmt)
    held = whole_on_each_rank("vllm", arch, 8, 1, fmt, split, formula, [])[0]

    def more(f):
        b = linear_bytes(f)
        return linear * b + 2 * half + 4 * single - (linear + half + single) * b / 8

    assert abs(held.point - split.point - more(arch.weight_format)) < 1
    assert abs(held.low - split.low - more(FORMATS["nvfp4"])) < 1 and abs(held.high - split.high - more(BF16)) < 1
    assert f"{(more(arch.weight_format) - more(FORMATS['nvfp4'])) / GIB:.2f}" == "0.41"
    assert f"{(more(BF16) - more(arch.weight_format)) / GIB:.2f}" == "0.94"
