"""`$(VAR)` inside container env values: LeaderWorkerSet's variables, and references Kubernetes keeps as written."""
from __future__ import annotations

from helpers import run

from .kit import adapt

LWS = """\
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata:
  name: llama
spec:
  leaderWorkerTemplate:
    {size}
    leaderTemplate:
      spec:
        containers:
        - name: leader
          image: vllm/vllm-openai:v0.10.1
          args: [--model=meta-llama/Llama-3.1-8B-Instruct, "--pipeline_parallel_size=$(PIPELINE_PARALLEL_SIZE)",
                 "--max-model-len=$(LEN)"]
          env:
          - name: PIPELINE_PARALLEL_SIZE
            value: $(LWS_GROUP_SIZE)
          - name: LEN
            value: $(LWS_WORKER_INDEX)
          resources: {{limits: {{nvidia.com/gpu: "1"}}}}
    workerTemplate:
      spec:
        containers:
        - name: worker
          image: vllm/vllm-openai:v0.10.1
          command: [sh, -c, "ray start --address=$(LWS_LEADER_ADDRESS):6379 --block"]
          resources: {{limits: {{nvidia.com/gpu: "1"}}}}
"""


def test_an_env_value_sees_the_leaderworkerset_variables(tmp_path):
    # sweep 41 (kubernetes-sigs/wg-serving's LWS manifests): `PIPELINE_PARALLEL_SIZE: $(LWS_GROUP_SIZE)` was kept
    # as written, and `--pipeline_parallel_size=$(PIPELINE_PARALLEL_SIZE)` a CTX301 "invalid int value"; LWS puts
    # its variables at the front of the container's env, so Kubernetes expands them there
    for size, pp in (("size: 3", 3), ("", 1)):  # no `size`: LeaderWorkerSet's default group of 1
        [dep] = adapt(LWS.format(size=size)).deployments
        [role] = dep.roles
        assert role.parallelism.pp == pp
        path = tmp_path / "lws.yaml"
        path.write_text(LWS.format(size=size))
        result = run(["check", "--select", "CTX008,CTX301", str(path)])
        # a pod's own index is known to be set, but not to what: CTX008 says who sets it
        assert result.out == (
            f"{path}:14:35: CTX008 [info] values ctxlint cannot resolve: --max-model-len $(LEN) (LEN is set from "
            "$(LWS_WORKER_INDEX): LWS_WORKER_INDEX is set by LeaderWorkerSet in each pod (the pod's index)); the "
            "checks that need them are skipped (set them literally, or state the limits with ctxlint.io/* "
            "annotations) (unresolved-value)\n")


def test_leaderworkerset_variables_win_over_an_envfrom_of_the_same_name():
    text = LWS.format(size="size: 2").replace("          env:\n", """\
          envFrom:
          - configMapRef: {name: sizes}
          env:
""") + """\
---
apiVersion: v1
kind: ConfigMap
metadata: {name: sizes}
data: {LWS_GROUP_SIZE: "4"}
"""
    [dep] = adapt(text).deployments
    assert dep.roles[0].parallelism.pp == 2


DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: llama
spec:
  template:
    spec:
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.10.1
        args: [--model=meta-llama/Llama-3.1-8B-Instruct, "--tensor-parallel-size=$(TP)",
               "--pipeline-parallel-size=$(PP)"]
        env:
        - name: TP
          value: $(GPUS)
        - name: PP
          value: $(LATER)
        - name: LATER
          value: "1"
        resources: {limits: {nvidia.com/gpu: "1"}}
"""


def test_a_reference_to_a_variable_the_file_never_sets_is_unknown_not_refused(tmp_path):
    # `$(GPUS)` stays as written only if nothing sets GPUS, and the file does not show everything that may (the
    # Service variables, an envFrom Secret, a controller): CTX008, as for `$(GPUS)` in args; `$(LATER)` names a
    # variable set after it, which the kubelet never expands there: vLLM gets `$(LATER)` and refuses it
    path = tmp_path / "dep.yaml"
    path.write_text(DEPLOYMENT)
    result = run(["check", "--select", "CTX008,CTX301", str(path)])
    assert result.out == (
        f"{path}:11:82: CTX008 [info] values ctxlint cannot resolve: --tensor-parallel-size $(TP) (TP is set from "
        "$(GPUS), which is not set in the file); the checks that need them are skipped (set them literally, or "
        "state the limits with ctxlint.io/* annotations) (unresolved-value)\n"
        f"{path}:12:42: CTX301 [error] vllm would refuse to start: argument --pipeline-parallel-size: invalid int "
        "value: '$(LATER)' (engine-rejects-value)\n")
