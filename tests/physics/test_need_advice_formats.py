"""CTX208's advice on where to state a device names a field the checked file has (physics/need_advice.py).

A llama-swap config, a SkyPilot task, a Ray Serve config, a serving.properties, a CloudFormation template, an
srt-slurm recipe and a KubeAI Model were told to "state the device (a nodeSelector such as nvidia.com/gpu.product
...)": none of them has a node selector, and the pod that mounts a llama-swap ConfigMap is not read for its models, so
that advice could not be followed. The thirty-second sweep saw llama-swap configs without a device at
Isuhail29/affordable-local-llm-research@6a497725:llama-swap.yaml (llama-server.exe on Windows, nine models) and
andermurias/llamactl@8b22e95e:llama-swap.yaml (a Mac); the other shapes are the ones the earlier sweeps read
(SkyPilot tasks, Ray Serve LLM configs, LMI serving.properties, CloudFormation SageMaker endpoints, srt-slurm
recipes, KubeAI Models), here without the field that names the device.
"""
from __future__ import annotations

import textwrap

import pytest

from helpers import run

LLAMA_SWAP = """\
models:
  llama:
    cmd: llama-server --port ${PORT} -hf bartowski/Meta-Llama-3.1-8B-Instruct-GGUF:Q4_K_M -c 32768 -ngl 99
"""

# The same config in a ConfigMap, mounted by a pod whose node selector names an L4: that selector is not joined to
# the ConfigMap's models (adapters/engine_config_maps.py reads the data value alone), so it cannot be the advice.
LLAMA_SWAP_CONFIG_MAP = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: llama-swap-config}
data:
  config.yaml: |
    models:
      llama:
        cmd: llama-server --port ${PORT} -hf bartowski/Meta-Llama-3.1-8B-Instruct-GGUF:Q4_K_M -c 32768 -ngl 99
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: llama-swap}
spec:
  template:
    spec:
      nodeSelector: {cloud.google.com/gke-accelerator: nvidia-l4}
      containers:
        - name: llama-swap
          image: ghcr.io/mostlygeek/llama-swap:cuda
          args: ["--config", "/config/config.yaml"]
          resources: {limits: {nvidia.com/gpu: 1}}
          volumeMounts: [{name: config, mountPath: /etc/llama-swap}]
      volumes: [{name: config, configMap: {name: llama-swap-config}}]
"""

SKYPILOT = """\
resources:
  cpus: 8
run: |
  vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 32768
"""

RAY_SERVE = """\
applications:
- name: llm
  route_prefix: /
  import_path: ray.serve.llm:build_openai_app
  args:
    llm_configs:
    - model_loading_config:
        model_id: llama
        model_source: meta-llama/Llama-3.1-8B-Instruct
      engine_kwargs:
        max_model_len: 32768
"""

LMI = """\
engine=Python
option.model_id=meta-llama/Llama-3.1-8B-Instruct
option.rolling_batch=vllm
option.max_model_len=32768
option.tensor_parallel_degree=1
"""

CLOUDFORMATION = """\
AWSTemplateFormatVersion: '2010-09-09'
Parameters:
  InstanceType:
    Type: String
Resources:
  Model:
    Type: AWS::SageMaker::Model
    Properties:
      ExecutionRoleArn: arn:aws:iam::123456789012:role/sagemaker
      PrimaryContainer:
        Image: 763104351884.dkr.ecr.us-east-1.amazonaws.com/huggingface-pytorch-tgi-inference:2.4.0-tgi2.4.0-gpu-py311-cu124-ubuntu22.04
        Environment:
          HF_MODEL_ID: meta-llama/Llama-3.1-8B-Instruct
          SM_NUM_GPUS: '1'
          MAX_TOTAL_TOKENS: '32768'
          MAX_INPUT_TOKENS: '32000'
  Config:
    Type: AWS::SageMaker::EndpointConfig
    Properties:
      ProductionVariants:
      - ModelName: !GetAtt Model.ModelName
        VariantName: main
        InitialInstanceCount: 1
        InstanceType: !Ref InstanceType
"""

# An srt-slurm recipe (samples/srt-slurm/disagg.yaml's shape) without `resources.gpu_type`.
SRT_RECIPE = """\
name: qwen3-32b-agg
model: {path: qwen3-32b, container: "lmsysorg/sglang:v0.5.5.post2", precision: bf16}
resources:
  gpus_per_node: 8
  agg_nodes: 1
  agg_workers: 1
