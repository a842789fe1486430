"""An unknown vLLM release is folded only over the releases that can load the model (vllm_archs.py):
gpt-oss on `vllm/vllm-openai:latest` was priced under 0.8.5's rules (no hybrid KV cache manager: 18
window layers holding the whole context), halving its pool (seans3/k8s-ai gpt-oss-120b, sweep 25)."""
from __future__ import annotations

import glob
import textwrap
from pathlib import Path

import pytest
import yaml

from ctxlint.physics.capacity import CapacityInput, compute, spanned_releases
from ctxlint.physics.hf_config import arch_from_hf_config
from ctxlint.physics.models import lookup_model, with_overrides
from ctxlint.physics.releases import VLLM_RELEASES, releases_for
from ctxlint.physics.vllm_archs import FIRST_RELEASE, MODEL_TYPES, first_release
from ctxlint.versions import parse_version
from helpers import run

OSS20 = lookup_model("openai/gpt-oss-20b")
LLAMA = lookup_model("meta-llama/Llama-3.1-8B-Instruct")
CATALOG = Path(__file__).resolve().parents[2] / "tools" / "catalog"


def _l4(arch, version=None):
    return compute(CapacityInput(arch=arch, engine="vllm", accelerator="nvidia-l4", context_length=131072,
                                 engine_version=version))


def test_gpt_oss_of_unknown_release_is_not_priced_under_releases_that_cannot_load_it():
    # 0.19.0 too: its admission check holds one request of a model with window layers to half the blocks here
    releases = ("0.10.1", "0.12.0", "0.17.0", "0.19.0", "0.20.0", "0.28.0", "0.34.0")
    assert spanned_releases(CapacityInput(arch=OSS20, engine="vllm")) == releases
    folded = _l4(OSS20)
    each = [_l4(OSS20, release) for release in releases]
    assert folded.pool_tokens == min(r.pool_tokens for r in each) == 153_408  # 0.12.0's sampler, not 0.8.5's layout
    assert folded.pool_low == min(r.pool_low for r in each) and folded.pool_high == max(r.pool_high for r in each)
    assert _l4(OSS20, "0.8.5").pool_tokens < 100_000  # what the fold took before: every window layer whole
    # the longest request is 0.19's, (num_blocks - 1) // 2 groups x 16; 0.17's and 0.20's hold 131,072 (the band)
    assert folded.max_context_at_concurrency_1 == _l4(OSS20, "0.19.0").max_context_at_concurrency_1 == 108_112
    assert folded.max_context_high >= 131072 and folded.admission_starts is None
    why = "vLLM releases before 0.10.1 cannot load GptOssForCausalLM (0.8.5, 0.9.0 left out)"
    assert folded.releases_left_out == why and why in folded.rule
    assert "vllm-project/vllm@v0.10.1:vllm/model_executor/models/registry.py" in folded.assumptions[0]


def test_the_reproducer_says_which_releases_were_left_out_and_why(tmp_path):
    path = tmp_path / "gptoss-latest.yaml"
    path.write_text(textwrap.dedent("""\
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: gptoss-latest}
        spec:
          replicas: 1
          template:
            spec:
              nodeSelector:
                cloud.google.com/gke-accelerator: nvidia-l4
              containers:
              - name: vllm
                image: vllm/vllm-openai:latest
                args: ["--model=openai/gpt-oss-20b", "--max-model-len=131072"]
                resources: {limits: {nvidia.com/gpu: 1}}
        """))
    out = run(["check", "--isolated", str(path)]).out
    # before: "band 80,640-246,976 (point 98,288)", 0.8.5's and 0.9.0's rules in it
    # 0.19.0's admission check gives the point's longest request, from its own pool (216,256): the sum is said of it
    # 0.34.0's extensible KV cache (sized after capture, utilization 1.0) raises the band's top from 246,976;
    # its 64-token default block rounds that top down from 266,896
    assert "the pool's band 105,792-266,880, point 153,408; at the point one request holds 108,112, of 216,256, the " \
        "pool of the release the longest request follows: one 16-token block is vLLM's null block; 108,112 for " \
        "the sliding-window layers, which vLLM 0.19's admission check reserves for the whole request; 16 for" in out
    assert "version unknown: vLLM releases before 0.10.1 cannot load GptOssForCausalLM (0.8.5, 0.9.0 left out)" in out
    path.write_text(path.read_text().replace("vllm-openai:latest", "vllm-openai:v0.10.1"))
    assert run(["check", "--isolated", str(path)]).out == ""  # the control: 0.10.1 holds 216,256


