"""SGLang 0.5.21-0.5.23's changes to the automatic mem_fraction_static, and the VLM reduction every release from 0.5.3
applies (reserve_sglang.RUNNING_CAP, dp_attention_width; vlm_sglang.py), each figure worked from the wheels
(sglang-0.5.X/sglang/srt/arg_groups/memory_hook.py)."""
import json

from helpers import run

from ctxlint.physics.capacity import CapacityInput, estimate
from ctxlint.physics.mamba_sglang import _fixed
from ctxlint.physics.mem_sglang import auto_fraction, terms
from ctxlint.physics.models import lookup_model
from ctxlint.physics.served import attention_replicas
from ctxlint.physics.terms import MIB
from ctxlint.physics.vlm_sglang import mm_reserve, vision_tower
from ctxlint.records import replace

L4_MIB, H100_MIB, H200_MIB = 23034, 81559, 143771  # nvidia-smi's totals
QWEN25_VL_TOWER = 0.6766  # Qwen/Qwen2.5-VL-7B-Instruct's vision tower and merger, billions (the catalog's count)


def test_default_decode_graph_batch_is_capped_at_max_running_requests_from_0_5_22() -> None:
    # sglang-0.5.22 wheel: memory_hook.py:182-188 (0.5.21 has no cap). One L4, 8 requests at a time: 512 + 4096 x 1.5
    # + 8 x 2 + 128 + prefill graphs 400 = 7200 MiB, not 7280 (48 x 2)
    few = {"max_running_requests": 8}
    assert auto_fraction(L4_MIB, 1, 1, few, "0.5.23") == (
        0.687, 0.705, "round((23034 - reserved 7200) / 23034, 3); reserved = 512 + max(4096, 2048) x 1.5 + 8 x 2 "
                      "(decode graphs capped at --max-running-requests) + 1 x 1 / 8 x 1024 + prefill graphs 400 MiB")
    assert auto_fraction(L4_MIB, 1, 1, few, "0.5.22")[:2] == (0.687, 0.705)
    assert auto_fraction(L4_MIB, 1, 1, few, "0.5.21")[:2] == (0.684, 0.701)
    # a batch as set is kept, and a running limit above the default caps nothing
    assert auto_fraction(L4_MIB, 1, 1, {**few, "cuda_graph_max_bs_decode": 48}, "0.5.23")[:2] == (0.684, 0.701)
    assert auto_fraction(L4_MIB, 1, 1, {"max_running_requests": 64}, "0.5.23")[:2] == (0.684, 0.701)
    # a release not known: the least of the eras (0.5.21's) to the most
    assert auto_fraction(L4_MIB, 1, 1, few, None)[0] == 0.684
    # the DP-attention padding reads the capped batch too: 16 x 8 x 3, not 512 x 8 x 4.5
    dp = {"attn_dp_size": 8, "max_running_requests": 16}
    assert "+ 16 x 2 (decode graphs capped at --max-running-requests) + 8 x 1 / 8 x 1024 + DP attention 16 x 8 x 3 " \
        in auto_fraction(H200_MIB, 8, 1, dp, "0.5.23", mla=True)[2]


def test_attn_dp_size_is_dp_attention_from_0_5_22() -> None:
    # `--attn-dp-size 8` alone (sglang-0.5.22 wheel: arg_groups/fields/parallel.py:81-90, runtime_context.py
    # attn_dp_enabled_of) is what `--dp-size 8 --enable-dp-attention` resolves to (parallel_hook.py:39-60)
    old = auto_fraction(H200_MIB, 8, 1, {"enable_dp_attention": True, "dp_size": 8}, "0.5.23", mla=True)
    assert auto_fraction(H200_MIB, 8, 1, {"attn_dp_size": 8}, "0.5.23", mla=True) == old == (
        0.758, 0.769, "round((143771 - reserved 34816) / 143771, 3); reserved = 512 + max(8192, 2048) x 1.5 + 512 x 2 "
                      "+ 8 x 1 / 8 x 1024 + DP attention 512 x 8 x 4.5 + prefill graphs 1536 MiB")
    assert auto_fraction(H200_MIB, 8, 1, {"attn_dp_size": 1}, "0.5.23", mla=True)[:2] == (0.886, 0.897)
    v3 = lookup_model("deepseek-ai/DeepSeek-V3")
    assert attention_replicas("sglang", v3, {"attn_dp_size": 8}, 8) == (8, "SGLang DP attention: attention TP 8 / "
                                                                           "attn_dp_size 8")
    assert attention_replicas("sglang", v3, {"dp_size": 8}, 8) == (1, "")  # replicas without DP attention
    # a Mamba state pool per DP-attention group
    assert _fixed({"attn_dp_size": 4, "max_running_requests": 64}) == (16, "--max-running-requests 64 // DP 4")


