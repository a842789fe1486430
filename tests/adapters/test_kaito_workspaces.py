"""KAITO workspaces as KAITO runs them: the node count of its estimate (not `resource.count`) and
`resource.partition` (a MIG slice, or N GPUs of a BYO node)."""
from __future__ import annotations

import pytest

from helpers import run
from ctxlint.engine import lint_paths
from tests.adapters.kit import adapt, at


QWEN = """\
apiVersion: kaito.sh/v1beta1
kind: Workspace
metadata:
  name: coder
resource:
  instanceType: Standard_NC24ads_A100_v4
  labelSelector:
    matchLabels: {apps: coder}
inference:
  preset:
    name: qwen2.5-coder-32b-instruct
"""


def test_a_workspace_whose_node_count_the_file_cannot_settle(tmp_path):
    result = adapt(QWEN)
    [role] = result.deployments[0].roles
    assert role.parallelism.tp == 1 and role.parallelism.pipeline is None
    assert role.accelerators.type is None and role.accelerator_withheld.value == "A100-SXM4-80GB"
    (tmp_path / "w.yaml").write_text(QWEN)
    out = run(["check", str(tmp_path / "w.yaml")]).out
    # not "the engine would not start" on one node: what runs depends on the KAITO release
    assert "CTX210" not in out
    assert f"{tmp_path / 'w.yaml'}:6:17: CTX008 [info] values ctxlint cannot resolve: the nodes KAITO runs " \
           "qwen2.5-coder-32b-instruct on (KAITO v0.5.0 to v0.10.x: 1 node; KAITO v0.11.0 and later: 2 nodes; " \
           "the file does not say which release runs it)" in out
    assert "CTX208 [info] KV pool of unified not declared and not derivable: the device is stated " \
           "(A100-SXM4-80GB) but a parallel size is not known" in out


def test_an_inference_set_runs_on_kaitos_estimate_not_resource_count():
    iset = QWEN.replace("kind: Workspace", "kind: InferenceSet").replace(
        "resource:\n  instanceType: Standard_NC24ads_A100_v4\n  labelSelector:\n    matchLabels: {apps: coder}\n"
        "inference:\n  preset:\n    name: qwen2.5-coder-32b-instruct\n",
        "spec:\n  replicas: 2\n  template:\n    resource:\n      instanceType: Standard_NC24ads_A100_v4\n"
        "    inference:\n      preset:\n        name: qwen2.5-coder-32b-instruct\n")
    [role] = adapt(iset).deployments[0].roles
    pp, count = role.parallelism.pipeline, role.accelerators.count
    assert (role.parallelism.tp, pp.value, at(iset, pp.source)) == (1, 2, "Standard_NC24ads_A100_v4")
    assert (count.value, count.raw) == (2, "1 per node x 2 nodes (KAITO's node estimate)")
    assert (role.accelerators.type.value, role.replicas.value) == ("A100-SXM4-80GB", 2)
    # a preset only releases with the estimate have: 5 nodes of 2 GPUs, whatever the count says
    v3 = QWEN.replace("Standard_NC24ads_A100_v4", "Standard_NC80adis_H100_v5").replace(
        "qwen2.5-coder-32b-instruct", "mistral-large-3-675b-instruct").replace("resource:\n", "resource:\n  count: 6\n")
    [role] = adapt(v3).deployments[0].roles
    assert (role.parallelism.tp, role.parallelism.pp, role.accelerators.count.value) == (2, 5, 10)
    assert role.accelerators.count.raw.endswith("; resource.count 6 is not used)")
    assert at(v3, role.parallelism.pipeline.source) == "Standard_NC80adis_H100_v5"


MIG = """\
apiVersion: kaito.sh/v1beta1
kind: Workspace
metadata:
  name: sliced
resource:
  labelSelector:
    matchLabels:
      nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB
  partition:
    mode: mig
    profile: 3g.40gb
inference:
  preset:
    name: llama-3.1-8b-instruct
"""


