"""A pod that selects a Karpenter NodePool by name gets the device that NodePool's requirements name.

Modelled on OchiShuji/vllm-eks: manifests/01-gpu-nodepool.yaml (a `karpenter.sh/v1` NodePool `gpu-nodepool` of EKS
Auto Mode, `eks.amazonaws.com/instance-family In [g4dn]`) and manifests/02-vllm-deployment.yaml (vLLM with
`nodeSelector: {karpenter.sh/nodepool: gpu-nodepool}`); and on isrealei/vllm-eks-inference-platform:
infra-live/karpenter/nodepool-gpu.yaml (`karpenter.k8s.aws/instance-family In [g5, g6]`: A10G or L4, no one device).
Karpenter labels its nodes with the NodePool's name (kubernetes-sigs/karpenter@046bcdae:pkg/apis/v1/labels.go).
"""
from __future__ import annotations

from ctxlint.engine import lint_paths
from ctxlint.physics.accelerators import lookup_accelerator
from helpers import run

POOL = """\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: gpu-nodepool
spec:
  template:
    metadata:
      labels: {{workload-type: gpu-nodepool}}
    spec:
      requirements:
        - key: karpenter.sh/capacity-type
          operator: In
          values: ["spot", "on-demand"]
{terms}"""
G4DN = """\
        - key: eks.amazonaws.com/instance-family
          operator: In
          values: ["g4dn"]
"""
G5_OR_G6 = """\
        - key: karpenter.k8s.aws/instance-family
          operator: In
          values: ["g5", "g6"]
"""
A10G_NAME = """\
        - key: karpenter.k8s.aws/instance-gpu-name
          operator: In
          values: ["a10g"]
"""
DEPLOY = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm}
spec:
  template:
    spec:
      nodeSelector:
        karpenter.sh/nodepool: gpu-nodepool
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.8.3
        args: [--model, meta-llama/Llama-3.1-8B-Instruct, --max-model-len, "8192"]
        resources: {limits: {nvidia.com/gpu: "1"}}
