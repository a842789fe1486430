"""SageMaker HyperPod's inference operator: an InferenceEndpointConfig's worker is a container of a pod on its ml.
instance type (prefill and decode Deployments with a pdSpec); a JumpStartModel is said, never checked."""
from __future__ import annotations

from tests.adapters.kit import adapt, at
from tests.helpers import run

ENDPOINT = """\
apiVersion: inference.sagemaker.aws.amazon.com/v1
kind: InferenceEndpointConfig
metadata:
  name: qwen-endpoint
  annotations: {ctxlint.io/context-window: "131072"}
spec:
  modelName: qwen
  instanceType: ml.g5.12xlarge
  replicas: 2
  modelSourceConfig:
    modelSourceType: huggingface
    huggingFaceModel: {modelId: Qwen/Qwen2.5-7B-Instruct}
  worker:
    image: vllm/vllm-openai:v0.10.1
    args: [--model, /opt/ml/model, --max-model-len, "$(CTX)", --tensor-parallel-size, "4"]
    environmentVariables:
    - {name: CTX, value: "32768"}
    resources: {limits: {nvidia.com/gpu: 4}}
    modelVolumeMount: {name: model-weights, mountPath: /opt/ml/model}
"""

DPD = """\
apiVersion: inference.sagemaker.aws.amazon.com/v1
kind: InferenceEndpointConfig
metadata: {name: pd}
spec:
  modelName: llama
  instanceType: ml.p5.48xlarge
  modelSourceConfig: {modelSourceType: s3, modelLocation: llama}
  pdSpec:
    prefillSpec:
      replicas: 2
      args: [--max-model-len, "65536"]
      resources: {limits: {nvidia.com/gpu: "8"}}
    decodingSpec:
      resources: {limits: {nvidia.com/gpu: "8"}}
  worker:
    image: vllm/vllm-openai:v0.10.1
    command: [vllm, serve, meta-llama/Llama-3.3-70B-Instruct, --tensor-parallel-size, "8", --max-model-len, "16384"]
    resources: {limits: {nvidia.com/gpu: "4"}}
"""

ODD = """\
apiVersion: inference.sagemaker.aws.amazon.com/v1alpha1
kind: InferenceEndpointConfig
metadata: {name: tmpl}
spec:
  instanceType: $ACCEL_INSTANCE_TYPE
  worker:
    image: ghcr.io/huggingface/text-generation-inference:2.1.1
    environmentVariables:
    - {name: MODEL_ID, value: mistralai/Mistral-7B-Instruct-v0.2}
    resources: {limits: {nvidia.com/gpu: 1}}
---
apiVersion: inference.sagemaker.aws.amazon.com/v1
kind: InferenceEndpointConfig
metadata: {name: odd}
spec: {worker: [1, 2], pdSpec: 3}
---
apiVersion: inference.sagemaker.aws.amazon.com/v1
kind: InferenceEndpointConfig
metadata: {name: odd2}
spec:
  instanceTypes: [ml.p5e.48xlarge, ml.p5en.48xlarge]
  pdSpec: {prefillSpec: 3, decodingSpec: {args: 5, resources: []}}
  worker: {image: {a: 1}, environmentVariables: {a: b}, args: "x"}
"""

JUMPSTART = """\
apiVersion: inference.sagemaker.aws.amazon.com/v1
kind: JumpStartModel
metadata: {name: js}
spec:
  model: {modelHubName: SageMakerPublicHub, modelId: huggingface-llm-mistral-7b-instruct-v3}
  server: {instanceType: ml.g5.8xlarge}
---
apiVersion: inference.sagemaker.aws.amazon.com/v1
kind: JumpStartModel
metadata: {name: js2}
spec: {}
"""


def _roles(text: str):
    return [(str(d.name.value), str(d.model.id.value), r.role.value, r.replicas and r.replicas.value,
             (r.accelerators.type.value, at(text, r.accelerators.type.source)) if r.accelerators.type else None,
             r.accelerators.count and r.accelerators.count.value, r.context_length and r.context_length.value)
            for d in adapt(text).deployments for r in d.roles]


def _check(tmp_path, text: str) -> str:
    (tmp_path / "hp.yaml").write_text(text)
    result = run(["check", "--isolated", str(tmp_path / "hp.yaml")])
    return result.out.replace(f"{tmp_path / 'hp.yaml'}:", "") + result.err


def test_the_worker_is_a_container_on_the_instance_type(tmp_path):
    # the engine given the model's mount serves the Hugging Face model of the source; env `$(CTX)` expands
    assert _roles(ENDPOINT) == [("qwen-endpoint", "Qwen/Qwen2.5-7B-Instruct", "unified", 2,
                                 ("A10G", "ml.g5.12xlarge"), 4, 32768)]
    assert _check(tmp_path, ENDPOINT) == (
        "17:26: CTX104 [error] 131,072 > 32,768: the advertised window exceeds the unified engine context length "
        "32,768 by 98,304 tokens, so clients are promised requests the engine rejects. Raise the unified context "
        "length to 131,072 or lower the advertised window to 32,768 (window-exceeds-engine-context)\n"
        "ctxlint: 1 error in 1 file, 1 deployment\n")


def test_pd_spec_makes_a_prefill_and_a_decode_deployment(tmp_path):
    # each role's resources replace the worker's, its args follow the worker's (the later flag wins)
    model = "meta-llama/Llama-3.3-70B-Instruct"
    assert _roles(DPD) == [("pd/prefill + pd/decode", model, "prefill", 2, ("H100", "ml.p5.48xlarge"), 8, 65536),
                           ("pd/prefill + pd/decode", model, "decode", None, ("H100", "ml.p5.48xlarge"), 8, 16384)]
    assert _check(tmp_path, DPD) == (
        "17:110: CTX108 [warning] decode context length 16,384 differs from prefill 65,536 (line 11): a request can "
        "pass one side of the handoff and fail the other. Use the same context length on every prefill and decode "
        "role (role-settings-disagree)\nctxlint: 1 warning in 1 file, 1 deployment\n")


def test_a_placeholder_instance_type_and_odd_shapes(tmp_path):
    assert _roles(ODD) == [("tmpl", "mistralai/Mistral-7B-Instruct-v0.2", "unified", None, None, 1, None)]
    out = _check(tmp_path, ODD)
    assert out.startswith(
        "5:17: CTX008 [info] values ctxlint cannot resolve: instanceType $ACCEL_INSTANCE_TYPE (no SageMaker instance "
        "type, which the CRD requires: ml.<type>; no device taken from it); the checks that need them are skipped "
        "(set them literally, or state the limits with ctxlint.io/* annotations) (unresolved-value)\n"
        "7:5: CTX208 [info] KV pool of unified not declared")
    assert out.endswith("ctxlint: 2 infos in 1 file, 1 deployment\n")


def test_a_jumpstart_model_is_said_not_checked(tmp_path):
    note = "SageMaker HyperPod serves {} in JumpStart's packaged container with that model's own defaults (engine, " \
           "context length, parallelism), none of them in this file: ctxlint does not check it (unresolved-value)\n"
    assert _check(tmp_path, JUMPSTART) == (
        "5:54: CTX008 [info] " + note.format("JumpStart model huggingface-llm-mistral-7b-instruct-v3 of hub "
                                             "SageMakerPublicHub on ml.g5.8xlarge")
        + "11:7: CTX008 [info] " + note.format("a JumpStart model") + "ctxlint: 2 infos in 1 file, 0 deployments\n")
