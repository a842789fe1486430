"""An OME runtime read alone names the model its `--served-model-name` names, where its supported formats agree.

Modelled on sgl-project/ome@17b77ed config/runtimes/srt/Qwen/Qwen2.5-7B-Instruct-rt.yaml (an SGLang runner with
`--model-path $(MODEL_PATH)`, `--served-model-name Qwen/Qwen2.5-7B-Instruct`, `modelArchitecture: Qwen2ForCausalLM`,
`modelSizeRange: {min: 6B, max: 9B}`) and config/runtimes/srt/gpt-oss-20b-rt.yaml, whose size range (115B to 125B,
the 120B runtime's) no 20B model is in. Before, every such runtime was a deployment with no model.
"""
from __future__ import annotations

import json

from tests.adapters.kit import adapt, at
from helpers import run

RUNTIME = """\
apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: srt-qwen2-5-7b-instruct
spec:
  supportedModelFormats:
    - modelFormat: {name: safetensors, version: "1.0.0"}
      modelArchitecture: {arch}
      autoSelect: true
  modelSizeRange:
    min: {low}
    max: {high}
  engineConfig:
    runner:
      name: ome-container
      image: docker.io/lmsysorg/sglang:v0.5.5.post3-cu129-amd64
      command:
        - python3
        - -m
        - sglang.launch_server
        - --model-path
        - $(MODEL_PATH)
        - --tp-size
        - "1"
        - --served-model-name
        - {served}
      resources:
        limits:
          nvidia.com/gpu: 1
"""


def runtime(served="Qwen/Qwen2.5-7B-Instruct", arch="Qwen2ForCausalLM", low="6B", high="9B") -> str:
    return RUNTIME.replace("{served}", served).replace("{arch}", arch).replace("{low}", low).replace("{high}", high)


def test_the_served_name_names_the_model_where_architecture_and_size_agree():
    text = runtime()
    res = adapt(text)
    [dep] = res.deployments
    model = dep.model.id
    assert (model.value, model.source.line, at(text, model.source)) == \
        ("Qwen/Qwen2.5-7B-Instruct", 26, "Qwen/Qwen2.5-7B-Instruct")
    assert model.raw == (
        "--served-model-name Qwen/Qwen2.5-7B-Instruct of the OME runtime, which no InferenceService checked names "
        "(its --model-path is the base model's $(MODEL_PATH)): architecture matched by that name, which the "
        "runtime's modelArchitecture Qwen2ForCausalLM, modelSizeRange 6B to 9B agree with; the base model's weight "
        "format is not stated")
    stated = dep.model.stated_format
    assert (stated.word, stated.checkpoint_named, stated.field) == (None, False, "weight format in the OME runtime")
    # $(MODEL_PATH) is no longer an unknown model: the served name stands for it
    assert [d for d in res.diagnostics if d.kind == "unresolved-value"] == []


def test_a_quantizers_name_resolves_as_the_resolver_matches_it():
    # config/runtimes/srt/RedHatAI/llama-3-3-70b-instruct-fp8-dynamic-rt.yaml
    text = runtime("RedHatAI/Llama-3.3-70B-Instruct-FP8-dynamic", "LlamaForCausalLM", "60B", "75B")
    [dep] = adapt(text).deployments
    assert dep.model.id.value == "RedHatAI/Llama-3.3-70B-Instruct-FP8-dynamic"


def test_a_runtime_that_disagrees_with_the_name_keeps_no_model():
    for text in (runtime(low="115B", high="125B"),  # not a size the runtime serves (gpt-oss-20b-rt.yaml's copy)
                 runtime(arch="LlamaForCausalLM"),  # another architecture
                 runtime("meta-llama/Llama-3.1-8B-Instruct", "Llama4ForConditionalGeneration", "6B", "9B"),
                 runtime(served="vllm-model"),  # an alias, no Hub id
                 runtime(served="$(SERVED_MODEL_NAME)"),
                 runtime(served="acme/not-a-model-ctxlint-knows")):
        res = adapt(text)
        [dep] = res.deployments
        assert dep.model.id is None, text
        [note] = [d for d in res.diagnostics if d.kind == "unresolved-value"]
        assert "--model-path $(MODEL_PATH)" in note.message