def _fraction(settings, version, vision=QWEN25_VL_TOWER, mla=False, gpu=H100_MIB):
    return terms(gpu * MIB, gpu, 1, 1, settings, version, "H100-SXM-80GB", mla, vision)[1:]


def test_a_vision_model_keeps_less_for_kv() -> None:
    # adjust_mem_fraction_for_vlm (sglang-0.5.3 wheel: server_args.py:680-683, 3105-3140; 0.5.23: memory_hook.py:
    # 330-337, 417-462): 0.83 x 0.95 x (1 - 0.1 x (0.6766e9 / (24 x 12 x 1024^2) - 1)) = 0.6906; the top leaves
    # it out (whether SGLang serves the model as multimodal is not in the catalog)
    point, high, how = _fraction({}, "0.5.23")
    assert (point, high) == (0.6906, 0.835)
    assert how.startswith("0.83 x 0.832 for the vision tower (SGLang's VLM reduction 0.95 x clamp(1 - 0.1 x (2.24 - "
                          "1), 0.8, 1.05), 2.24 = its 0.6766B parameters / ViT-L/14's 0.302B; the band's top leaves "
                          "it out: SGLang reduces only a model it serves as multimodal); round((81559 - reserved")
    assert _fraction({}, "0.5.23", vision=None)[:2] == (0.83, 0.835)
    # a small tower: the clamp's top, 0.95 x 1.05; a huge one: its floor, 0.95 x 0.8
    assert _fraction({}, "0.5.23", vision=0.1)[0] == 0.8279
    assert _fraction({}, "0.5.23", vision=6.0)[0] == 0.6308
    # not under --language-only / --language-model-only, nor a decode role from 0.5.21 (memory_hook.py:276-281);
    # 0.5.3 reduced every role
    assert _fraction({"language_only": True}, "0.5.23")[0] == 0.83
    assert _fraction({"language_model_only": "true"}, "0.5.23")[0] == 0.83
    assert _fraction({"disaggregation_mode": "decode"}, "0.5.21")[0] == 0.874
    assert _fraction({"disaggregation_mode": "decode"}, "0.5.20")[0] == 0.7273
    # a fraction as set is SGLang's, untouched
    assert _fraction({"mem_fraction_static": 0.85}, "0.5.23") == (0.85, 0.85, "mem_fraction_static as set")


def test_post_capture_kv_sizing_raises_the_band_top() -> None:
    # SGLANG_ENABLE_POST_CAPTURE_KV_SIZING (off by default, sglang-0.5.21..0.5.23 environ.py): the fraction keeps
    # 1536 + 128 MiB, no floor (memory_hook.py:291-295), and the pool is sized after capture from what is then
    # free (kv_pool_runtime.py:59-150): the top if the graphs took nothing; the point stays the reserve's
    on = {"SGLANG_ENABLE_POST_CAPTURE_KV_SIZING": "1"}
    point, high, how = _fraction(on, "0.5.23", vision=None)
    assert (point, high) == (0.83, 0.98)
    assert how.endswith("prefill graphs 464 MiB; band top 0.98: SGLANG_ENABLE_POST_CAPTURE_KV_SIZING sizes the pool "
                        "after the CUDA graphs are captured, round((81559 - 1664) / 81559, 3) less what the graphs "
                        "take, which is not known before they run")
    assert _fraction({"SGLANG_ENABLE_POST_CAPTURE_KV_SIZING": "false"}, "0.5.23", vision=None)[:2] == (0.83, 0.835)
    # not with an MLA backend, eager graphs, chunked prefill off, or a release before 0.5.21 (not read there)
    assert _fraction(on, "0.5.23", vision=None, mla=True)[1] < 0.98
    assert _fraction({**on, "disable_cuda_graph": True}, "0.5.23", vision=None)[1] < 0.98
    assert _fraction({**on, "chunked_prefill_size": -1}, "0.5.23", vision=None)[1] < 0.98
    assert _fraction(on, "0.5.20", vision=None)[1] < 0.98
    assert _fraction(on, None, vision=None)[1] == 0.98


