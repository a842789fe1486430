"""A container's `nvidia.com/mig-<profile>` request (the device plugin's mixed MIG strategy) names its device:
a MIG slice, of the card the node selector names or of the only catalog card with that profile."""
from __future__ import annotations

import pytest

from helpers import run
from tests.adapters.kit import adapt, at

POD = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: sliced
spec:
  template:
    spec:
{placement}
      containers:
        - name: engine
          image: vllm/vllm-openai:v0.10.2
          args: ["--model", "Qwen/Qwen3-8B", "--max-model-len", "16384"]
          resources:
            {section}:
              nvidia.com/mig-{profile}: 1
"""


def _pod(profile: str, placement: str = "", section: str = "limits") -> str:
    return POD.format(profile=profile, placement=placement, section=section)


@pytest.mark.parametrize("profile,placement,device", [
    ("3g.20gb", "", "A100-40GB-MIG-3g.20gb"),  # only the A100-40GB has 3g.20gb
    ("3g.71gb", "", "H200-MIG-3g.71gb"),
    # A100-80GB and H100 both have 3g.40gb: the card the node selector names decides
    ("3g.40gb", "      nodeSelector:\n        nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB\n",
     "A100-80GB-MIG-3g.40gb"),
    ("3g.40gb", "      nodeSelector:\n        nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3\n", "H100-MIG-3g.40gb"),
    # a node labelled with the slice itself (single strategy's product name) is that card too
    ("1g.10gb", "      nodeSelector:\n        nvidia.com/gpu.product: NVIDIA-A100-SXM4-40GB-MIG-1g.10gb\n",
     "A100-40GB-MIG-1g.10gb"),
])
def test_the_slice_of_a_mig_resource(profile, placement, device):
    text = _pod(profile, placement)
    [role] = adapt(text).deployments[0].roles
    acc = role.accelerators
    assert (acc.type.value, acc.type.raw, acc.count.value) == (device, f"nvidia.com/mig-{profile}", 1)
    assert at(text, acc.type.source) == f"nvidia.com/mig-{profile}"  # the key names the slice
    assert at(text, acc.count.source) == "1"


def test_a_profile_several_cards_have_is_not_guessed(tmp_path):
    text = _pod("3g.40gb", section="requests")
    [role] = adapt(text).deployments[0].roles
    assert (role.accelerators.type.value, role.accelerators.count.value) == ("MIG-3g.40gb", 1)
    (tmp_path / "d.yaml").write_text(text)
    out = run(["check", str(tmp_path / "d.yaml"), "--select", "CTX208"]).out
    # the key's position, and a name the user can define under `accelerators:`
    assert out.startswith(f"{tmp_path / 'd.yaml'}:15:15: CTX208 [info] KV pool of unified not declared and not "
                          "derivable: unknown accelerator 'MIG-3g.40gb': define it under `accelerators:`")
    (tmp_path / ".ctxlint.yaml").write_text("accelerators: {MIG-3g.40gb: {memory_gib: 39.25}}\n")
    assert "CTX208" not in run(["check", str(tmp_path / "d.yaml"), "--config", str(tmp_path / ".ctxlint.yaml")]).out
    # a card ctxlint has no slices of keeps the slice as written, never the whole card's memory
    [role] = adapt(_pod("3g.40gb", "      nodeSelector:\n        nvidia.com/gpu.product: NVIDIA-H100-PCIe\n"))\
        .deployments[0].roles
    assert role.accelerators.type.value == "H100-PCIe-80GB-MIG-3g.40gb"


def test_a_derived_pool_on_a_slice(tmp_path):
    (tmp_path / "d.yaml").write_text(_pod("3g.20gb"))
    out = run(["check", str(tmp_path / "d.yaml")]).out
    assert "on 1x A100-40GB-MIG-3g.20gb" in out and "no accelerator type" not in out


def test_odd_mig_requests_never_crash():
    for odd in ("nvidia.com/mig-: 1", "nvidia.com/mig-3g.40gb: lots", "nvidia.com/mig-3g.40gb: [1]",
                "nvidia.com/mig-3g.40gb: -1", "nvidia.com/mig-3g.40gb: true"):
        text = _pod("x").replace("nvidia.com/mig-x: 1", odd)
        adapt(text)


# The same request in every adapter that reads a container from a pod spec (sweep 28: rh-aiservices-bu/rhaiis-demo
# @fd3c26432a1af260fcda603105aee09588e93e5d asks `nvidia.com/mig-3g.71gb` in an InferenceService and in an
# LLMInferenceService, and both were "no accelerator type" while a Deployment had a verdict).
MIG = "nvidia.com/mig-3g.71gb"
ISVC = f"""\
apiVersion: serving.kserve.io/v1alpha1
kind: ServingRuntime
metadata: {{name: vllm-runtime}}
spec:
  containers:
  - name: kserve-container
    image: vllm/vllm-openai:v0.10.2
    command: [python3, -m, vllm.entrypoints.openai.api_server]
    args: [--model=/mnt/models, --max-model-len=16000]
  supportedModelFormats: [{{name: vLLM}}]
