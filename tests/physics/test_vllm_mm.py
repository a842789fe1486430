"""vLLM V1's multimodal profile run: the vision encoder's peak in the activation term (physics/vllm_mm.py)."""
from __future__ import annotations

import pytest

from ctxlint.physics.capacity import CapacityInput, compute
from ctxlint.physics.hf_config import arch_from_hf_config
from ctxlint.physics.models import lookup_model

GIB = 1 << 30


def _peak(model: str, version: str | None = "0.9.0.1", tp: int = 1, accelerator: str = "L4", **settings):
    r = compute(CapacityInput(arch=lookup_model(model), engine="vllm", accelerator=accelerator, accelerator_count=tp,
                              tp=tp, engine_version=version, settings=settings, context_length=2048))
    return next(t for t in r.terms if t["label"] == "activation peak"), r


def _lm_only(model: str, version: str | None = "0.9.0.1", tp: int = 1, accelerator: str = "L4"):
    """The language model's run alone: the same model without its tower's dimensions."""
    from dataclasses import replace

    arch = replace(lookup_model(model), vision_dims=None)
    r = compute(CapacityInput(arch=arch, engine="vllm", accelerator=accelerator, accelerator_count=tp, tp=tp,
                              engine_version=version, settings={}, context_length=2048))
    return next(t for t in r.terms if t["label"] == "activation peak")


QWEN = "Qwen/Qwen2.5-VL-7B-Instruct"
# one 16,384-token image (max_pixels 12,845,056 / 28^2) of 65,536 patches through the 1280-wide, 3420-MLP tower:
# residual and norm 2 x 1280, gate/up and activation 3 x 3420, pixel values 3 x 2 x 14^2, all in bf16
QWEN_RUN = 65_536 * 2 * (2 * 1280 + 3 * 3420 + 3 * 2 * 14 * 14)


def test_the_qwen25_vl_profile_runs_its_encoder_on_one_16384_token_image():
    peak, _ = _peak(QWEN, max_num_batched_tokens=2048)
    assert peak["point"] == pytest.approx(QWEN_RUN)  # 1.71 GiB, above the language model's 0.61 + 0.11 cached
    assert "1 x an image of 16384 tokens x 4 patches" in peak["how"] and "65536 patches" in peak["how"]
    assert peak["low"] <= peak["point"] <= peak["high"]


def test_the_l4_estimate_is_no_longer_66_percent_above_the_logged_pool():
    # tsailiming/openshift-ai-bootstrap's vLLM 0.9.0.1 log: 1.81 GiB of KV; +66% before (3.00 GiB)
    _, r = _peak(QWEN, max_model_len=2048)
    assert r.kv_budget_bytes_per_gpu / GIB == pytest.approx(1.90, abs=0.01)
    assert r.kv_budget_low / GIB < 1.81


def test_the_tower_splits_over_tp_unless_its_data_parallel_mode_keeps_whole_weights():
    weights, _ = _peak(QWEN, version="0.11.0", tp=2)
    data, _ = _peak(QWEN, version="0.11.0", tp=2, mm_encoder_tp_mode="data")
    mapped, _ = _peak(QWEN, version="0.11.0", tp=2, enable_multimodal_encoder_data_parallel=True)
    assert weights["point"] == pytest.approx(65_536 * 2 * (2 * 1280 + 3 * 3420 / 2 + 1176))
    assert data["point"] == pytest.approx(QWEN_RUN) == mapped["point"]