def test_a_runtime_that_states_no_format_or_size_checks_nothing_and_keeps_no_model():
    text = runtime()
    text = text[:text.index("  supportedModelFormats")] + text[text.index("  engineConfig"):]
    [dep] = adapt(text).deployments
    assert dep.model.id is None


def test_a_service_naming_the_runtime_still_runs_its_base_model(tmp_path):
    # the served name is the runtime's, read only when no service names the runtime
    (tmp_path / "rt.yaml").write_text(runtime())
    (tmp_path / "isvc.yaml").write_text(
        "apiVersion: ome.io/v1beta1\nkind: ClusterBaseModel\nmetadata: {name: q}\n"
        "spec: {storage: {storageUri: 'hf://Qwen/Qwen2.5-7B', path: /raid/q}}\n---\n"
        "apiVersion: ome.io/v1beta1\nkind: InferenceService\nmetadata: {name: svc}\n"
        "spec: {model: {name: q}, runtime: {name: srt-qwen2-5-7b-instruct}}\n")
    rows = json.loads(run(["audit", "--isolated", "--format", "json", str(tmp_path)]).out)["deployments"]
    assert [(r["name"], r["model"], r["model_from"]) for r in rows] == [("svc", "Qwen/Qwen2.5-7B", None)]


def test_the_audit_says_how_the_model_was_named(tmp_path):
    (tmp_path / "rt.yaml").write_text(runtime())
    [row] = json.loads(run(["audit", "--isolated", "--format", "json", str(tmp_path)]).out)["deployments"]
    assert (row["model"], row["names_model"], row["verdict"], row["why_unknown"]) == \
        ("Qwen/Qwen2.5-7B-Instruct", True, "needs >= 20 GiB/GPU", None)
    assert row["model_from"].startswith("--served-model-name Qwen/Qwen2.5-7B-Instruct of the OME runtime")


PD = """\
apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: srt-deepseek-rdma-pd
spec:
  supportedModelFormats:
    - modelFormat: {name: safetensors}
      modelArchitecture: DeepseekV3ForCausalLM
  modelSizeRange: {min: 650B, max: 700B}
  engineConfig:
    runner:
      name: ome-container
      image: docker.io/lmsysorg/sglang:v0.5.5.post3-cu129-amd64
      command: [python3, -m, sglang.launch_server, --model-path, $(MODEL_PATH), --disaggregation-mode, prefill,
                --tp-size, "8", --served-model-name, deepseek-ai/DeepSeek-V3, --max-total-tokens, "131072"]
      resources: {limits: {nvidia.com/gpu: 8}}
  decoderConfig:
    runner:
      name: ome-container
      image: docker.io/lmsysorg/sglang:v0.5.5.post3-cu129-amd64
      command: [python3, -m, sglang.launch_server, --model-path, $(MODEL_PATH), --disaggregation-mode, decode,
                --tp-size, "8", --served-model-name, deepseek-ai/DeepSeek-V3]
      resources: {limits: {nvidia.com/gpu: 8}}
"""


def test_a_pd_runtime_alone_is_one_deployment_of_its_served_model():
    # sgl-project/ome@17b77ed config/runtimes/srt/deepseek-rdma-pd-rt.yaml, shortened: both halves serve one name,
    # so they pair as an InferenceService's engine and decoder do
    [dep] = adapt(PD).deployments
    assert (dep.display_name, dep.model.id.value, [r.kind for r in dep.roles]) == \
        ("srt-deepseek-rdma-pd/engine + srt-deepseek-rdma-pd/decoder", "deepseek-ai/DeepSeek-V3", ["prefill", "decode"])
    assert dep.roles[0].kv_pool_tokens.value == 131072


def _without(text: str, line: str) -> str:
    assert line in text
    return text.replace(line, "")


def test_a_runtime_that_states_no_architecture_keeps_no_model():
    # a format without modelArchitecture matches only a base model with none (sgl-project/ome@17b77ed
    # pkg/runtimeselector/matcher.go compareSupportedModelFormats), and OME's model agent writes the architecture of
    # every checkpoint it reads (internal/ome-agent/model-metadata/metadata.go updateSpec): a size range alone says
    # nothing of which model it is
    text = _without(runtime("meta-llama/Llama-3.1-8B-Instruct"), "      modelArchitecture: Qwen2ForCausalLM\n")
    [dep] = adapt(text).deployments
    assert dep.model.id is None


