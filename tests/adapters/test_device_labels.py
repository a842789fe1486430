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


def _selector(key: str, value: str) -> str:
    return f"      nodeSelector:\n        {key}: {value}\n"


@pytest.mark.parametrize("placement,device,written", [
    (_selector("nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB"), "A100-SXM4-80GB", "NVIDIA-A100-SXM4-80GB"),
    (_affinity("nvidia.com/gpu.product", "NVIDIA-L40S"), "L40S", "NVIDIA-L40S"),
    # Volcano Engine (AIBrix's heterogeneous sample) and Alibaba name devices under their own labels
    (_affinity("machine.cluster.vke.volcengine.com/gpu-name", "NVIDIA-A10"), "A10", "NVIDIA-A10"),
    (_selector("aliyun.accelerator/nvidia_name", "NVIDIA-H100-80GB-HBM3"), "H100-SXM-80GB", "NVIDIA-H100-80GB-HBM3"),
])
def test_device_from_labels(placement, device, written):
    text = DEPLOYMENT.format(placement=placement)
    [dep] = adapt(text).deployments
    acc = dep.roles[0].accelerators
    assert (acc.type.value, at(text, acc.type.source)) == (device, written)


@pytest.mark.parametrize("placement", [
    # a vendor label naming a family sold in two sizes says too little to assume one
    _affinity("machine.cluster.vke.volcengine.com/gpu-name", "Tesla-V100"),
    _selector("example.com/gpu-name", "A100"),
    # a vendor label is read only for a device of the catalog: odd values invent nothing
    _selector("example.com/gpu-type", "banana"),
    # labels that are not device labels
    _selector("example.com/gpu-count", "NVIDIA-A10"),
    _affinity("kubernetes.io/hostname", "gpu-node-01"),
])
def test_labels_that_do_not_name_one_device(placement):
    [dep] = adapt(DEPLOYMENT.format(placement=placement)).deployments
    assert dep.roles[0].accelerators.type is None
