"""The fallback adapter: pod specs inside objects of kinds no adapter reads."""
from __future__ import annotations

from tests.adapters.kit import adapt, at

CRD = """\
apiVersion: serving.example.io/v1
kind: InferenceGraph
metadata:
  name: acme
spec:
  roles:
    - name: prefill
      replicas: 2
      template:
        spec:
          containers:
            - name: e
              image: lmsysorg/sglang:v0.5.5
              command: ["python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3-8B",
                        "--disaggregation-mode", "prefill", "--max-total-tokens", "65536"]
    - name: decode
      replicas: 3
      template:
        spec:
          containers:
            - name: e
              image: lmsysorg/sglang:v0.5.5
              command: ["python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3-8B",
                        "--disaggregation-mode", "decode"]
    - name: router
      template: {spec: {containers: [{name: r, image: lmsysorg/sglang-router:v0.2.4}]}}
"""


def test_unknown_crd_with_pod_templates_is_read():
    [dep] = adapt(CRD).deployments
    assert (dep.input_format, dep.display_name, dep.engine.name.value, dep.model.id.value) == \
        ("pod-template", "acme/prefill + acme/decode", "sglang", "Qwen/Qwen3-8B")
    prefill, decode = dep.roles
    assert (prefill.kind, decode.kind, prefill.replicas.value, decode.replicas.value) == ("prefill", "decode", 2, 3)
    pool = prefill.kv_pool_tokens
    assert (pool.value, pool.source.line, at(CRD, pool.source)) == (65536, 15, "65536")


def test_single_pod_spec_in_a_crd_is_named_by_the_object():
    text = """\
    apiVersion: acme.dev/v1alpha1
    kind: Server
    metadata: {name: one}
    spec:
      replicas: 4
      podSpec:
        containers:
          - name: vllm
            image: vllm/vllm-openai:v0.10.0
            args: ["--model", "Qwen/Qwen3-8B", "--max-model-len", "8192"]
    """
    [dep] = adapt(text).deployments
    assert (dep.display_name, dep.roles[0].replicas.value, dep.roles[0].context_length.value) == ("one", 4, 8192)


def test_kinds_with_an_adapter_are_not_read_twice():
    deployment = """\
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: d}
    spec:
      template:
        spec:
          containers: [{name: v, image: vllm/vllm-openai:v0.10.0, args: ["--model", "Qwen/Qwen3-8B"]}]
    """
    assert [d.input_format for d in adapt(deployment).deployments] == ["kubernetes"]
    # an AIBrix StormService whose roles are not a list: its adapter reports it; the fallback stays out
    storm = """\
    apiVersion: orchestration.aibrix.ai/v1alpha1
    kind: StormService
    metadata: {name: s}
    spec:
      template:
        spec:
          roles:
            a: {template: {spec: {containers: [{name: v, image: vllm/vllm-openai:v0.10.0}]}}}
    """
    res = adapt(storm)
    assert res.deployments == [] and [d.kind for d in res.diagnostics] == ["unresolved-value"]


def test_fallback_odd_shapes_never_crash():
    odd = """\
    apiVersion: x.io/v1
    kind: Thing
    metadata: {name: [1]}
    spec: {containers: [1, {image: 5, command: 3}], a: {containers: {x: 1}}, b: [[{containers: []}]]}
    ---
    apiVersion: x.io/v1
    kind: Other
    spec: 5
    ---
    kind: NoApi
    spec: {containers: [{name: v, image: vllm/vllm-openai:v0.10.0, args: ["--model", "m/x"]}]}
    """
    res = adapt(odd)
    assert res.deployments == []


def test_an_entry_pod_and_its_workers_are_one_engine_instance():
    # sweep 9, volcano-sh/kthena ModelServing: a serving group is the entry pod plus workerReplicas workers
    # (pkg/apis/workload/v1alpha1/servinggroup_types.go), joined by Ray: TP 8 x PP 2 over 2 x 8 GPUs
    text = """\
apiVersion: workload.serving.volcano.sh/v1alpha1
kind: ModelServing
metadata: {name: llama-multinode}
spec:
  replicas: 1
  template:
    roles:
      - name: llama-405b
        replicas: 1
        entryTemplate:
          spec:
            containers:
              - name: leader
                image: vllm/vllm-openai:v0.10.1
                command: [vllm, serve, meta-llama/Llama-3.1-405B-Instruct, --tensor-parallel-size, "8", --pipeline-parallel-size, "2"]
                resources: {limits: {nvidia.com/gpu: "8"}}
        workerReplicas: 1
        workerTemplate:
          spec:
            containers:
              - name: worker
                image: vllm/vllm-openai:v0.10.1
                command: [sh, -c, "ray start --block --address=$(ENTRY_ADDRESS)"]
                resources: {limits: {nvidia.com/gpu: "8"}}
"""
    [dep] = adapt(text).deployments
    assert dep.roles[0].accelerators.count.value == 16
    assert dep.roles[0].accelerators.count.raw == "8 per pod x 2 pods (entry + workerReplicas workers)"
    # workers asking for other accelerators than the entry: the entry's own count stands
    odd = text.replace('              - name: worker\n                image: vllm/vllm-openai:v0.10.1\n'
                       '                command: [sh, -c, "ray start --block --address=$(ENTRY_ADDRESS)"]\n'
                       '                resources: {limits: {nvidia.com/gpu: "8"}}',
                       '              - name: worker\n                image: vllm/vllm-openai:v0.10.1\n'
                       '                command: [sh, -c, "ray start --block --address=$(ENTRY_ADDRESS)"]\n'
                       '                resources: {limits: {nvidia.com/gpu: "4"}}')
    assert adapt(odd).deployments[0].roles[0].accelerators.count.value == 8


EMBEDDED_LWS = """\
apiVersion: inference.llmaz.io/v1alpha1
kind: Service
metadata: {name: llama}
spec:
  replicas: 3
  workloadTemplate:
    size: 2
    leaderTemplate:
      spec:
        containers:
        - name: model-runner
          image: lmsysorg/sglang:v0.5.5
          command: [python3, -m, sglang.launch_server, --model-path, meta-llama/Llama-3.1-8B-Instruct,
                    --tp, "2", --nnodes, $(LWS_GROUP_SIZE), --node-rank, $(LWS_WORKER_INDEX)]
          resources: {limits: {nvidia.com/gpu: "1"}}
    workerTemplate:
      spec:
        containers:
        - name: model-runner
          image: lmsysorg/sglang:v0.5.5
          command: [python3, -m, sglang.launch_server, --model-path, meta-llama/Llama-3.1-8B-Instruct,
                    --tp, "2", --nnodes, $(LWS_GROUP_SIZE), --node-rank, $(LWS_WORKER_INDEX)]
          resources: {limits: {nvidia.com/gpu: "1"}}
"""


def test_a_leader_worker_template_inside_another_kind_is_one_group():
    # sweep 11 (InftyAI/llmaz docs/examples/multi-nodes/service.yaml): the leader and the worker template were two
    # deployments of one GPU each, and `--nnodes $(LWS_GROUP_SIZE)` was CTX008; as a LeaderWorkerSet's template it
    # is one engine over `size` pods (the worker runs no API)
    result = adapt(EMBEDDED_LWS)
    [dep] = result.deployments
    [role] = dep.roles
    assert (role.accelerators.count.value, role.parallelism.tp, role.replicas.value) == (2, 2, 3)
    assert at(EMBEDDED_LWS, role.source).startswith("name: model-runner") and role.source.line == 11
    assert not [d for d in result.diagnostics if "LWS_GROUP_SIZE" in d.message]