backend:
  type: sglang
  sglang_config:
    aggregated: {served-model-name: Qwen/Qwen3-32B, tensor-parallel-size: 8, context-length: 40960}
"""

# A KubeAI Model whose profile is one of the operator's own (defined in the KubeAI chart's values, not in this file).
KUBEAI = """\
apiVersion: kubeai.org/v1
kind: Model
metadata: {name: llama-3.1-8b}
spec:
  features: [TextGeneration]
  url: hf://meta-llama/Llama-3.1-8B-Instruct
  engine: VLLM
  args: [--max-model-len=32768]
  resourceProfile: nvidia-gpu-custom:1
"""

# The same Model as an entry of KubeAI's models chart (charts/models/values.yaml `catalog:`, read as helm-values): the
# chart's template writes a Model from it (substratusai/kubeai@2f32ef49:charts/models/templates/models.yaml), whose
# spec has no node selector (api/k8s/v1/model_types.go), so the advice is the resourceProfile's.
KUBEAI_CATALOG = """\
catalog:
  llama-3.1-8b:
    enabled: true
    features: [TextGeneration]
    url: hf://meta-llama/Llama-3.1-8B-Instruct
    engine: VLLM
    args: [--max-model-len=32768]
    resourceProfile: nvidia-gpu-custom:1
"""

# ctxlint's own manifest (adapters/native.py) names the device in a role's `accelerators.type`
# (manifest.schema.json); it has no node selector.
NATIVE = """\
apiVersion: ctxlint/v1
kind: ModelDeployment
metadata: {name: m}
spec:
  model: {id: meta-llama/Llama-3.1-8B-Instruct}
  engine: {name: vllm, version: "0.8.5"}
  serving:
    roles:
      - {role: unified, context_length: 32768, accelerators: {count: 1}}
"""

# vLLM production-stack's VLLMRuntime places its pod only by `deploymentConfig.nodeSelectorTerms` (node affinity:
# vllm-project/production-stack@a6c01db0 operator/api/v1alpha1/vllmruntime_types.go, vllmruntime_controller.go),
# which adapters/crds_vllm_runtime.py does not read: written as a nodeSelector advice would have it, the device stays
# unknown.
VLLM_RUNTIME = """\
apiVersion: production-stack.vllm.ai/v1alpha1
kind: VLLMRuntime
metadata: {name: llama}
spec:
  model: {modelURL: meta-llama/Llama-3.1-8B-Instruct, maxModelLen: 32768}
  vllmConfig: {tensorParallelSize: 1}
  deploymentConfig:
    replicas: 1
    resources: {gpu: "1"}
    image: {registry: docker.io, name: vllm/vllm-openai:v0.11.0}
    nodeSelectorTerms:
      - matchExpressions:
          - {key: nvidia.com/gpu.product, operator: In, values: [NVIDIA-L4]}
