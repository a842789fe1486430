"""RoleBasedGroup (workloads.x-k8s.io): roles, role templates with patches, leader/worker patterns."""
from __future__ import annotations

from tests.adapters.kit import adapt, at

RBG = """\
apiVersion: workloads.x-k8s.io/v1alpha2
kind: RoleBasedGroup
metadata:
  name: ds
spec:
  roleTemplates:
    - name: sglang-base
      template:
        spec:
          nodeSelector:
            nvidia.com/gpu.product: NVIDIA-H200
          containers:
            - name: engine
              image: lmsysorg/sglang:v0.5.5
              command: ["python3", "-m", "sglang.launch_server", "--model-path", "deepseek-ai/DeepSeek-V3",
                        "--tp-size", "16", "--nnodes", "$(RBG_LWP_GROUP_SIZE)"]
              resources:
                limits:
                  nvidia.com/gpu: "8"
  roles:
    - name: router
      replicas: 1
      standalonePattern:
        template:
          spec:
            containers:
              - name: router
                image: lmsysorg/sglang-router:v0.2.4
                command: ["python3", "-m", "sglang_router.launch_router", "--pd-disaggregation"]
    - name: prefill
      replicas: 2
      leaderWorkerPattern:
        size: 2
        templateRef:
          name: sglang-base
          patch:
            spec:
              containers:
                - name: engine
                  args: ["--disaggregation-mode", "prefill", "--max-total-tokens", "131072"]
    - name: decode
      replicas: 1
      leaderWorkerPattern:
        size: 2
        templateRef:
          name: sglang-base
"""


def test_rbg_pd_roles_from_template_refs_with_patches():
    res = adapt(RBG)
    [dep] = res.deployments
    assert (dep.input_format, dep.display_name, dep.engine.name.value, dep.engine.version.value,
            dep.model.id.value) == ("rbg", "ds/prefill + ds/decode", "sglang", "0.5.5", "deepseek-ai/DeepSeek-V3")
    prefill, decode = dep.roles
    assert (prefill.kind, decode.kind) == ("prefill", "decode")
    # the prefill pool is the one the patch states, at its token in the patch
    pool = prefill.kv_pool_tokens
    assert (pool.value, pool.source.line, pool.source.col, at(RBG, pool.source)) == (131072, 40, 85, "131072")
    assert at(RBG, prefill.role.source) == "prefill"  # the engine flag in the patch
    assert (at(RBG, decode.role.source), decode.role.source.line) == ("decode", 41)  # the role name
    assert decode.kv_pool_tokens is None
    # one instance = size 2 pods x 8 GPUs of the template (RBG_LWP_GROUP_SIZE resolves --nnodes)
    acc = prefill.accelerators
    assert (acc.count.value, acc.count.raw, acc.type.value, at(RBG, acc.count.source)) == \
        (16, "8 per pod x 2 pods (RBG leaderWorkerPattern size)", "H200", '"8"')
    assert (prefill.parallelism.tp, prefill.replicas.value, decode.replicas.value) == (16, 2, 1)
    assert [d for d in res.diagnostics if d.kind == "unresolved-value"] == []


V1ALPHA1 = """\
apiVersion: workloads.x-k8s.io/v1alpha1
kind: RoleBasedGroup
metadata:
  name: old
spec:
  roles:
    - name: prefill
      replicas: 1
      template:
        spec:
          containers:
            - name: vllm
              image: vllm/vllm-openai:v0.10.1
              command: ["vllm", "serve", "Qwen/Qwen3-8B", "--max-model-len", "32768", "--tensor-parallel-size", "2",
                        "--pipeline-parallel-size", "$(LWS_GROUP_SIZE)"]
              resources: {limits: {nvidia.com/gpu: 2}}
      leaderWorkerSet:
        size: 2
        patchWorkerTemplate:
          spec:
            containers:
              - name: vllm
                command: ["ray", "start", "--block"]
    - name: decode
      replicas: 3
      template:
        spec:
          containers:
            - name: vllm
              image: vllm/vllm-openai:v0.10.1
              args: ["--model", "Qwen/Qwen3-8B", "--max-model-len", "32768"]
              resources: {limits: {nvidia.com/gpu: 1}}
"""


def test_rbg_v1alpha1_template_and_leader_worker_set():
    [dep] = adapt(V1ALPHA1).deployments
    prefill, decode = dep.roles
    assert (prefill.kind, decode.kind, dep.display_name) == ("prefill", "decode", "old/prefill + old/decode")
    assert (prefill.context_length.value, at(V1ALPHA1, prefill.context_length.source)) == (32768, "32768")
    assert (prefill.parallelism.tp, prefill.parallelism.pp) == (2, 2)  # LWS_GROUP_SIZE = size
    assert (prefill.accelerators.count.value, decode.accelerators.count.value) == (4, 1)
    assert (at(V1ALPHA1, prefill.role.source), prefill.role.source.line) == ("prefill", 7)
    assert decode.replicas.value == 3


def test_rbg_bad_shapes_are_findings_or_nothing_never_a_crash():
    res = adapt(V1ALPHA1.replace("  roles:\n", "  roles:\n    x: 1\n  other:\n", 1))
    assert res.deployments == []
    [diag] = res.diagnostics
    assert (diag.kind, diag.source.line, diag.source.col, diag.deployment) == ("unresolved-value", 7, 5, "old")
    assert diag.message.startswith("spec.roles is a mapping, not a list")
    odd = """\
    apiVersion: workloads.x-k8s.io/v1alpha2
    kind: RoleBasedGroup
    metadata: {name: [1]}
    spec:
      roleTemplates: [1, {name: t}, {name: u, template: 3}]
      roles:
        - 7
        - {name: a, standalonePattern: {templateRef: {name: missing}}}
        - {name: b, leaderWorkerPattern: {size: "x", templateRef: {name: u, patch: [1]}}}
        - {name: c, leaderWorkerSet: 3, template: {spec: {containers: {a: 1}}}}
        - {replicas: many, standalonePattern: {template: {spec: {containers: [{name: e, command: 5}]}}}}
    ---
    apiVersion: workloads.x-k8s.io/v1alpha2
    kind: RoleBasedGroup
    spec: [1]
    """
    res = adapt(odd)
    assert (res.deployments, [d for d in res.diagnostics if d.kind != "nonportable-yaml"]) == ([], [])