def test_the_data_parallel_switches_reach_only_the_towers_that_read_them():
    # 0.10.1.1's --enable-multimodal-encoder-data-parallel is read by mllama4.py and step3_vl.py only: Qwen's
    # tower stays split; Gemma 3 has no supports_encoder_tp_data, so 0.11+ falls back to weights
    split, _ = _peak(QWEN, version="0.10.1.1", tp=2)
    old, _ = _peak(QWEN, version="0.10.1.1", tp=2, enable_multimodal_encoder_data_parallel=True)
    assert old["point"] == split["point"] < QWEN_RUN
    # 0.10.2 has the mode (and maps the old flag onto it) for Qwen2.5-VL, not yet for Qwen2-VL
    assert _peak(QWEN, version="0.10.2", tp=2, enable_multimodal_encoder_data_parallel=True)[0]["point"] == (
        pytest.approx(QWEN_RUN))
    q2 = dict(version="0.10.2", tp=2, accelerator="H100", max_num_batched_tokens=2048)
    assert _peak("Qwen/Qwen2-VL-7B-Instruct", mm_encoder_tp_mode="data", **q2)[0]["point"] == pytest.approx(
        _peak("Qwen/Qwen2-VL-7B-Instruct", **q2)[0]["point"])
    gemma = dict(version="0.19.0", tp=2, accelerator="H100", max_num_batched_tokens=8192)
    assert _peak("google/gemma-3-27b-it", mm_encoder_tp_mode="data", **gemma)[0]["point"] == pytest.approx(
        _peak("google/gemma-3-27b-it", **gemma)[0]["point"])


@pytest.mark.parametrize("settings", [{"language_model_only": True}, {"limit_mm_per_prompt": {"image": 0, "video": 0}},
                                      {"limit_mm_per_prompt": "image=0,video=0"}])
def test_no_modality_left_no_encoder_run(settings):
    peak, _ = _peak(QWEN, version="0.19.0", **settings)
    assert peak["point"] == _lm_only(QWEN, version="0.19.0")["point"]
    assert "vision encoder" not in peak["how"]


def test_skip_mm_profiling_skips_it_from_0_10_1_and_0_9_has_no_such_flag():
    assert "vision encoder" not in _peak(QWEN, version="0.11.0", skip_mm_profiling=True)[0]["how"]
    assert _peak(QWEN, version="0.9.0.1", skip_mm_profiling=True)[0]["point"] == pytest.approx(QWEN_RUN)


def test_images_off_leave_video_profiled_at_one_frame_pair_under_a_short_context():
    # max_model_len 2,048 holds no second pair: the video is one 16,384-token pair, the image's size
    peak, _ = _peak(QWEN, version="0.11.0", limit_mm_per_prompt={"image": 0})
    assert "1 x a video of 1 frame pairs, 16384 tokens" in peak["how"]
    assert peak["point"] == pytest.approx(QWEN_RUN)


def test_a_smaller_max_pixels_profiles_a_smaller_image():
    # 0.9.0.1 resizes a huge square under max_pixels 1,003,520: 980 x 980 pixels (35^2 = 1,225 tokens), and rounds
    # 2,048 / 1,225 up to two of them, 9,800 patches, below the language model's; 0.19.0 factors 1,280 tokens
    small, _ = _peak(QWEN, mm_processor_kwargs={"max_pixels": 1280 * 28 * 28}, max_num_batched_tokens=2048)
    assert "2 x an image of 1225 tokens x 4 patches (max_pixels 1,003,520) = 9800 patches" in small["how"]
    assert small["point"] < QWEN_RUN / 2
    late, _ = _peak(QWEN, version="0.19.0", mm_processor_kwargs={"max_pixels": 1280 * 28 * 28},
                    max_num_batched_tokens=2560)
    assert "2 x an image of 1280 tokens" in late["how"]


def test_gemma3_profiles_as_many_256_token_images_as_the_budget_holds():
    # 8,192 tokens / 256 = 32 images of (896 / 14)^2 = 4,096 patches each (gemma3_mm.py, no pan-and-scan)
    peak, _ = _peak("google/gemma-3-27b-it", version="0.19.0", accelerator="H100", max_num_batched_tokens=8192)
    assert "32 x an image of 256 tokens, 4096 patches = 131072 patches" in peak["how"]
    assert peak["point"] == pytest.approx(131_072 * 2 * (2 * 1152 + 3 * 4304 + 3 * 14 * 14))
    # 0.11.0 widens each cached output to the budget's rows (64 x 16,384 x 5,376 in bf16, 10.5 GiB, at a budget of
    # 16,384): the band's top holds it, 0.19.0's does not
    late, _ = _peak("google/gemma-3-27b-it", version="0.19.0", accelerator="H100", max_num_batched_tokens=16384)
    wide, _ = _peak("google/gemma-3-27b-it", version="0.11.0", accelerator="H100", max_num_batched_tokens=16384)
    assert wide["high"] > 64 * 16384 * 5376 * 2 > late["high"]
    # 0.12.0 not read (kept); the 0.13.0 wheel no longer widens them: its top is 64 x (16,384 - 256) rows lower
    kept, _ = _peak("google/gemma-3-27b-it", version="0.12.0", accelerator="H100", max_num_batched_tokens=16384)
    mid, _ = _peak("google/gemma-3-27b-it", version="0.13.0", accelerator="H100", max_num_batched_tokens=16384)
    assert kept["high"] - mid["high"] == pytest.approx(64 * (16384 - 256) * 5376 * 2)


