"""AIBrix StormService/RayClusterFleet and KAITO Workspace/InferenceSet/MultiRoleInference."""
from __future__ import annotations

import textwrap

from helpers import run
from tests.adapters.kit import adapt, arg, at

STORM = """\
apiVersion: orchestration.aibrix.ai/v1alpha1
kind: StormService
metadata:
  name: pd
spec:
  replicas: 2
  template:
    spec:
      roles:
        - name: router
          replicas: 1
          template:
            spec:
              containers:
                - name: lb
                  image: aibrix/sglang-router:v0.1.6
                  command: ["python3", "-m", "sglang_router.launch_router", "--pd-disaggregation"]
        - name: prefill
          replicas: 1
          podGroupSize: 2
          template:
            spec:
              nodeSelector:
                nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3
              containers:
                - name: prefill
                  image: vllm/vllm-openai:v0.10.0
                  command: ["sh", "-c"]
                  args:
                    - |
                      vllm serve Qwen/Qwen3-8B --max-model-len 32768 \\
                        --tensor-parallel-size 2 --served-model-name $(ROLE_NAME)
                  resources:
                    limits:
                      nvidia.com/gpu: 1
        - name: decode
          replicas: 3
          template:
            spec:
              containers:
                - name: decode
                  image: vllm/vllm-openai:v0.10.0
                  args: ["--model", "Qwen/Qwen3-8B", "--max-model-len", "32768", "--tensor-parallel-size", "4"]
                  resources:
                    limits:
                      nvidia.com/gpu: 2
"""


def test_stormservice_roles_by_name_podgroup_and_replicas():
    res = adapt(STORM)
    [dep] = res.deployments
    assert (dep.input_format, dep.display_name, dep.engine.name.value, dep.model.id.value) == \
        ("aibrix", "pd/prefill + pd/decode", "vllm", "Qwen/Qwen3-8B")
    prefill, decode = dep.roles
    assert (prefill.kind, decode.kind) == ("prefill", "decode")
    assert (prefill.role.source.line, prefill.role.source.col, at(STORM, prefill.role.source)) == (18, 17, "prefill")
    ctx = prefill.context_length
    assert (ctx.value, ctx.source.line, ctx.source.col, at(STORM, ctx.source)) == (32768, 31, 64, "32768")
    # one prefill instance = podGroupSize 2 pods x 1 GPU
    acc = prefill.accelerators
    assert (acc.count.value, acc.count.raw, acc.type.value) == \
        (2, "1 per pod x 2 pods (AIBrix podGroupSize)", "H100-SXM-80GB")
    assert (prefill.replicas.value, prefill.replicas.raw) == (2, "1 per RoleSet x 2 RoleSets (spec.replicas)")
    assert (decode.replicas.value, at(STORM, decode.replicas.source)) == (6, "3")
    assert (decode.accelerators.count.value, decode.accelerators.type) == (2, None)
    assert arg(prefill, "served_model_name").value == ["prefill"]  # ROLE_NAME, injected by AIBrix


def test_a_lone_role_named_prefill_serves_whole_requests():
    # without a decode role (by name or engine flag) a `prefill` name makes no half (vllm-ascend/job.yaml)
    lone = STORM[:STORM.index("        - name: decode")]
    [dep] = adapt(lone).deployments
    assert [r.kind for r in dep.roles] == ["unified"]
    # beside a decode half its engine marks (kv_consumer), a role named `prefill` is the prefill half
    marked = STORM.replace("        - name: decode", "        - name: decoder").replace(
        '"--tensor-parallel-size", "4"]', '"--tensor-parallel-size", "4", "--kv-transfer-config", '
        '\'{"kv_connector":"NixlConnector","kv_role":"kv_consumer"}\']')
    [dep] = adapt(marked).deployments
    assert sorted(r.kind for r in dep.roles) == ["decode", "prefill"]


def test_stormservice_parallelism_finding_at_its_token(tmp_path):
    (tmp_path / "s.yaml").write_text(STORM)
    result = run(["check", str(tmp_path / "s.yaml"), "--select", "CTX204"])
    assert result.out.splitlines()[0].startswith(f"{tmp_path / 's.yaml'}:43:109: CTX204 [error] 4 > 2")


FLEET = """\
apiVersion: orchestration.aibrix.ai/v1alpha1
kind: RayClusterFleet
metadata:
  name: r1
spec:
  replicas: 1
  template:
    spec:
      headGroupSpec:
        rayStartParams: {dashboard-host: '0.0.0.0'}
        template:
          spec:
            containers:
            - name: ray-head
              image: vllm/vllm-openai:v0.7.3
              command: ["/bin/bash", "-lc", "--"]
              args: ["$KUBERAY_GEN_RAY_START_CMD; vllm serve deepseek-ai/DeepSeek-R1 --tensor-parallel-size 16"]
              resources:
                limits:
                  nvidia.com/gpu: 8
      workerGroupSpecs:
      - replicas: 1
        groupName: gpu
        template:
          spec:
            containers:
            - name: ray-worker
              command: ["/bin/bash", "-lc", "--"]
              args: ["$KUBERAY_GEN_RAY_START_CMD;"]
              resources:
                limits:
                  nvidia.com/gpu: 8
      - replicas: 4
        groupName: cpu
        template:
          spec:
            containers: [{name: cpu, image: rayproject/ray:2.40.0}]
"""