def test_a_first_release_inside_a_range_of_rules_is_estimated_under_itself():
    # Qwen3-Next from 0.10.2: the 0.10.1 rules' range is priced as 0.10.2 runs it
    nxt = lookup_model("Qwen/Qwen3-Next-80B-A3B-Thinking")
    releases, why = releases_for(nxt)
    assert releases == ("0.10.2", "0.12.0", "0.17.0", "0.20.0", "0.28.0", "0.34.0")
    assert why == "vLLM releases before 0.10.2 cannot load Qwen3NextForCausalLM (0.8.5, 0.9.0, 0.10.1 left out)"
    assert releases_for(lookup_model("zai-org/GLM-4.5"))[0] == ("0.10.0", "0.10.1", "0.12.0", "0.17.0", "0.20.0",
                                                                 "0.28.0", "0.34.0")
    assert releases_for(lookup_model("deepseek-ai/DeepSeek-V4-Flash"))[0] == ("0.20.0", "0.28.0", "0.34.0")
    kimi_k3 = arch_from_hf_config({"architectures": ["KimiK3ForConditionalGeneration"], "num_hidden_layers": 4,
                                   "num_attention_heads": 8, "hidden_size": 512})
    assert releases_for(kimi_k3) == (("0.27.0", "0.28.0", "0.34.0"), "vLLM releases before 0.27.0 cannot load "
                                     "KimiK3ForConditionalGeneration (0.8.5, 0.9.0, 0.10.1, 0.12.0, 0.17.0, 0.20.0 "
                                     "left out)")


def test_an_architecture_not_in_the_table_keeps_every_release():
    assert releases_for(LLAMA) == (VLLM_RELEASES, "")
    assert _l4(LLAMA).releases_left_out == ""
    for classes in (["LlamaForCausalLM"], ["SomeNewForCausalLM"], ["GptOssForCausalLM", "SomeNewForCausalLM"]):
        assert first_release(with_overrides(OSS20, {"architectures": classes})) is None, classes
    # vLLM loads the first class its registry resolves: the earliest listed release counts
    both = with_overrides(OSS20, {"architectures": ["DeepseekV4ForCausalLM", "GptOssForCausalLM"]})
    assert first_release(both) == ("0.10.1", "GptOssForCausalLM")
    classed = with_overrides(OSS20, {"architectures": ["GptOssForCausalLM"], "model_type": "kimi_k2"})
    assert first_release(classed) == ("0.10.1", "GptOssForCausalLM")  # the classes decide when there are any
    assert first_release(with_overrides(LLAMA, {"model_type": "gpt_oss"})) == ("0.10.1", "GptOssForCausalLM")
    assert first_release(with_overrides(LLAMA, {"model_type": "kimi_k2"})) is None
    assert first_release(None) is None and spanned_releases(CapacityInput(arch=None, engine="vllm")) == VLLM_RELEASES


def test_a_pinned_release_and_other_engines_are_not_changed():
    assert spanned_releases(CapacityInput(arch=OSS20, engine="vllm", engine_version="0.9.0")) == ()
    assert _l4(OSS20, "0.9.0").releases_left_out == ""
    assert spanned_releases(CapacityInput(arch=OSS20, engine="sglang")) == ()


def test_the_table_lists_only_releases_after_the_oldest_one_folded():
    oldest = parse_version(VLLM_RELEASES[0])
    for name, release in FIRST_RELEASE.items():
        assert parse_version(release) > oldest and name.isidentifier(), name
    for model_type, classes in MODEL_TYPES.items():
        assert classes and all(c in FIRST_RELEASE for c in classes), model_type


def _catalog_sources():
    for path in sorted(glob.glob(str(CATALOG / "*.yaml"))):
        for item in yaml.safe_load(Path(path).read_text(encoding="utf-8")).get("models") or ():
            yield item["id"], arch_from_hf_config(item["config"], name=item["id"])


def test_a_catalog_model_type_never_leaves_out_a_release_its_class_keeps():
    # The catalog keeps model_type, not the classes: its lookup must never rule out more than the
    # transcribed class does, and must gate each catalog model whose class is listed (Kimi-K2.5's
    # text part says kimi_k2 or deepseek_v3, whose other models load in every release).
    ungated, used = [], set()
    for model_id, arch in _catalog_sources():
        by_class = first_release(arch)
        by_type = first_release(lookup_model(model_id))
        used.add(arch.model_type)
        if by_type is not None:
            assert by_class is None or parse_version(by_type[0]) <= parse_version(by_class[0]), model_id
            assert arch.model_type in MODEL_TYPES
        elif by_class is not None:
            ungated.append(model_id)
    assert sorted(ungated) == ["moonshotai/Kimi-K2.5", "nvidia/Kimi-K2.6-NVFP4", "nvidia/Kimi-K2.7-Code-NVFP4"]
    assert set(MODEL_TYPES) <= used


@pytest.mark.parametrize("model_id", ["openai/gpt-oss-120b", "Qwen/Qwen3-Next-80B-A3B-Thinking",
                                      "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16"])
def test_the_same_arch_asks_the_table_once(model_id):
    arch = lookup_model(model_id)
    assert releases_for(arch) is releases_for(lookup_model(model_id))