---
apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata: {{name: qwen}}
spec:
  predictor:
    model:
      modelFormat: {{name: vLLM}}
      runtime: vllm-runtime
      storageUri: hf://Qwen/Qwen3-4B
      resources:
        limits: {{{MIG}: "1"}}
"""
PREDICTOR = f"""\
apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata: {{name: qwen}}
spec:
  predictor:
    containers:
    - name: kserve-container
      image: vllm/vllm-openai:v0.10.2
      args: [--model=Qwen/Qwen3-4B, --max-model-len=16000]
      resources:
        limits: {{{MIG}: "1"}}
"""
LLMISVC = f"""\
apiVersion: serving.kserve.io/v1alpha1
kind: LLMInferenceService
metadata: {{name: qwen}}
spec:
  model: {{uri: hf://Qwen/Qwen3-4B, name: Qwen/Qwen3-4B}}
  template:
    containers:
    - name: main
      env: [{{name: VLLM_ADDITIONAL_ARGS, value: --max-model-len=16000}}]
      resources:
        limits: {{{MIG}: "1"}}
"""
DYNAMO = f"""\
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata: {{name: graph}}
spec:
  services:
    Worker:
      componentType: worker
      extraPodSpec:
        mainContainer:
          command: [python3, -m, dynamo.vllm]
          args: [--model, Qwen/Qwen3-4B, --max-model-len, "16000"]
          resources:
            limits: {{{MIG}: "1"}}
"""
NIM = f"""\
apiVersion: apps.nvidia.com/v1alpha1
kind: NIMService
metadata: {{name: llama}}
spec:
  image: {{repository: nvcr.io/nim/meta/llama-3.1-8b-instruct, tag: "1.8.4"}}
  env: [{{name: NIM_MAX_MODEL_LEN, value: "16000"}}, {{name: NIM_TENSOR_PARALLEL_SIZE, value: "1"}}]
  resources:
    limits: {{{MIG}: "1"}}
"""
MODELSERVICE = f"""\
modelArtifacts:
  name: Qwen/Qwen3-4B
  uri: hf://Qwen/Qwen3-4B
decode:
  create: true
  replicas: 1
  containers:
  - name: vllm
    image: ghcr.io/llm-d/llm-d-cuda:v0.4.0
    modelCommand: vllmServe
    args: ["--max-model-len", "16000"]
    resources:
      limits: {{{MIG}: "1"}}
"""


@pytest.mark.parametrize("text,name", [(ISVC, "deploy.yaml"), (PREDICTOR, "deploy.yaml"), (LLMISVC, "deploy.yaml"),
                                       (DYNAMO, "deploy.yaml"), (NIM, "deploy.yaml"), (MODELSERVICE, "values.yaml")],
                         ids=["inferenceservice", "predictor-containers", "llminferenceservice", "dynamo", "nimservice",
                              "llm-d-modelservice"])
def test_every_pod_spec_adapter_reads_the_slice(text, name):
    [dep] = adapt(text, name).deployments
    [role] = dep.roles
    acc = role.accelerators
    assert (acc.type.value, acc.type.raw, acc.count.value) == ("H200-MIG-3g.71gb", MIG, 1)
    assert at(text, acc.type.source) == MIG


def test_a_ray_worker_groups_slice_is_the_apps_device():
    text = f"""\
apiVersion: ray.io/v1
kind: RayService
metadata: {{name: llm}}
spec:
  serveConfigV2: |
    applications:
    - name: llm
      import_path: ray.serve.llm:build_openai_app
      args:
        llm_configs:
        - model_loading_config: {{model_id: Qwen/Qwen3-4B}}
          engine_kwargs: {{max_model_len: 16000}}
  rayClusterConfig:
    headGroupSpec:
      template:
        spec:
          containers: [{{name: head, image: rayproject/ray-llm:2.46.0}}]
    workerGroupSpecs:
    - replicas: 1
      template:
        spec:
          containers:
          - name: worker
            image: rayproject/ray-llm:2.46.0
            resources:
              limits: {{{MIG}: "1"}}
"""
    [dep] = adapt(text).deployments
    assert dep.roles[0].accelerators.type.value == "H200-MIG-3g.71gb"
