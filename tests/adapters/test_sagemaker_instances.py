"""SageMaker's `ml.<EC2 type>` instance names (HyperPod's EKS node label values, SageMaker configs) name the device of
the EC2 type they are (adapters/instance_types.py INSTANCE_FAMILIES), wherever an instance type is read."""
from __future__ import annotations

from ctxlint.adapters.hardware import canonical_type
from ctxlint.neuron import neuron_instance
from tests.adapters.kit import adapt, at

POD = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: qwen}
spec:
  template:
    spec:
      PLACEMENT
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.10.1
        args: [--model, Qwen/Qwen2.5-7B-Instruct, --tensor-parallel-size, "4"]
        resources: {limits: {nvidia.com/gpu: 4}}
"""


def _device(placement: str):
    text = POD.replace("PLACEMENT", placement)
    (role,) = [r for d in adapt(text).deployments for r in d.roles]
    kind = role.accelerators.type
    return (kind.value, kind.raw, at(text, kind.source)) if kind is not None else None, role.neuron


def test_each_sagemaker_family_is_its_ec2_family():
    expected = {"ml.g4dn.12xlarge": "T4", "ml.g5.12xlarge": "A10G", "ml.g6.48xlarge": "L4", "ml.g6e.12xlarge": "L40S",
                "ml.p4d.24xlarge": "A100-40GB", "ml.p4de.24xlarge": "A100-80GB", "ml.p5.48xlarge": "H100",
                "ml.p5e.48xlarge": "H200", "ml.p5en.48xlarge": "H200", "ML.G5.2XLARGE": "A10G"}
    got = {name: canonical_type(name) for name in expected}
    assert got == {name: (device, name) for name, device in expected.items()}
    # a name that only looks like one (no EC2 family after the prefix), and the Neuron families, name no GPU
    assert canonical_type("ml.m5.xlarge") == ("ml.m5.xlarge", "ml.m5.xlarge")
    assert canonical_type("xml.g5.xlarge") == ("xml.g5.xlarge", "xml.g5.xlarge")
    assert [neuron_instance(n) for n in ("ml.inf2.24xlarge", "ml.trn1.32xlarge", "inf2.xlarge", "ml.g5.xlarge",
                                         "mlinf2.xlarge")] == [True, True, True, False, False]


def test_hyperpod_node_label_and_affinity_name_the_device():
    selector = "nodeSelector: {node.kubernetes.io/instance-type: ml.g5.12xlarge}"
    assert _device(selector) == (("A10G", "ml.g5.12xlarge", "ml.g5.12xlarge"), None)
    affinity = """affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms:
            - matchExpressions:
              - {key: node.kubernetes.io/instance-type, operator: In, values: [ml.p5e.48xlarge, ml.p5en.48xlarge]}"""
    assert _device(affinity) == (("H200", "ml.p5e.48xlarge", "ml.p5e.48xlarge"), None)
    kind, neuron = _device("nodeSelector: {node.kubernetes.io/instance-type: ml.inf2.24xlarge}")
    assert kind == ("ml.inf2.24xlarge", "ml.inf2.24xlarge", "ml.inf2.24xlarge")
    assert (neuron.value, neuron.raw) == ("neuron", "ml.inf2.24xlarge")