def test_a_mig_partition_is_one_slice(tmp_path):
    [role] = adapt(MIG).deployments[0].roles
    acc = role.accelerators
    assert (acc.type.value, acc.count.value, role.parallelism.tp) == ("A100-80GB-MIG-3g.40gb", 1, 1)
    assert at(MIG, acc.type.source) == "3g.40gb" and role.parallelism.pipeline is None
    (tmp_path / "m.yaml").write_text(MIG)
    [dep] = lint_paths([str(tmp_path / "m.yaml")]).deployments
    assert dep.roles[0].pool.origin == "derived"  # sized on the slice, not on the whole card
    # without the card the profile is an A100-80GB's or an H100's: kept as written
    [bare] = adapt(MIG.replace("      nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB\n", "      apps: x\n"))\
        .deployments[0].roles
    assert bare.accelerators.type.value == "MIG-3g.40gb"
    # a model that needs more than one slice: KAITO runs nothing, said at the profile
    big = adapt(MIG.replace("llama-3.1-8b-instruct", "llama-3.3-70b-instruct"))
    assert big.deployments == []
    [diag] = big.diagnostics
    assert (diag.kind, diag.source.line, diag.source.col) == ("unresolved-value", 11, 14)
    assert diag.message.startswith("KAITO runs no llama-3.3-70b-instruct here (KAITO refuses it: the model needs 5 "
                                   "slices and a MIG partition is one)")


def test_an_accelerator_partition_sets_the_tensor_parallel_size():
    text = MIG.replace("    mode: mig\n    profile: 3g.40gb\n", "    mode: accelerator\n    count: 4\n").replace(
        "NVIDIA-A100-SXM4-80GB", "NVIDIA-H100-80GB-HBM3").replace("llama-3.1-8b", "llama-3.3-70b")
    result = adapt(text)
    [role] = result.deployments[0].roles
    assert (role.parallelism.tp, at(text, role.parallelism.tensor.source)) == (4, "4")
    assert role.accelerator_withheld.value == "H100-SXM-80GB"  # the node count is the BYO nodes' to decide
    [diag] = [d for d in result.diagnostics if d.kind == "unresolved-value"]
    assert (diag.source.line, diag.source.col) == (11, 12)
    assert "it sizes it from the GPU memory its BYO nodes report" in diag.message


@pytest.mark.parametrize("partition,message", [
    ("  instanceType: Standard_NC24ads_A100_v4\n  partition: {mode: mig, profile: 3g.40gb}\n",
     "resource.partition needs BYO nodes and resource.instanceType node auto-provisioning"),
    ("  partition: {mode: slices}\n", "partition.mode 'slices' is neither mig nor accelerator"),
    ("  partition: {mode: mig}\n", "a MIG partition needs partition.profile"),
    ("  partition: {mode: accelerator, count: 0}\n", "an accelerator partition needs partition.count >= 1"),
])
def test_partitions_kaito_refuses(partition, message):
    text = MIG.replace("  partition:\n    mode: mig\n    profile: 3g.40gb\n", partition)
    result = adapt(text)
    assert result.deployments == []
    [diag] = result.diagnostics
    assert diag.message.startswith(message)


def test_odd_kaito_resources_never_crash():
    for odd in ("  partition: x\n", "  partition: [1]\n", "  partition: {mode: mig, profile: [1]}\n",
                "  partition: {mode: accelerator, count: many}\n", "  count: many\n", "  count: -3\n",
                "  partition: {mode: mig, profile: 99g.1.2.3gb}\n", "  instanceType: [1]\n"):
        adapt(MIG.replace("  partition:\n    mode: mig\n    profile: 3g.40gb\n", odd))
        adapt(QWEN.replace("resource:\n", "resource:\n" + odd))


def test_an_inference_sets_node_selector_names_the_card_of_its_slices():
    text = """\
apiVersion: kaito.sh/v1beta1
kind: InferenceSet
metadata:
  name: sliced
spec:
  replicas: 2
  labelSelector:
    matchLabels: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}
  template:
    resource:
      partition: {mode: mig, profile: 3g.40gb}
    inference:
      preset: {name: phi-4-mini-instruct}
"""
    [role] = adapt(text).deployments[0].roles
    assert (role.accelerators.type.value, role.replicas.value, role.parallelism.tp) == ("H100-MIG-3g.40gb", 2, 1)