def test_a_format_without_a_model_format_matches_nothing():
    # compareSupportedModelFormats: `if format.ModelFormat != nil {...} else { return false }`
    text = _without(runtime(), '    - modelFormat: {name: safetensors, version: "1.0.0"}\n      modelArchitecture')
    text = text.replace("  supportedModelFormats:\n", "  supportedModelFormats:\n    - modelArchitecture")
    assert "    - modelArchitecture: Qwen2ForCausalLM\n      autoSelect: true\n" in text
    [dep] = adapt(text).deployments
    assert dep.model.id is None


def test_size_bounds_are_read_as_ome_parses_them():
    # parseModelSize takes a `T`, `B` or `M` suffix as written and reads any other string as 0: `9b` is a maximum
    # no model is under; a bound missing is no range OME compares (it dereferences both)
    for low, high in (("6b", "9b"), ("6B", "9b"), ("6B", "' 9B'")):
        [dep] = adapt(runtime(low=low, high=high)).deployments
        assert dep.model.id is None, (low, high)
    [dep] = adapt(_without(runtime(), "    max: 9B\n")).deployments
    assert dep.model.id is None
    # a lowercase minimum is 0, no lower bound; a bare number is a count of parameters
    for low, high, said in (("6b", "9B", "0B to 9B"), ('"6000000000"', "9.5B", "6B to 9.5B"),
                            ("0.006T", "9000M", "6B to 9B")):
        [dep] = adapt(runtime(low=low, high=high)).deployments
        assert dep.model.id.value == "Qwen/Qwen2.5-7B-Instruct", (low, high)
        assert f"modelSizeRange {said} agree with" in dep.model.id.raw


def test_a_causal_lm_class_is_no_model_with_a_vision_tower():
    # google/gemma-3-27b-it is Gemma3ForConditionalGeneration (its config.json's architectures), which the model agent
    # writes; a runtime for Gemma3ForCausalLM (gemma-3-1b's class) never runs it
    [dep] = adapt(runtime("google/gemma-3-27b-it", "Gemma3ForCausalLM", "20B", "30B")).deployments
    assert dep.model.id is None
    [dep] = adapt(runtime("google/gemma-3-27b-it", "Gemma3ForConditionalGeneration", "20B", "30B")).deployments
    assert dep.model.id.value == "google/gemma-3-27b-it"


def test_of_several_formats_the_one_that_matches_is_named():
    # IsCompatible: any format that matches, then the size
    text = runtime().replace("  supportedModelFormats:\n", "  supportedModelFormats:\n"
                             "    - modelFormat: {name: safetensors}\n      modelArchitecture: LlamaForCausalLM\n")
    [dep] = adapt(text).deployments
    assert dep.model.id.value == "Qwen/Qwen2.5-7B-Instruct"
    assert "the runtime's modelArchitecture Qwen2ForCausalLM, modelSizeRange 6B to 9B agree with" in dep.model.id.raw


def test_a_pd_runtime_whose_decoder_states_no_served_name_is_one_deployment_of_the_engines():
    # OME gives the engine and the decoder one base model's $(MODEL_PATH): the one served name names both halves
    text = PD.replace('--tp-size, "8", --served-model-name, deepseek-ai/DeepSeek-V3]', '--tp-size, "8"]')
    assert text.count("--served-model-name") == 1
    [dep] = adapt(text).deployments
    assert (dep.display_name, dep.model.id.value, [r.kind for r in dep.roles]) == \
        ("srt-deepseek-rdma-pd/engine + srt-deepseek-rdma-pd/decoder", "deepseek-ai/DeepSeek-V3", ["prefill", "decode"])
    assert dep.model.id.source.line == 15


def test_a_pd_runtime_whose_halves_serve_different_names_names_no_model():
    # one $(MODEL_PATH), two names: which one it is is not known
    for other in ("deepseek-ai/DeepSeek-V3-0324", "dsv3"):
        text = PD.replace('--tp-size, "8", --served-model-name, deepseek-ai/DeepSeek-V3]',
                          f'--tp-size, "8", --served-model-name, {other}]')
        assert other in text
        res = adapt(text)
        [dep] = res.deployments
        assert (dep.display_name, dep.model.id, [r.kind for r in dep.roles]) == \
            ("srt-deepseek-rdma-pd", None, ["prefill", "decode"]), other
        assert [d for d in res.diagnostics if d.kind == "unresolved-value"]