def test_which_models_sglang_serves_as_multimodal() -> None:
    # Gemma-3, Llama-4 and Step3-VL are text unless --enable-multimodal (mm_disabled_models, sglang-0.5.3 wheel:
    # configs/model_config.py:123-134; 0.5.23: 690-705); a model with no tower in the catalog is not reduced
    qwen, gemma = lookup_model("Qwen/Qwen2.5-VL-7B-Instruct"), lookup_model("google/gemma-3-27b-it")
    assert vision_tower(qwen, {}) == QWEN25_VL_TOWER
    assert vision_tower(gemma, {}) is None
    assert vision_tower(gemma, {"enable_multimodal": True}) == 0.4117
    assert vision_tower(lookup_model("meta-llama/Llama-3.1-8B-Instruct"), {"enable_multimodal": True}) is None
    # a user's config.json names the class: Gemma3ForConditionalGeneration is the text-by-default one
    assert vision_tower(replace(qwen, architectures=("Gemma3ForConditionalGeneration",)), {}) is None
    assert vision_tower(replace(gemma, architectures=("Gemma4ForConditionalGeneration",)), {}) == 0.4117
    # end to end: Qwen2.5-VL-7B on one H100 at 0.5.23 keeps 0.6906 of it, the band's top 0.835, and 100 MiB of
    # embedding cache off the budget (1,829 tokens of 57,344 B)
    r = estimate(CapacityInput(qwen, "sglang", "H100-SXM-80GB", engine_version="0.5.23"))
    assert (r.pool_tokens, r.pool_high) == (728_008, 945_921)
    assert any(a.startswith("mem_fraction_static 0.6906: 0.83 x 0.832 for the vision tower") for a in r.assumptions)


def test_a_multimodal_model_leaves_its_caches_out_of_the_kv_budget() -> None:
    # mm_runtime_reservation_gb (sglang-0.5.21 wheel: mem_cache/kv_cache_configurator.py:154-171, 2204; 0.5.23:
    # 202-219, 3034-3038): SGLANG_VLM_CACHE_SIZE_MB (100), + SGLANG_MM_FEATURE_CACHE_MB (1024) on a GPU transport,
    # whatever the fraction; 0.5.20 and earlier not read for it
    assert mm_reserve(QWEN25_VL_TOWER, {}, "0.5.23") == (100 * MIB, "multimodal embedding cache 100 MiB")
    assert mm_reserve(QWEN25_VL_TOWER, {"mm_feature_transport": "cuda_ipc", "SGLANG_VLM_CACHE_SIZE_MB": "200"},
                      None) == (1224 * MIB, "multimodal embedding cache 200 MiB + feature transport pool 1024 MiB")
    assert mm_reserve(QWEN25_VL_TOWER, {"SGLANG_VLM_CACHE_SIZE_MB": "0"}, "0.5.23") is None
    assert mm_reserve(QWEN25_VL_TOWER, {"SGLANG_VLM_CACHE_SIZE_MB": "lots"}, "0.5.23")[0] == 100 * MIB
    assert mm_reserve(QWEN25_VL_TOWER, {"language_only": True}, "0.5.23") is None
    assert mm_reserve(QWEN25_VL_TOWER, {}, "0.5.20") is None
    assert mm_reserve(None, {}, "0.5.23") is None
    # a fraction as set keeps it too: 78.80 GiB x 0.85 - 15.45 GiB - 100 MiB
    qwen = lookup_model("Qwen/Qwen2.5-VL-7B-Instruct")
    r = estimate(CapacityInput(qwen, "sglang", "H100-SXM-80GB", engine_version="0.5.23",
                               settings={"mem_fraction_static": 0.85}))
    assert [s for s in r.steps if s[0] == "KV budget"][0][1] == ("78.80 GiB x 0.85 - weights 15.45 GiB - multimodal "
                                                                 "embedding cache 100 MiB")


DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: d
spec:
  selector: {{matchLabels: {{app: x}}}}
  template:
    metadata: {{labels: {{app: x}}}}
    spec:
      containers:
        - name: sglang
          image: lmsysorg/sglang:{tag}
          command: ["python3", "-m", "sglang.launch_server"]
          args: ["--model-path", "{model}", "--context-length=16384"{extra}]
          env: [{{name: SGLANG_ENABLE_POST_CAPTURE_KV_SIZING, value: "{post}"}}]
          resources:
            limits: {{nvidia.com/gpu: 1}}
      nodeSelector: {{nvidia.com/gpu.product: {gpu}}}
"""


def _deploy(tmp_path, model, gpu, extra="", post="0", *command, tag="v0.5.23"):
    f = tmp_path / "d.yaml"
    f.write_text(DEPLOYMENT.format(model=model, gpu=gpu, extra=extra, post=post, tag=tag))
    return run([*command, "--isolated", str(f)]), str(f)


def test_a_deployment_reads_the_vlm_switches_and_the_post_capture_env(tmp_path) -> None:
    def pool(extra=""):
        result, _ = _deploy(tmp_path, "Qwen/Qwen2.5-VL-7B-Instruct", "NVIDIA-L40S", extra, "0", "audit", "--format",
                            "json")
        return json.loads(result.out)["deployments"][0]["prefill_pool"]["tokens"]

    # the VLM reduction (0.843 x 0.832 of the L40S) and the 100 MiB embedding cache; 407,232 without either
    assert pool() == 288_505
    assert pool(', "--language-only"') == pool(', "--language-model-only"') == 407_232
    assert pool(', "--mm-feature-transport", "cuda_vmm"') == 269_781  # 1 GiB more (18,724 tokens of 57,344 B)
    # Llama-3.1-8B on one L4 keeps no pool under the reserve (test_sglang_releases), but sized after capture it may
    # hold 16,384: the error becomes a warning inside the band
    def check(post):
        result, path = _deploy(tmp_path, "meta-llama/Llama-3.1-8B-Instruct", "NVIDIA-L4", "", post, "check",
                               "--select", "CTX201,CTX210")
        return result.out.replace(path, "F")

    assert check("1") == (
        "F:14:88: CTX210 [warning] 16,384 is inside the unified KV pool's estimated band 0-42,678 (point 0): whether "
        "its context length fits depends on terms the estimate knows only within a range (derived for "
        "meta-llama/Llama-3.1-8B on 1x L4, sglang: KV budget per GPU -0.22 GiB (21.55 GiB x 0.684 - weights 14.96 "
        "GiB) / 131,072 B per token per GPU = 0 tokens). Confirm with the engine's log line \"max_total_num_tokens=N\" "
        "and state it (the ctxlint.io/available-kv-gib or ctxlint.io/kv-pool-tokens annotations) for an exact "
        "verdict; at the band's low end not one KV block fits and the engine would not start (within-estimate-band)\n")
    assert check("0").startswith("F:14:88: CTX201 [error] 16,384 > 2,415: ")


def test_attn_dp_size_is_a_flag_from_0_5_22(tmp_path) -> None:
    # sglang-0.5.22 wheel: sglang/srt/arg_groups/fields/parallel.py:81-90; 0.5.21 has the field derived, no flag
    def check(tag):
        result, path = _deploy(tmp_path, "deepseek-ai/DeepSeek-V3", "NVIDIA-H200", ', "--attn-dp-size", "8"', "0",
                               "check", "--select", "CTX301", tag=tag)
        return result.out.replace(path, "F")

    assert check("v0.5.22") == check("v0.5.23") == ""
    assert check("v0.5.21") == ("F:14:88: CTX301 [error] sglang 0.5.21 would refuse to start: unrecognized "
                                "arguments: --attn-dp-size (a spelling from 0.5.22 on: earlier releases have no such "
                                "flag) (engine-rejects-value)\n")
