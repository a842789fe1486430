"""SGLang's layout of sliding-window layers, release by release (physics/swa_sglang.py): which models
get a separate SWA pool, what --disable-hybrid-swa-memory and --swa-full-tokens-ratio do."""
from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings, strategies as st

from ctxlint.engines.parse import parse_invocation
from ctxlint.physics.capacity import CapacityInput, estimate
from ctxlint.physics.hf_config import arch_from_hf_config
from ctxlint.physics.models import lookup_model
from ctxlint.physics.swa_sglang import FAMILIES, sglang_swa
from helpers import run

GEMMA3, GEMMA2 = lookup_model("google/gemma-3-27b-it"), lookup_model("google/gemma-2-9b-it")
OSS120, SCOUT = lookup_model("openai/gpt-oss-120b"), lookup_model("meta-llama/Llama-4-Scout-17B-16E-Instruct")
MIMO, STEP37 = lookup_model("XiaomiMiMo/MiMo-V2-Flash"), lookup_model("stepfun-ai/Step-3.7-Flash")
GEMMA4 = lookup_model("google/gemma-4-31B-it")


def bpt(arch, version=None, **s):
    r = estimate(CapacityInput(arch, "sglang", "H100-SXM-80GB", settings=s, engine_version=version))
    return r.kv_bytes_per_token_per_gpu


def whole(arch, version, **s):
    return sglang_swa(arch, s, version).whole


def test_gemma3_holds_every_layer_for_the_whole_context_and_the_reviewed_config_does_not_fit():
    # The review's repro: 62 layers x 2 x 16 x 128 x 2 B = 507,904 B a token, not 10 full + 0.8 x 52 window
    # layers (422,707 B): 30,301 tokens (release unknown: the point takes 0.5.10+'s prefill CUDA-graph reserve,
    # 58 x 8 MiB; 31,134 without it), and 32,768 does not fit (it was 37,410, "fits").
    r = estimate(CapacityInput(GEMMA3, "sglang", "H100-SXM-80GB", context_length=32768))
    assert r.kv_bytes_per_token_per_gpu == 62 * 8192
    assert r.pool_tokens == 30_301 and r.fits is False
    said = " ".join(r.assumptions)
    assert "Gemma 3's window layers counted whole" in said and "gemma2_gemma3.py" in said


@pytest.mark.parametrize("version,hybrid", [
    ("0.4.8", False), ("0.4.9", False),
    ("0.4.9.post1", False),                      # not read, between 0.4.9 (none) and 0.4.9.post3: whole
    ("0.4.9.post3", True), ("0.4.10", True), ("0.4.10.post2", True),
    ("0.5.0rc2", False),                         # not read, between 0.4.10.post2 and 0.5.1 which differ
    ("0.5.1", False), ("0.5.6", False), ("0.5.7", False), ("0.5.8", False), ("0.5.23", False), ("0.6.0", False),
    (None, False)])
def test_gemma3_had_a_swa_pool_only_from_0_4_9_post3_until_0_5_1(version, hybrid):
    assert whole(GEMMA3, version) is not hybrid


@pytest.mark.parametrize("version,hybrid", [("0.4.10.post1", True), ("0.4.10.post2", False), ("0.5.23", False)])
def test_gemma2_lost_it_one_release_earlier(version, hybrid):
    assert whole(GEMMA2, version) is not hybrid


def test_the_switch_is_read_for_gpt_oss():
    # the review: --set disable_hybrid_swa_memory=true gave 66,355 B either way
    assert bpt(OSS120, "0.5.23") == pytest.approx(18 * 2048 + 0.8 * 18 * 2048)
    assert bpt(OSS120, "0.5.23", disable_hybrid_swa_memory=True) == 36 * 2048 == 73_728


@pytest.mark.parametrize("version,s,hybrid", [
    ("0.5.1", {}, False), ("0.5.6", {"attention_backend": "fa3"}, False),   # switch forced for gpt-oss
    ("0.5.7", {"attention_backend": "fa3"}, False),                           # no rule names it
    ("0.5.8", {}, False),                  # no backend: trtllm_mha on SM100 GPUs, which forces the switch
    ("0.5.8", {"attention_backend": "fa3"}, True),
    ("0.5.9", {"attention_backend": "fa3", "decode_attention_backend": "trtllm_mha"}, False),
    ("0.5.10", {}, True), ("0.5.23", {"attention_backend": "trtllm_mha"}, True),
    (None, {"attention_backend": "fa3"}, False)])    # some releases store them whole: the smaller pool
