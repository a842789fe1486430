"""A LeaderWorkerSet starts `size` pods a group; whether they run one engine is the engine's to say (sweep 39:
zhaotyer/lws_usage test.yaml, `size: 3` of SGLang pods with `--tp 1` and no `--nnodes`, got CTX205 "3
accelerators ... 2 sit idle": each pod was a server of its own). SGLang spans pods only with `--nnodes` above 1;
vLLM when the pods form a Ray cluster or its flags join them, or when a leader template runs it for its workers."""
from __future__ import annotations

import pytest

from ctxlint.adapters import adapt_file
from ctxlint.file_reader import read_path
from helpers import run

LWS = """\
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: lws}
spec:
  replicas: 2
  leaderWorkerTemplate:
    size: 3
%s    workerTemplate:
      spec:
        containers:
          - name: engine
            image: %s
            command: [bash, -c]
            args:
              - %s
            resources:
              limits: {nvidia.com/gpu: "1"}
"""
SGLANG = ("lmsysorg/sglang:v0.5.6", "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 1 "
          "--disaggregation-mode decode")
VLLM = ("vllm/vllm-openai:v0.11.2", "vllm serve Qwen/Qwen3-8B --tensor-parallel-size 1")
LEADER = """\
    leaderTemplate:
      spec:
        containers:
          - name: engine
            image: vllm/vllm-openai:v0.11.2
            command: [bash, -c]
            args: ["vllm serve Qwen/Qwen3-8B --tensor-parallel-size 3"]
            resources:
              limits: {nvidia.com/gpu: "1"}
"""


def _role(tmp_path, text: str):
    path = tmp_path / "lws.yaml"
    path.write_text(text)
    [dep] = adapt_file(read_path(str(path))).deployments
    [role] = dep.roles
    return role, run(["check", "--isolated", "--select", "CTX205", str(path)]).out


@pytest.mark.parametrize("image, command", [SGLANG, VLLM])
def test_pods_that_all_run_a_server_of_their_own_are_replicas(tmp_path, image, command):
    role, out = _role(tmp_path, LWS % ("", image, command))
    assert (role.accelerators.count.value, role.replicas.value) == (1, 6), role
    assert role.replicas.raw == "2 x 3 pods (LeaderWorkerSet size), a server each"
    assert "CTX205" not in out, out


@pytest.mark.parametrize("image, command", [
    (SGLANG[0], SGLANG[1].replace("--tp 1", "--tp 3 --nnodes 3 --node-rank $(LWS_WORKER_INDEX) "
                                  "--dist-init-addr $(LWS_LEADER_ADDRESS):5000")),
    (VLLM[0], "ray start --address=$(LWS_LEADER_ADDRESS):6379; " + VLLM[1].replace("size 1", "size 3")),
    (VLLM[0], VLLM[1].replace("size 1", "size 3") + " --nnodes 3 --node-rank $(LWS_WORKER_INDEX)"),
])
def test_one_engine_over_the_group_when_the_engine_joins_its_pods(tmp_path, image, command):
    role, out = _role(tmp_path, LWS % ("", image, command))
    assert (role.accelerators.count.value, role.replicas.value) == (3, 2), role
    assert role.accelerators.count.raw == "1 per pod x 3 pods (LeaderWorkerSet size)"


def test_an_nnodes_not_known_may_span_the_group(tmp_path):
    role, out = _role(tmp_path, LWS % ("", SGLANG[0], SGLANG[1].replace("--tp 1", "--tp 3 --nnodes $(NNODES)")))
    assert role.accelerators.count is None and role.replicas.value == 2, role  # no per-pod guess either


def test_a_leader_templates_vllm_keeps_its_workers(tmp_path):
    # LWS's vLLM recipe: the leader serves, the workers join its Ray cluster from a script
    role, out = _role(tmp_path, LWS % (LEADER, "vllm/vllm-openai:v0.11.2",
                                       "bash multi-node-serving.sh worker --ray_address=$(LWS_LEADER_ADDRESS)"))
    assert (role.accelerators.count.value, role.replicas.value) == (3, 2), role


def test_an_sglang_leader_without_nnodes_is_a_server_on_its_pod(tmp_path):
    leader = LEADER.replace("vllm/vllm-openai:v0.11.2", SGLANG[0]).replace(
        "vllm serve Qwen/Qwen3-8B --tensor-parallel-size 3", SGLANG[1])
    role, out = _role(tmp_path, LWS % (leader, SGLANG[0], "sleep infinity"))
    assert role.accelerators.count.value == 1 and "CTX205" not in out, (role, out)