"""


def _tree(root, deploy: str = DEPLOY, **pools: str) -> None:
    (root / "karpenter").mkdir()
    (root / "app").mkdir()
    for name, text in pools.items():
        (root / "karpenter" / f"{name}.yaml").write_text(text)
    (root / "app" / "deploy.yaml").write_text(deploy)


def _role(paths):
    [dep] = lint_paths([str(p) for p in paths]).deployments
    [role] = dep.roles
    return role


def _device(paths):
    return _role(paths).accelerators.type


def test_a_nodepool_of_one_instance_family_names_its_gpu(tmp_path, monkeypatch):
    _tree(tmp_path, gpu=POOL.format(terms=G4DN))
    monkeypatch.chdir(tmp_path)
    device = _device(["."])
    assert (device.value, device.raw, device.source.file, device.source.line, device.source.col) == \
        ("T4", "g4dn", "karpenter/gpu.yaml", 16, 20)
    # Llama-3.1-8B's bf16 weights do not leave a T4 room for a KV block: the error is at the NodePool's family
    out = run(["check", "--select", "CTX209", "."]).out
    assert out.splitlines() == [
        "karpenter/gpu.yaml:16:20: CTX209 [error] -2.92 GiB < one KV block (at most -2.24 GiB with every estimated "
        "term at its smallest): the unified engine has no memory left for the KV cache on T4 (instance memory 13.27 "
        "GiB - weights 14.96 GiB - activation peak 0.53 GiB - non-torch 0.70 GiB; vLLM 0.8.3 V1: profile of 2048 "
        "tokens x 256 sequences), so it will not start. Use more or larger accelerators, more tensor parallelism, a "
        "quantized checkpoint, or a higher memory fraction; if the engine does start, state the KV memory it logs "
        "(the ctxlint.io/available-kv-gib or ctxlint.io/kv-pool-tokens annotations) (no-memory-for-kv-cache)"]


def test_families_of_different_gpus_name_no_device_and_ctx208_says_why(tmp_path, monkeypatch):
    _tree(tmp_path, gpu=POOL.format(terms=G5_OR_G6))
    monkeypatch.chdir(tmp_path)
    role = _role(["."])
    assert role.accelerators.type is None
    assert (role.device_pool.value, role.device_pool.source.line, role.device_pool.source.col) == \
        ("gpu-nodepool", 8, 32)
    out = run(["check", "--select", "CTX208", "."]).out
    assert ("; the pod selects the Karpenter NodePool 'gpu-nodepool' (app/deploy.yaml:8:32), but the NodePool "
            "'gpu-nodepool' (karpenter/gpu.yaml:1) allows instance types of different GPUs (A10G, L4): Karpenter may "
            "launch any of them: state the device beside it (node.kubernetes.io/instance-type or "
            "karpenter.k8s.aws/instance-gpu-name, or `default-accelerator:` in .ctxlint.yaml); capacity checks skip "
            "these roles (capacity-not-derivable)") in out


def test_a_gpu_name_term_narrows_the_families_beside_it(tmp_path, monkeypatch):
    # the terms hold together: g5 or g6, with an A10G, is a g5
    _tree(tmp_path, gpu=POOL.format(terms=G5_OR_G6 + A10G_NAME))
    monkeypatch.chdir(tmp_path)
    device = _device(["."])
    assert (device.value, device.raw, device.source.line) == ("A10G", "a10g", 19)


def test_terms_on_different_gpus_name_no_device(tmp_path, monkeypatch):
    _tree(tmp_path, gpu=POOL.format(terms=G4DN + A10G_NAME))  # no instance type meets both
    monkeypatch.chdir(tmp_path)
    role = _role(["."])
    assert role.accelerators.type is None
    assert role.device_pool.raw == ("the requirements of the NodePool 'gpu-nodepool' (karpenter/gpu.yaml:1) name "
                                    "different GPUs (T4, A10G), which no instance type has together")


def test_a_nodepool_no_checked_file_defines_leaves_the_device_unknown(tmp_path, monkeypatch):
    _tree(tmp_path, gpu=POOL.format(terms=G4DN))
    monkeypatch.chdir(tmp_path)
    assert _device(["app/deploy.yaml"]) is None
    assert ("; the pod selects the Karpenter NodePool 'gpu-nodepool' (app/deploy.yaml:8:32), but no checked file "
            "defines the NodePool 'gpu-nodepool': check the file that defines it together with this one, or state "
            "the device beside it") in run(["check", "app/deploy.yaml"]).out


def test_node_affinity_on_the_nodepool_label(tmp_path, monkeypatch):
    affinity = DEPLOY.replace(
        "      nodeSelector:\n        karpenter.sh/nodepool: gpu-nodepool\n",
        "      affinity:\n        nodeAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n"
        "            nodeSelectorTerms:\n            - matchExpressions:\n"
        "              - {key: karpenter.sh/nodepool, operator: In, values: [gpu-nodepool]}\n")
    _tree(tmp_path, affinity, gpu=POOL.format(terms=G4DN))
    monkeypatch.chdir(tmp_path)
    assert _device(["."]).value == "T4"


def test_a_nodepool_defined_twice_differently_names_no_device(tmp_path, monkeypatch):
    _tree(tmp_path, a=POOL.format(terms=G4DN), b=POOL.format(terms=A10G_NAME))
    monkeypatch.chdir(tmp_path)
    role = _role(["."])
    assert role.accelerators.type is None
    assert role.device_pool.raw == ("the NodePool 'gpu-nodepool' is defined 2 times, differently "
                                    "(karpenter/a.yaml:1, karpenter/b.yaml:1)")


def test_a_nodepool_defined_twice_alike_is_one(tmp_path, monkeypatch):
    _tree(tmp_path, a=POOL.format(terms=G4DN), b=POOL.format(terms=G4DN))
    monkeypatch.chdir(tmp_path)
    device = _device(["."])
    assert (device.value, device.source.file) == ("T4", "karpenter/a.yaml")


def test_a_nodepool_of_no_device_term_names_none(tmp_path, monkeypatch):
    _tree(tmp_path, gpu=POOL.format(terms=""))  # a capacity-type term only
    monkeypatch.chdir(tmp_path)
    assert _role(["."]).device_pool.raw == (
        "the NodePool 'gpu-nodepool' (karpenter/gpu.yaml:1) names no GPU ctxlint knows (an `In` requirement on an "
        "instance type, family or GPU name whose values carry one GPU)")


def test_a_node_pool_of_another_api_group_is_not_karpenter_s(tmp_path, monkeypatch):
    other = POOL.format(terms=G4DN).replace("apiVersion: karpenter.sh/v1", "apiVersion: example.com/v1")
    _tree(tmp_path, gpu=other)
    monkeypatch.chdir(tmp_path)
    assert _device(["."]) is None


def test_a_device_label_beside_the_nodepool_wins(tmp_path, monkeypatch):
    beside = DEPLOY.replace("        karpenter.sh/nodepool: gpu-nodepool\n",
                            "        karpenter.sh/nodepool: gpu-nodepool\n"
                            "        node.kubernetes.io/instance-type: g6.xlarge\n")
    _tree(tmp_path, beside, gpu=POOL.format(terms=G4DN))
    monkeypatch.chdir(tmp_path)
    device = _device(["."])
    assert (device.value, device.source.file) == ("L4", "app/deploy.yaml")


def test_an_affinity_term_that_names_no_nodepool_leaves_the_pod_anywhere(tmp_path, monkeypatch):
    # nodeSelectorTerms are ORed (kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node, "If you specify
    # multiple terms in nodeSelectorTerms ... the Pod can be scheduled onto a node if one of the specified terms can
    # be satisfied"): a term without `karpenter.sh/nodepool In` lets the pod run on a node of any NodePool, so the
    # NodePool of the other term names no device
    terms = ("            - matchExpressions:\n"
             "              - {key: karpenter.sh/nodepool, operator: In, values: [gpu-nodepool]}\n"
             "            - matchExpressions:\n"
             "              - {key: karpenter.sh/capacity-type, operator: In, values: [spot]}\n")
    affinity = DEPLOY.replace(
        "      nodeSelector:\n        karpenter.sh/nodepool: gpu-nodepool\n",
        "      affinity:\n        nodeAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n"
        "            nodeSelectorTerms:\n" + terms)
    _tree(tmp_path, affinity, gpu=POOL.format(terms=G4DN))
    monkeypatch.chdir(tmp_path)
    role = _role(["."])
    assert role.accelerators.type is None and role.device_pool is None
    # each term names a NodePool: the pod is on one of them
    (tmp_path / "app" / "deploy.yaml").write_text(affinity.replace("karpenter.sh/capacity-type, operator: In, "
                                                                   "values: [spot]",
                                                                   "karpenter.sh/nodepool, operator: In, values: "
                                                                   "[gpu-nodepool]"))
    assert _device(["."]).value == "T4"


def test_a_gpu_name_of_two_sizes_yields_to_the_family_that_sizes_it(tmp_path, monkeypatch):
    # EC2 names p4d's and p4de's GPU alike, `a100` (instance-gpu-memory 40960 and 81920: aws/karpenter-provider-aws@
    # 1d927085dd81a9df9301e613f371dac5b4d16bfe:website/content/en/docs/reference/instance-types.md): with
    # `instance-family In [p4de]` beside it the NodePool's nodes are p4de's A100 80 GB, not "different GPUs"
    p4de = G4DN.replace('"g4dn"', '"p4de"')
    a100 = A10G_NAME.replace('"a10g"', '"a100"')
    _tree(tmp_path, gpu=POOL.format(terms=a100 + p4de))
    monkeypatch.chdir(tmp_path)
    device = _device(["."])
    assert (device.value, device.raw, device.source.line) == ("A100-80GB", "p4de", 19)
    # a family of another GPU still contradicts it
    (tmp_path / "karpenter" / "gpu.yaml").write_text(POOL.format(terms=a100 + G4DN))
    assert _role(["."]).device_pool.raw.startswith("the requirements of the NodePool 'gpu-nodepool' "
                                                   "(karpenter/gpu.yaml:1) name different GPUs (A100 (40 or 80 GB")


def test_terms_that_name_one_gpu_in_two_spellings_name_it(tmp_path, monkeypatch):
    # EC2's GPU names beside the families that carry them (aws/karpenter-provider-aws@1d927085dd81a9df9301e613f371dac5b4d16bfe:
    # website/content/en/docs/reference/instance-types.md: p5 `h100`, g7e `rtx-pro-server-6000`): one GPU, not
    # "different GPUs, which no instance type has together"
    for family, name, expected in (("p5", "h100", "H100-SXM-80GB"), ("g7e", "rtx-pro-server-6000",
                                                                     "RTX-PRO-6000-Blackwell")):
        terms = G4DN.replace('"g4dn"', f'"{family}"') + A10G_NAME.replace('"a10g"', f'"{name}"')
        (tmp_path / family).mkdir()
        _tree(tmp_path / family, gpu=POOL.format(terms=terms))
        monkeypatch.chdir(tmp_path / family)
        role = _role(["."])
        assert role.device_pool is None
        assert (lookup_accelerator(role.accelerators.type.value).name, role.accelerators.type.raw) == (expected, family)


def test_a_nodepool_whose_template_labels_set_the_nodepool_label_names_no_device(tmp_path, monkeypatch):
    # Karpenter's CRD refuses it (kubernetes-sigs/karpenter@2266468104f36373ed002241afaee2d3bbc26078:
    # hack/validation/labels.sh, `label "karpenter.sh/nodepool" is restricted` on spec.template.metadata.labels):
    # no such NodePool exists, so it does not take the device of the NodePool its label names
    refused = POOL.format(terms="").replace("{workload-type: gpu-nodepool}", "{karpenter.sh/nodepool: l4}")
    l4 = POOL.format(terms=G4DN.replace('"g4dn"', '"g6"')).replace("name: gpu-nodepool", "name: l4")
    _tree(tmp_path, gpu=refused, l4=l4)
    monkeypatch.chdir(tmp_path)
    role = _role(["."])
    assert role.accelerators.type is None
    assert role.device_pool.raw == ("the NodePool 'gpu-nodepool' (karpenter/gpu.yaml:1) sets the label "
                                    "karpenter.sh/nodepool in its template, which Karpenter refuses")