def test_gpt_oss_release_by_release(version, s, hybrid):
    assert whole(OSS120, version, **s) is not hybrid


def test_the_families_with_a_swa_pool_in_every_release_that_serves_them_keep_it_when_the_version_is_unknown():
    assert not whole(GEMMA4, None) and not whole(MIMO, None) and not whole(STEP37, None)
    assert whole(GEMMA4, "0.5.10") and not whole(GEMMA4, "0.5.11")
    assert whole(SCOUT, None) and whole(SCOUT, "0.5.7") and not whole(SCOUT, "0.5.8")


def test_hierarchical_cache_and_the_switch_in_0_5_7():
    hicache = {"enable_hierarchical_cache": True}
    assert whole(MIMO, "0.5.13", **hicache) and not whole(MIMO, "0.5.14", **hicache)
    assert whole(STEP37, "0.5.23", **hicache) and whole(MIMO, None, **hicache)
    # 0.5.7 gives MiMo-V2-Flash its pool and reads --disable-hybrid-swa-memory nowhere
    assert not whole(MIMO, "0.5.7", disable_hybrid_swa_memory=True)
    assert whole(MIMO, "0.5.8", disable_hybrid_swa_memory=True)


def test_the_ratio_is_read_and_a_ratio_sglang_refuses_is_an_error_not_a_crash():
    assert bpt(OSS120, "0.5.23", swa_full_tokens_ratio=0.5) == pytest.approx(18 * 2048 + 0.5 * 18 * 2048)
    for bad in ("abc", 0, -1, math.nan, math.inf, True, [1]):
        r = estimate(CapacityInput(OSS120, "sglang", "H100", settings={"swa_full_tokens_ratio": bad},
                                   engine_version="0.5.23"))
        assert r.pool_tokens is None and any("swa-full-tokens-ratio" in e for e in r.errors), bad
    assert estimate(CapacityInput(OSS120, "sglang", "H100", settings={"swa_full_tokens_ratio": 2},
                                  engine_version="0.5.23")).pool_tokens is None   # (0, 1] from 0.5.7
    # 0.4.10 had no range check: a ratio of 2 is a SWA pool twice the full one
    assert bpt(GEMMA3, "0.4.10", swa_full_tokens_ratio=2) == 10 * 8192 + 2 * 52 * 8192


def test_llama4_with_hybrid_kvcache_ratio_before_0_5_8():
    # 12 full layers + ((1 - h) + h x 8192 / context) x 36 chunked layers, 2 x 8 x 128 x 2 B each
    def cost(version, ctx, **s):
        return estimate(CapacityInput(SCOUT, "sglang", "H100", settings=s, engine_version=version,
                                      context_length=ctx)).kv_bytes_per_token_per_gpu
    assert cost("0.5.6", 131072, hybrid_kvcache_ratio=1) == pytest.approx(4096 * (12 + 36 * 8192 / 131072))
    assert cost("0.4.9", 131072, hybrid_kvcache_ratio=None) == pytest.approx(  # the bare flag: const 0.5
        4096 * (12 + 36 * (0.5 + 0.5 * 8192 / 131072)))
    assert cost("0.5.6", 131072) == cost("0.5.6", None, hybrid_kvcache_ratio=1) == 48 * 4096
    assert cost("0.5.8", 131072, hybrid_kvcache_ratio=1) == pytest.approx(4096 * (12 + 0.8 * 36))  # flag gone


def test_the_config_class_decides_not_the_model_type():
    text = {"num_hidden_layers": 4, "num_attention_heads": 8, "num_key_value_heads": 8, "head_dim": 128,
            "model_type": "llama4_text", "attention_chunk_size": 8192, "max_position_embeddings": 262144}
    causal = arch_from_hf_config({"architectures": ["Llama4ForCausalLM"], **text})
    vlm = arch_from_hf_config({"architectures": ["Llama4ForConditionalGeneration"], "model_type": "llama4",
                               "text_config": text})
    assert causal.architectures == ("Llama4ForCausalLM",) and whole(causal, "0.5.23")
    assert not whole(vlm, "0.5.23")
    # Step-3.7's text config says step3p5; its class is Step3p7ForConditionalGeneration (listed from 0.5.13)
    step = arch_from_hf_config({"architectures": ["Step3p7ForConditionalGeneration"], "model_type": "step3p7",
                                "text_config": {"model_type": "step3p5", "num_hidden_layers": 4,
                                                "num_attention_heads": 8, "num_key_value_heads": 8, "head_dim": 128,
                                                "sliding_window": 512, "max_position_embeddings": 262144,
                                                "layer_types": ["full_attention"] + ["sliding_attention"] * 3}})
    assert step.model_type == "step3p5" and whole(step, "0.5.12") and not whole(step, "0.5.13")


