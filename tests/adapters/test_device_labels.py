"""Device types from node selectors and required node affinity, standard labels and vendors' own."""
from __future__ import annotations

import pytest

from tests.adapters.kit import adapt, at

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: m
spec:
  template:
    spec:
{placement}
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.10.1
          args: ["--model", "Qwen/Qwen3-8B", "--max-model-len", "32768"]
          resources:
            limits:
              nvidia.com/gpu: 1
"""


def _affinity(key: str, value: str) -> str:
    return ("      affinity:\n        nodeAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n"
            "            nodeSelectorTerms:\n            - matchExpressions:\n"
            f"              - key: {key}\n                operator: In\n                values:\n"
            f"                - {value}\n")


_TERM = ("            - matchExpressions:\n              - key: {key}\n                operator: In\n"
         "                values:\n                - {value}\n")


def _selector(key: str, value: str) -> str:
    return f"      nodeSelector:\n        {key}: {value}\n"


@pytest.mark.parametrize("placement,device,written", [
    (_selector("nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB"), "A100-SXM4-80GB", "NVIDIA-A100-SXM4-80GB"),
    (_affinity("nvidia.com/gpu.product", "NVIDIA-L40S"), "L40S", "NVIDIA-L40S"),
    # AMD's node labeller: the product name from sysfs, spaces as `_` (sweep 10: no verdict before)
    (_selector("amd.com/gpu.product-name", "AMD_Instinct_MI300X_OAM"), "MI300X", "AMD_Instinct_MI300X_OAM"),
    (_affinity("beta.amd.com/gpu.product-name", "AMD_Instinct_MI325X_OAM"), "MI325X", "AMD_Instinct_MI325X_OAM"),
    # Volcano Engine (AIBrix's heterogeneous sample) and Alibaba name devices under their own labels
    (_affinity("machine.cluster.vke.volcengine.com/gpu-name", "NVIDIA-A10"), "A10", "NVIDIA-A10"),
    (_selector("aliyun.accelerator/nvidia_name", "NVIDIA-H100-80GB-HBM3"), "H100-SXM-80GB", "NVIDIA-H100-80GB-HBM3"),
    # sweep 11: CoreWeave's class label (coreweave/kubernetes-cloud online-inference/vllm); NVLINK is its SXM part
    (_affinity("gpu.nvidia.com/class", "H100_NVLINK_80GB"), "H100-SXM-80GB", "H100_NVLINK_80GB"),
    (_selector("gpu.nvidia.com/class", "A100_NVLINK_80GB"), "A100-SXM4-80GB", "A100_NVLINK_80GB"),
    # sweep 11: EKS Auto Mode's label, and instance types of AWS P6, Azure NCasT4_v3 and Oracle Cloud's GPU shapes
    (_selector("eks.amazonaws.com/instance-gpu-name", "a10g"), "A10G", "a10g"),
    (_selector("node.kubernetes.io/instance-type", "p6-b200.48xlarge"), "B200", "p6-b200.48xlarge"),
    (_selector("node.kubernetes.io/instance-type", "Standard_NC4as_T4_v3"), "T4", "Standard_NC4as_T4_v3"),
    (_selector("node.kubernetes.io/instance-type", "VM.GPU.A10.1"), "A10", "VM.GPU.A10.1"),
    (_affinity("node.kubernetes.io/instance-type", "BM.GPU.H100.8"), "H100", "BM.GPU.H100.8"),
    # sweep 29: Karpenter's and EKS Auto Mode's instance family labels (aws-samples/sample-genai-on-eks-starter-kit:
    # 24 of its 26 GPU models); a family whose every size carries the same GPU names it
    (_selector("karpenter.k8s.aws/instance-family", "g6e"), "L40S", "g6e"),
    (_selector("eks.amazonaws.com/instance-family", "p5en"), "H200", "p5en"),
    (_selector("karpenter.k8s.aws/instance-family", "P4DE"), "A100-80GB", "P4DE"),
    (_affinity("karpenter.k8s.aws/instance-family", "g6"), "L4", "g6"),
    # several values are any one of them: one device when all name it
    (_affinity("eks.amazonaws.com/instance-family", "p5e\n                - p5en"), "H200", "p5e"),
    (_affinity("node.kubernetes.io/instance-type", "g5.xlarge\n                - g5.12xlarge"), "A10G", "g5.xlarge"),
    # ORed terms that name one device (two spellings of it) name it
    (_affinity("node.kubernetes.io/instance-type", "p5.48xlarge") +
     _TERM.format(key="karpenter.k8s.aws/instance-gpu-name", value="h100"), "H100", "p5.48xlarge"),
    # a vendor label naming a family sold in two sizes names any of them (a band), never one size assumed
    (_affinity("machine.cluster.vke.volcengine.com/gpu-name", "Tesla-V100"),
     "V100 (16 or 32 GB: the label names no size)", "Tesla-V100"),
    (_selector("example.com/gpu-name", "A100"), "A100 (40 or 80 GB: the label names no size)", "A100"),
    (_selector("example.com/gpu-name", "Tesla-P100"), "P100 (12 or 16 GB: the label names no size)",  # 16/12 GB
     "Tesla-P100"),
])
def test_device_from_labels(placement, device, written):
    text = DEPLOYMENT.format(placement=placement)
    [dep] = adapt(text).deployments
    acc = dep.roles[0].accelerators
    assert (acc.type.value, at(text, acc.type.source)) == (device, written)


@pytest.mark.parametrize("placement", [
    # a vendor label is read only for a device of the catalog: odd values invent nothing
    _selector("example.com/gpu-type", "banana"),
    # labels that are not device labels
    _selector("example.com/gpu-count", "NVIDIA-A10"),
    _affinity("kubernetes.io/hostname", "gpu-node-01"),
    # families with no one GPU (g6f: a fraction of an L4 by size), one the catalog lacks (g5g: T4G), Neuron's,
    # and a size written as a family
    _selector("karpenter.k8s.aws/instance-family", "g6f"),
    _selector("karpenter.k8s.aws/instance-family", "g5g"),
    _selector("eks.amazonaws.com/instance-family", "inf2"),
    _selector("karpenter.k8s.aws/instance-family", "g6e.xlarge"),
    # an any-of over different devices is not narrowed to one of them
    _affinity("karpenter.k8s.aws/instance-family", "g6e\n                - p5"),
    _affinity("node.kubernetes.io/instance-type", "g6e.xlarge\n                - g5.xlarge"),
    _affinity("karpenter.k8s.aws/instance-family", "g6e\n                - g5g"),
    # nodeSelectorTerms are ORed (kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node): terms of other
    # devices, or a term that names none, leave the pod on any of them
    _affinity("nvidia.com/gpu.product", "NVIDIA-L4") + _TERM.format(key="nvidia.com/gpu.product", value="NVIDIA-A10G"),
    _affinity("nvidia.com/gpu.product", "NVIDIA-L4") + _TERM.format(key="karpenter.sh/capacity-type", value="spot"),
])
def test_labels_that_do_not_name_one_device(placement):
    [dep] = adapt(DEPLOYMENT.format(placement=placement)).deployments
    assert dep.roles[0].accelerators.type is None


TPU = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm-tpu}
spec:
  template:
    spec:
      nodeSelector:
        cloud.google.com/gke-tpu-accelerator: DEVICE
        cloud.google.com/gke-tpu-topology: 2x2x1
      containers:
      - name: vllm-tpu
        image: vllm/vllm-tpu:nightly
        args: [--model=google/gemma-3-27b-it, --max-model-len=8192, --tensor-parallel-size=TP]
        resources:
          limits: {google.com/tpu: '4'}
"""