"""


def _advice(tmp_path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    out = run(["check", "--isolated", "--select", "CTX208", str(path)]).out
    [line] = [line for line in out.splitlines() if "CTX208" in line and "state the device" in line]
    return line.split("state the device (", 1)[1]


@pytest.mark.parametrize("name, text, says", [
    ("llama-swap.yaml", LLAMA_SWAP, "`default-accelerator:` in .ctxlint.yaml, a device or a glob of this file's path "
     "-> device: a llama-swap config has no field that names one, and a pod that mounts it from a ConfigMap "
     "gives its device only when checked with it and mounting it at its `--config`)"),
    ("llama-swap.yaml", LLAMA_SWAP_CONFIG_MAP, "a llama-swap config has no field that names one, and a pod that "
     "mounts it from a ConfigMap gives its device only when checked with it and mounting it at its `--config`)"),
    ("task.yaml", SKYPILOT, "`resources.accelerators` in the task, such as `accelerators: H100:8` or `A100-80GB:1`, "
     "or `default-accelerator:` in .ctxlint.yaml)"),
    ("serve.yaml", RAY_SERVE, "`accelerator_type` in the LLM config, such as `accelerator_type: L4`: Ray's `A100` is "
     "either size; or `default-accelerator:` in .ctxlint.yaml)"),
    ("serving.properties", LMI, "`default-accelerator:` in .ctxlint.yaml: this file has no field that names one)"),
    ("template.yaml", CLOUDFORMATION, "the endpoint config's `ProductionVariants[].InstanceType`, such as "
     "`ml.g5.2xlarge`, as a value the template holds: a literal or its parameter's `Default`; or "
     "`default-accelerator:` in .ctxlint.yaml)"),
    ("recipe.yaml", SRT_RECIPE, "`resources.gpu_type` in the recipe, such as `gpu_type: h100` or `gb200`, or "
     "`default-accelerator:` in .ctxlint.yaml)"),
    ("model.yaml", KUBEAI, "a `resourceProfile` of KubeAI's defaults, such as `nvidia-gpu-l4:1` or "
     "`nvidia-gpu-h100:8`, or `default-accelerator:` in .ctxlint.yaml)"),
    ("values.yaml", KUBEAI_CATALOG, "a `resourceProfile` of KubeAI's defaults, such as `nvidia-gpu-l4:1` or "
     "`nvidia-gpu-h100:8`, or `default-accelerator:` in .ctxlint.yaml)"),
    ("rt.yaml", VLLM_RUNTIME, "`default-accelerator:` in .ctxlint.yaml, a device or a glob of this file's path -> "
     "device: a VLLMRuntime's `deploymentConfig.nodeSelectorTerms` are not read for its device)"),
    ("m.yaml", NATIVE, "the role's `accelerators.type` in the manifest, such as `accelerators: {type: H100, count: "
     "1}`, or `default-accelerator:` in .ctxlint.yaml)"),
])
def test_the_advice_names_a_field_the_file_has(tmp_path, name, text, says):
    advice = _advice(tmp_path, name, text)
    assert says in advice and "a nodeSelector such as" not in advice


def test_a_config_map_mounted_at_the_config_path_takes_the_pods_device(tmp_path):
    # LLAMA_SWAP_CONFIG_MAP mounts the ConfigMap at /etc/llama-swap while `--config` reads /config/config.yaml: not
    # joined (the advice above); mounted at /config, the pod's L4 is the model's device and no advice is given
    path = tmp_path / "llama-swap.yaml"
    path.write_text(LLAMA_SWAP_CONFIG_MAP.replace("mountPath: /etc/llama-swap", "mountPath: /config"))
    out = run(["check", "--isolated", "--select", "CTX208", str(path)]).out
    assert "state the device" not in out


@pytest.mark.parametrize("name, text, fixed", [
    ("task.yaml", SKYPILOT, ("  cpus: 8\n", "  accelerators: A100-80GB:1\n")),
    ("serve.yaml", RAY_SERVE, ("      engine_kwargs:\n", "      accelerator_type: L4\n      engine_kwargs:\n")),
    ("template.yaml", CLOUDFORMATION, ("    Type: String\n", "    Type: String\n    Default: ml.g5.2xlarge\n")),
    ("recipe.yaml", SRT_RECIPE, ("resources:\n", "resources:\n  gpu_type: gb200\n")),
    ("model.yaml", KUBEAI, ("nvidia-gpu-custom:1", "nvidia-gpu-l4:1")),
    ("values.yaml", KUBEAI_CATALOG, ("nvidia-gpu-custom:1", "nvidia-gpu-l4:1")),
    ("m.yaml", NATIVE, ("{count: 1}", "{type: H100, count: 1}")),
])
def test_following_the_advice_states_the_device(tmp_path, name, text, fixed):
    """The field each piece of advice names is one ctxlint reads: written as it says, the role has its device."""
    path = tmp_path / name
    path.write_text(text.replace(*fixed))
    out = run(["check", "--isolated", "--select", "CTX208", str(path)]).out
    assert "state the device" not in out and "no accelerator type" not in out


def test_a_default_accelerator_glob_for_the_llama_swap_file_is_read(tmp_path):
    """The llama-swap advice's way works: a glob of the file's path in .ctxlint.yaml gives its models the device."""
    (tmp_path / "llama-swap.yaml").write_text(LLAMA_SWAP)
    (tmp_path / ".ctxlint.yaml").write_text(textwrap.dedent("""\
        default-accelerator:
          "**/llama-swap.yaml": L4
        """))
    out = run(["check", "--select", "CTX208", "--config", str(tmp_path / ".ctxlint.yaml"),
               str(tmp_path / "llama-swap.yaml")]).out
    assert "state the device" not in out and "no accelerator type" not in out