def test_every_rule_says_where_sglang_says_it():
    cases = [(GEMMA3, None, {}), (GEMMA2, "0.4.10", {}), (OSS120, "0.5.8", {}), (OSS120, "0.5.23", {}),
             (OSS120, "0.5.23", {"disable_hybrid_swa_memory": True}),
             (MIMO, "0.5.9", {"enable_hierarchical_cache": True}), (SCOUT, "0.5.6", {"hybrid_kvcache_ratio": 1}),
             (lookup_model("CohereForAI/c4ai-command-r7b-12-2024"), None, {})]
    for arch, version, s in cases:
        assert "sgl-project/sglang@" in sglang_swa(arch, s, version, 131072).note, (arch.name, version, s)
    assert {f.name for f in FAMILIES} >= {"Gemma 2", "Gemma 3", "gpt-oss", "Llama 4"}


def test_the_flags_the_layout_reads_parse():
    inv = parse_invocation("sglang", ["--hybrid-kvcache-ratio", "--prefill-attention-backend", "fa3",
                                      "--decode-attention-backend", "trtllm_mha", "--disable-hybrid-swa-memory"])
    values = {k: v.value for k, v in inv.settings.items()}
    assert values["hybrid_kvcache_ratio"] is None and values["disable_hybrid_swa_memory"] is True
    assert values["prefill_attention_backend"] == "fa3" and values["decode_attention_backend"] == "trtllm_mha"


def test_a_deployment_on_a_current_image_is_checked_with_every_gemma3_layer(tmp_path):
    path = tmp_path / "d.yaml"
    path.write_text("""\
apiVersion: apps/v1
kind: Deployment
metadata: {name: gemma}
spec:
  template:
    spec:
      nodeSelector: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}
      containers:
        - name: sglang
          image: lmsysorg/sglang:v0.5.23-cu129
          command: [python3, -m, sglang.launch_server, --model-path, google/gemma-3-27b-it, --context-length, "32768"]
          resources: {limits: {nvidia.com/gpu: 1}}
""")
    out = run(["check", "--isolated", "--select", "CTX201", str(path)]).out
    assert "CTX201" in out and "507,904 B per token" in out


@settings(max_examples=200, deadline=None)
@given(arch=st.sampled_from([GEMMA3, GEMMA2, OSS120, SCOUT, MIMO, STEP37, GEMMA4]),
       version=st.sampled_from([None, "0.4.9", "0.4.9.post2", "0.4.10", "0.5.0rc1", "0.5.7", "0.5.8", "0.5.23",
                                "latest", "", "v0.5.9"]),
       value=st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=True), st.text(max_size=4),
                       st.lists(st.integers(), max_size=2)),
       key=st.sampled_from(["swa_full_tokens_ratio", "disable_hybrid_swa_memory", "hybrid_kvcache_ratio",
                            "enable_hierarchical_cache", "attention_backend", "decode_attention_backend"]),
       ctx=st.one_of(st.none(), st.integers(-5, 2**40)))
def test_odd_settings_never_raise(arch, version, value, key, ctx):
    r = estimate(CapacityInput(arch, "sglang", "H100", settings={key: value}, engine_version=version,
                               context_length=ctx))
    assert isinstance(r.errors, tuple) and not any("internal error" in e for e in r.errors)
    json.dumps(r.to_dict(), default=str)


def test_model_side_keeps_the_default_ratio_without_importing_the_module():
    # model_side binds swa_sglang only for an SGLang model with window layers (one-file vLLM runs never import it)
    from ctxlint.physics import model_side, swa_sglang
    assert model_side.DEFAULT_RATIO == swa_sglang.DEFAULT_RATIO