def test_rayclusterfleet_engine_spans_the_whole_ray_cluster():
    [dep] = adapt(FLEET).deployments
    [role] = dep.roles
    assert (dep.input_format, dep.display_name, dep.engine.name.value, dep.model.id.value) == \
        ("aibrix", "r1/head", "vllm", "deepseek-ai/DeepSeek-R1")
    acc = role.accelerators.count
    assert (acc.value, acc.raw, acc.source.line, at(FLEET, acc.source)) == \
        (16, "8 on the head + 1 x 8 per worker (gpu)", 20, "8")
    assert (role.parallelism.tp, role.replicas.value) == (16, 1)
    stated = adapt(FLEET.replace("rayStartParams: {dashboard-host: '0.0.0.0'}", "rayStartParams: {num-gpus: '0'}"))
    assert stated.deployments[0].roles[0].accelerators.count.value == 8  # head keeps no GPU for Ray


def test_aibrix_odd_shapes_never_crash():
    res = adapt(STORM.replace("      roles:\n", "      roles:\n        oops: 1\n      other:\n", 1))
    assert res.deployments == []
    [diag] = res.diagnostics
    assert (diag.kind, diag.source.line, diag.source.col, diag.deployment) == ("unresolved-value", 10, 9, "pd")
    assert diag.message.startswith("spec.template.spec.roles is a mapping, not a list: AIBrix's CRD schema")
    odd = """\
    apiVersion: orchestration.aibrix.ai/v1alpha1
    kind: StormService
    metadata: {name: [x]}
    spec:
      replicas: many
      template: {spec: {roles: [1, "x", {name: 3, template: "oops", podGroupSize: -1}, {template: {spec: []}}]}}
    ---
    apiVersion: orchestration.aibrix.ai/v1alpha1
    kind: RayClusterFleet
    metadata: {name: f}
    spec: {template: {spec: {headGroupSpec: {template: {spec: {containers: "no"}}}, workerGroupSpecs: 7}}}
    ---
    apiVersion: orchestration.aibrix.ai/v1alpha1
    kind: RoleSet
    spec: [1, 2]
    """
    res = adapt(odd)
    assert (res.deployments, res.diagnostics) == ([], [])
    fleet = adapt(FLEET.replace("      workerGroupSpecs:\n      - replicas: 1",
                                "      workerGroupSpecs:\n      - replicas: lots"))
    assert fleet.deployments[0].roles[0].accelerators.count is None  # the cluster's size is not known


KAITO = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: params
data:
  inference_config.yaml: |
    max_probe_steps: 6
    vllm:
      max-model-len: 131072
      enable-chunked-prefill: true
---
apiVersion: kaito.sh/v1beta1
kind: Workspace
metadata:
  name: ws
resource:
  instanceType: Standard_NC80adis_H100_v5
inference:
  preset:
    name: phi-4
  config: params
"""


def test_kaito_workspace_preset_config_and_instance_type():
    [dep] = adapt(KAITO).deployments
    [role] = dep.roles
    assert (dep.input_format, dep.display_name, dep.engine.name.value) == ("kaito", "ws", "vllm")
    assert at(KAITO, dep.engine.name.source) == "phi-4"
    assert (dep.model.id.value, dep.model.id.raw, dep.model.id.source.line) == ("microsoft/phi-4", "phi-4", 20)
    ctx = role.context_length
    assert (ctx.value, ctx.source.line, ctx.source.col, at(KAITO, ctx.source)) == (131072, 9, 22, "131072")
    acc = role.accelerators
    assert (acc.count.value, acc.type.value, acc.type.raw) == (2, "H100-NVL", "Standard_NC80adis_H100_v5")
    assert at(KAITO, acc.count.source) == "Standard_NC80adis_H100_v5"
    assert (role.parallelism.tp, at(KAITO, role.parallelism.tensor.source)) == (2, "Standard_NC80adis_H100_v5")
    util = arg(role, "gpu_memory_utilization")
    assert (util.value, at(KAITO, util.source)) == (0.84, "phi-4")  # KAITO's default
    # without max-model-len KAITO passes --max-model-len auto: vLLM fits the context to the pool
    [bare] = adapt(KAITO.replace("      max-model-len: 131072\n", "")).deployments[0].roles
    assert bare.context_length is None


def test_kaito_config_parallelism_finding_at_the_configmap_key(tmp_path):
    text = KAITO.replace("Standard_NC80adis_H100_v5", "Standard_NC24ads_A100_v4").replace(
        "enable-chunked-prefill: true", "tensor-parallel-size: 2")
    (tmp_path / "k.yaml").write_text(text)
    result = run(["check", str(tmp_path / "k.yaml"), "--select", "CTX204"])
    assert result.out.splitlines()[0].startswith(f"{tmp_path / 'k.yaml'}:10:29: CTX204 [error] 2 > 1")


MULTI = """\
apiVersion: kaito.sh/v1alpha1
kind: MultiRoleInference
metadata:
  name: pd