def test_a_t4_size_names_its_device_and_runs_where_kaito_does(tmp_path):
    # sweep k32: jimmyshah83/aks-ai-accelerator@HEAD k8s/kaito-workspace.yaml (phi-3-mini-4k-instruct on
    # Standard_NC8as_T4_v3) was CTX208 "no accelerator type ... is given", the instanceType right there. KAITO's SKU
    # table lists the T4 sizes up to v0.11.0 (1 node here in each); v0.12.0 dropped them (kaito-project/kaito#2185)
    # and its node estimate then fails, so it runs nothing: the releases that run it agree on 1 node
    text = QWEN.replace("Standard_NC24ads_A100_v4", "Standard_NC8as_T4_v3").replace(
        "qwen2.5-coder-32b-instruct", "phi-3-mini-4k-instruct")
    [role] = adapt(text).deployments[0].roles
    assert role.accelerators.type.value == "T4" and at(text, role.accelerators.type.source) == "Standard_NC8as_T4_v3"
    assert role.parallelism.tp == 1 and role.parallelism.pp == 1
    (tmp_path / "w.yaml").write_text(text)
    out = run(["check", str(tmp_path / "w.yaml")]).out
    assert "CTX208" not in out and "no accelerator type" not in out


def test_a_size_ctxlint_does_not_record_is_named_not_asked_for(tmp_path):
    # Standard_NG32ads_V620_v1, an AMD V620 size of KAITO's SKU table (v0.5.0 to v0.12.0), whose GPU the catalog
    # lacks; CTX208 said "no accelerator type ... is given" and asked for a nodeSelector
    text = QWEN.replace("Standard_NC24ads_A100_v4", "Standard_NG32ads_V620_v1").replace(
        "qwen2.5-coder-32b-instruct", "phi-3-mini-4k-instruct")
    [role] = adapt(text).deployments[0].roles
    assert role.device_vm.value == "Standard_NG32ads_V620_v1" and \
        at(text, role.device_vm.source) == "Standard_NG32ads_V620_v1"
    (tmp_path / "w.yaml").write_text(text)
    out = run(["check", str(tmp_path / "w.yaml")]).out
    assert "no accelerator type" not in out and "a nodeSelector" not in out
    assert "not derivable: the VM size Standard_NG32ads_V620_v1 names no device ctxlint records; holding one " \
        "request" in out
    assert f"resource.instanceType Standard_NG32ads_V620_v1 ({tmp_path / 'w.yaml'}:6:17) is not among the sizes " \
           "whose GPUs ctxlint records (most of KAITO's SKU table; not its AMD V620, MI25 and NVIDIA M60 sizes, " \
           "whose GPUs the catalog lacks)" in out
    # KAITO's README example's Standard_NC6s_v3 (a V100 size until v0.8.x, kaito-project/kaito#1780) is recorded
    v100 = adapt(text.replace("Standard_NG32ads_V620_v1", "Standard_NC6s_v3")).deployments[0].roles[0]
    assert v100.device_vm is None and (v100.accelerators.type.value, v100.accelerators.count.value) == (
        "V100-16GB", 1)
    # a pod template on such a size: the same
    tpl = text.replace("  preset:\n    name: phi-3-mini-4k-instruct\n", "  template:\n    spec:\n      containers:\n"
                       "        - name: m\n          image: vllm/vllm-openai:v0.8.5\n          args: [--model, "
                       "microsoft/Phi-3-mini-4k-instruct]\n          resources: {limits: {nvidia.com/gpu: 1}}\n")
    [role] = adapt(tpl).deployments[0].roles
    assert role.device_vm.value == "Standard_NG32ads_V620_v1"
    # a known size, or a reference a tool fills in, is no such size
    assert adapt(QWEN).deployments[0].roles[0].device_vm is None
    ref = text.replace("Standard_NG32ads_V620_v1", "${INSTANCE_TYPE}")
    assert adapt(ref).deployments[0].roles[0].device_vm is None