def test_a_tower_not_modelled_keeps_the_point_and_widens_the_band():
    # Gemma 4's items (max_soft_tokens x pooling_kernel_size^2 patches, video, audio) are not modelled
    # (on an A100 the profile batch is 2,048 tokens x 256: a 65,536-patch item's run tops the language model's)
    peak, _ = _peak("google/gemma-4-31B-it", version="0.19.0", accelerator="A100-SXM4-80GB")
    lm = _lm_only("google/gemma-4-31B-it", version="0.19.0", accelerator="A100-SXM4-80GB")
    assert peak["point"] == lm["point"] and peak["high"] > lm["high"]


def test_a_text_model_is_untouched():
    peak, _ = _peak("Qwen/Qwen2.5-7B-Instruct")
    assert "vision" not in peak["how"]


def test_the_tower_dimensions_are_read_from_config_json():
    cfg = {"model_type": "qwen2_5_vl", "architectures": ["Qwen2_5_VLForConditionalGeneration"], "hidden_size": 3584,
           "num_hidden_layers": 28, "num_attention_heads": 28, "num_key_value_heads": 4, "intermediate_size": 18944,
           "vocab_size": 152064, "vision_config": {"depth": 32, "hidden_size": 1280, "intermediate_size": 3420,
                                                   "num_heads": 16, "out_hidden_size": 3584, "patch_size": 14,
                                                   "spatial_merge_size": 2, "temporal_patch_size": 2}}
    assert arch_from_hf_config(cfg).vision_dims == ("qwen2_5_vl", 1280, 3420, 14, 2, 2, 0, 0)
    assert arch_from_hf_config({k: v for k, v in cfg.items() if k != "vision_config"}).vision_dims is None
    bad = {**cfg, "vision_config": {"hidden_size": "wide", "patch_size": True}}
    assert arch_from_hf_config(bad).vision_dims is None  # no width: no tower dimensions, no crash


@pytest.mark.parametrize("limits", ["{not json", "image=x", 7, ["image"], {"image": None}, {"image": {"count": "x"}}])
def test_odd_limit_values_do_not_crash(limits):
    peak, _ = _peak(QWEN, version="0.19.0", limit_mm_per_prompt=limits)
    assert peak["point"] > 0


def test_processor_kwargs_as_json_text_and_odd_tower_overrides_do_not_crash():
    small, _ = _peak(QWEN, mm_processor_kwargs='{"max_pixels": 1003520}', max_num_batched_tokens=2048)
    assert "an image of 1225 tokens" in small["how"]
    _peak("google/gemma-3-27b-it", version="0.19.0", accelerator="H100", mm_processor_kwargs="not json")
    from dataclasses import replace

    for dims in (("qwen2_5_vl", 1280), ("qwen2_5_vl", "wide", 3420, 14, 2, 2, 0, 0), 5):
        arch = replace(lookup_model(QWEN), vision_dims=dims)
        compute(CapacityInput(arch=arch, engine="vllm", accelerator="L4", accelerator_count=1, tp=1,
                              engine_version="0.9.0.1", settings={}, context_length=2048))


def _long(version: str, context: int, **settings):
    r = compute(CapacityInput(arch=lookup_model(QWEN), engine="vllm", accelerator="A100-SXM4-80GB",
                              accelerator_count=1, tp=1, engine_version=version, context_length=context,
                              settings=settings))
    return next(t for t in r.terms if t["label"] == "activation peak")