spec:
  model:
    name: llama-3.3-70b-instruct
  roles:
    - type: prefill
      replicas: 1
      instanceType: Standard_ND96isr_H100_v5
    - type: decode
      replicas: 2
      instanceType: "Standard_ND96isr_H200_v5"
---
apiVersion: kaito.sh/v1beta1
kind: InferenceSet
metadata:
  name: set
spec:
  replicas: 3
  template:
    resource:
      instanceType: Standard_NC24ads_A100_v4
    inference:
      preset:
        name: Qwen/Qwen3-8B
"""


def test_kaito_multirole_and_inferenceset():
    pd, iset = adapt(MULTI).deployments
    assert (pd.display_name, pd.model.id.value, pd.disaggregation.value) == \
        ("pd/prefill + pd/decode", "meta-llama/Llama-3.3-70B-Instruct", "prefill-decode")
    prefill, decode = pd.roles
    assert (prefill.kind, at(MULTI, prefill.role.source), decode.kind) == ("prefill", "prefill", "decode")
    assert (prefill.accelerators.count.value, prefill.accelerators.type.value, prefill.parallelism.tp) == \
        (8, "H100-SXM-80GB", 8)
    assert (decode.accelerators.type.value, decode.replicas.value, decode.replicas.source.line) == ("H200", 2, 13)
    [role] = iset.roles
    # a Hugging Face id is sized by KAITO from the Hub (v0.11.0 and later), not by a size ctxlint records: the
    # nodes it runs on, and so the pipeline parallel size, are not known
    assert (iset.model.id.value, role.replicas.value, role.accelerators.count) == ("Qwen/Qwen3-8B", 3, None)
    assert (role.accelerators.type, role.accelerator_withheld.value) == (None, "A100-SXM4-80GB")


def test_kaito_odd_shapes_never_crash():
    missing = adapt(KAITO.split("---\n")[1])
    [role] = missing.deployments[0].roles
    assert role.context_length is None
    [diag] = [d for d in missing.diagnostics if d.kind == "unresolved-value"]
    assert "inference config params (a ConfigMap this file does not hold" in diag.message
    assert (diag.source.line, diag.source.col) == (10, 11)
    bad_section = adapt(KAITO.replace("    vllm:\n      max-model-len: 131072\n      enable-chunked-prefill: true\n",
                                      "    vllm: [1, 2]\n"))
    assert bad_section.deployments[0].roles[0].context_length is None
    [diag] = bad_section.diagnostics
    assert (diag.kind, diag.source.line, diag.source.col) == ("unresolved-value", 8, 11)
    odd = textwrap.dedent("""\
    apiVersion: kaito.sh/v1beta1
    kind: Workspace
    metadata: {name: w}
    resource: "big"
    inference: {preset: {name: [1]}, config: {x: 1}}
    ---
    apiVersion: kaito.sh/v1beta1
    kind: Workspace
    inference: [1]
    ---
    apiVersion: kaito.sh/v1beta1
    kind: InferenceSet
    spec: {template: {resource: 5, inference: {template: {spec: {containers: [1]}}}}}
    ---
    apiVersion: kaito.sh/v1alpha1
    kind: MultiRoleInference
    metadata: {name: m}
    spec: {model: {name: phi-4}, roles: {prefill: 1}}
    """)
    res = adapt(odd)
    assert res.deployments == []
    [diag] = res.diagnostics
    assert (diag.kind, diag.source.line, diag.deployment) == ("unresolved-value", 18, "m")
    assert diag.message.startswith("spec.roles is not a list: KAITO's CRD schema rejects it")
    transformers = KAITO.replace("  name: ws\n", "  name: ws\n  annotations: {kaito.sh/runtime: transformers}\n")
    assert adapt(transformers).deployments == []


def test_a_ray_cluster_of_amd_gpus_keeps_its_vendor_when_its_count_is_summed_or_stated():
    # `num-gpus` on the head, AMD GPUs in the pods: the count sits at no device-plugin key, the resource says
    # the vendor (CTX208 then names AMD cards only)
    from ctxlint.physics.needs import _AMD, _vendor_devices

    amd = FLEET.replace("nvidia.com/gpu", "amd.com/gpu").replace(
        "rayStartParams: {dashboard-host: '0.0.0.0'}", "rayStartParams: {num-gpus: '8'}")
    [role] = adapt(amd).deployments[0].roles
    assert (role.accelerators.count.value, role.accelerators.resource) == (16, "amd.com/gpu")
    assert _vendor_devices(role)[0] == _AMD
    [role] = adapt(FLEET.replace("rayStartParams: {dashboard-host: '0.0.0.0'}",
                                 "rayStartParams: {num-gpus: '8'}")).deployments[0].roles
    assert role.accelerators.resource == "nvidia.com/gpu" and "L4" in _vendor_devices(role)[0]