def test_a_tpu7x_chip_is_two_engine_devices():
    # google.com/tpu counts chips; TPU7x has two TensorCores and no megacore, so JAX and vLLM see 8
    # devices on 4 chips (AI-Hypercomputer/tpu-recipes serves TP 8 on a 4-chip tpu7x-standard-4t node)
    text = TPU.replace("DEVICE", "tpu7x").replace("TP]", "8]")
    [role] = adapt(text).deployments[0].roles
    assert (role.accelerators.type.value, role.accelerators.count.value) == ("TPU-7x", 8)
    assert role.accelerators.count.raw == "4 TPU-7x chips x 2 TensorCores" and at(text, role.accelerators.count.source) == "'4'"
    for device in ("tpu-v6e-slice", "tpu-v5p-slice"):  # one device a chip (v5p: megacore)
        [role] = adapt(TPU.replace("DEVICE", device).replace("TP]", "8]")).deployments[0].roles
        assert role.accelerators.count.value == 4, device


def test_ctx204_counts_tpu7x_devices(tmp_path):
    from helpers import run

    path = tmp_path / "d.yaml"
    path.write_text(TPU.replace("DEVICE", "tpu7x").replace("TP]", "16]"))
    out = run(["check", str(path), "--select", "CTX204"]).out
    assert ":13:92: CTX204 [error] 16 > 8: the unified engine needs tensor x pipeline x data = 16 GPUs but a replica " \
           "has 8 (4 TPU-7x chips x 2 TensorCores)" in out, out
    path.write_text(TPU.replace("DEVICE", "tpu7x").replace("TP]", "8]"))
    assert run(["check", str(path), "--select", "CTX204"]).out == ""


NEURON = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: mistral-neuron}
spec:
  template:
    spec:
      nodeSelector: {node.kubernetes.io/instance-type: trn1.2xlarge}
      containers:
        - name: vllm
          image: public.ecr.aws/neuron/pytorch-inference-vllm-neuronx:0.9.1
          command: [vllm, serve, mistralai/Mistral-7B-Instruct-v0.2, --device, neuron, --tensor-parallel-size, "2"]
          resources: {limits: {RESOURCE: 1}}
"""


def test_a_neuron_device_count_is_not_in_the_engines_unit(tmp_path):
    # aws-samples gen-ai-on-eks: one trn1 device (two NeuronCores) serves vLLM at TP 2, which counts
    # NeuronCores; a device count is not comparable with it, a neuroncore count is
    from helpers import run

    path = tmp_path / "d.yaml"
    for resource, count in (("aws.amazon.com/neuron", None), ("aws.amazon.com/neurondevice", None),
                            ("aws.amazon.com/neuroncore", 1)):
        [role] = adapt(NEURON.replace("RESOURCE", resource)).deployments[0].roles
        assert (role.accelerators.count.value if role.accelerators.count else None) == count, resource
    path.write_text(NEURON.replace("RESOURCE", "aws.amazon.com/neuron"))
    assert run(["check", str(path), "--select", "CTX204,CTX205"]).out == ""
    path.write_text(NEURON.replace("RESOURCE", "aws.amazon.com/neuroncore"))
    assert "CTX204 [error] 2 > 1" in run(["check", str(path), "--select", "CTX204"]).out