@pytest.mark.parametrize("version,context,pairs", [
    # 0.9.0.1 / 0.10.1.1: frames from max_model_len less one image, at most 16; 0.11.0 / 0.19.0: from
    # max_model_len alone, at most 14 (qwen2_vl.py get_num_frames_with_most_features); one item of each modality
    # whatever --limit-mm-per-prompt says (registry.py), so the default limits profile the video too
    ("0.9.0.1", 32768, 1), ("0.9.0.1", 65536, 3), ("0.10.1.1", 128000, 6), ("0.10.1.1", 400000, 8),
    ("0.10.2", 65536, 4), ("0.10.2", 400000, 8),  # 0.10.2: max_model_len alone, at most 16 frames
    ("0.11.0", 32768, 2), ("0.11.0", 65536, 4), ("0.19.0", 128000, 7), ("0.19.0", 400000, 7)])
def test_a_long_context_profiles_qwens_video_of_many_frame_pairs(version, context, pairs):
    peak = _long(version, context)
    tokens = pairs * 16_384
    kind = "an image of 16384 tokens" if pairs == 1 else f"a video of {pairs} frame pairs, {tokens} tokens"
    assert f"1 x {kind}" in peak["how"]
    assert peak["point"] >= tokens * 4 * 2 * (2 * 1280 + 3 * 3420 + 1176) * 0.999
    # a lowered video limit changes nothing of its size; the video off leaves the image
    assert _long(version, context, limit_mm_per_prompt={"image": 1, "video": 1})["point"] == peak["point"]
    assert "an image of 16384" in _long(version, context, limit_mm_per_prompt={"video": 0})["how"]


def test_a_video_sized_by_its_options_is_not_modelled():
    peak = _long("0.19.0", 65536, limit_mm_per_prompt={"video": {"count": 1, "num_frames": 8}})
    assert "not modelled for this tower" in peak["how"]


@pytest.mark.parametrize("model", ["Qwen/Qwen2-VL-2B-Instruct", "Qwen/Qwen2-VL-7B-Instruct"])
def test_a_tower_whose_parameters_are_not_counted_is_still_profiled(model):
    # the catalog's Qwen2-VL configs have no tower depth (vision_params_b 0); vLLM still runs the tower on the
    # 16,384-token image
    peak, _ = _peak(model, version="0.11.0", tp=4, accelerator="H100", max_num_batched_tokens=2048)
    assert "1 x an image of 16384 tokens x 4 patches" in peak["how"]


def test_qwen2_vl_tower_width_is_embed_dim_not_the_mergers_output():
    # Qwen2-VL's vision_config.hidden_size (3584 on the 7B) is what the merger projects to; the ViT blocks are
    # embed_dim (1280) wide with an MLP of embed_dim x mlp_ratio (5120)
    cfg = {"model_type": "qwen2_vl", "architectures": ["Qwen2VLForConditionalGeneration"], "hidden_size": 3584,
           "num_hidden_layers": 28, "num_attention_heads": 28, "num_key_value_heads": 4, "intermediate_size": 18944,
           "vocab_size": 152064, "vision_config": {"depth": 32, "embed_dim": 1280, "hidden_size": 3584,
                                                   "mlp_ratio": 4, "num_heads": 16, "patch_size": 14,
                                                   "spatial_merge_size": 2, "temporal_patch_size": 2}}
    assert arch_from_hf_config(cfg).vision_dims == ("qwen2_vl", 1280, 5120, 14, 2, 2, 0, 0)
    # a config that keeps only the merger's width: the tower's defaults, never 1536 x 4
    bare = {**cfg, "hidden_size": 1536, "vision_config": {"hidden_size": 1536, "model_type": "qwen2_vl"}}
    assert arch_from_hf_config(bare).vision_dims[1:3] == (1280, 5120)
    assert lookup_model("Qwen/Qwen2-VL-2B-Instruct").vision_dims[1:3] == (1280, 5120)
    # and its weights: 32 blocks of 1,280 wide (4 x 1280^2 + 2 x 1280 x 5120) and the patch embedding, 0.63B,
    # not 4.93B as 3,584-wide blocks
    assert arch_from_hf_config(cfg).vision_params_b == pytest.approx(0.6299, abs=1e-3)
