"""vLLM `--headless` nodes: no API server of their own, so no deployment (as SGLang's `--node-rank` >= 1 followers).

`vllm serve --headless` runs run_headless, never an API server: data-parallel engines whose API server is the
head's, or at --node-rank >= 1 the workers of node 0's engine (vllm-project/vllm@00a5fdd2:
vllm/entrypoints/cli/serve.py; 0.9.0 on, --nnodes/--node-rank 0.11.1 on). Sweep 27's probes p.sh (head) and q.sh
(worker) were one engine counted twice.
"""
from __future__ import annotations

import json

from helpers import run
from tests.adapters.kit import adapt

HEAD = ("#!/bin/bash\n#SBATCH --gres=gpu:h100:8\n#SBATCH --nodes=2\n"
        "vllm serve meta-llama/Llama-3.1-405B-Instruct-FP8 --tensor-parallel-size 8 --pipeline-parallel-size 2 "
        "--distributed-executor-backend mp --nnodes 2 --node-rank 0 --master-addr 10.0.0.1 --max-model-len 131072\n")
WORKER = HEAD.replace("--node-rank 0 --master-addr 10.0.0.1", "--node-rank 1 --master-addr 10.0.0.1 --headless")


def _deployments(tmp_path, **files: str):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    out = run(["audit", str(tmp_path), "--format", "json"]).out
    return [(d["name"], d["prefill_pool"]["tokens"] if d["prefill_pool"] else None)
            for d in json.loads(out)["deployments"]]


def test_the_head_is_the_deployment_and_the_headless_worker_is_none(tmp_path):
    # the head reads --nnodes: NCCL across nodes is the physics' larger non-torch term (mem_vllm._tail)
    assert _deployments(tmp_path, **{"p.sh": HEAD, "q.sh": WORKER}) == [("p", 1312480)]
    assert run(["check", str(tmp_path / "q.sh")]).out == ""


POD = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: NAME}
spec:
  template:
    spec:
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.11.1
        COMMAND
        resources: {limits: {nvidia.com/gpu: 8}}
"""


def test_who_serves_no_api():
    serve = 'command: [vllm, serve, Qwen/Qwen3-8B, --data-parallel-size, "2", --data-parallel-size-local, "1"'
    module = ('command: [python3, -m, vllm.entrypoints.openai.api_server, --model, Qwen/Qwen3-8B, '
              '--data-parallel-size, "2", --data-parallel-size-local, "1"')
    cases = {
        serve + ", --headless]": 0,  # a data-parallel node: its engines answer the head's API server
        serve + ", --headless, --data-parallel-start-rank, \"1\"]": 0,
        serve + "]": 1,
        # args to the image's entrypoint, which is `vllm serve`
        'args: [--model, Qwen/Qwen3-8B, --nnodes, "2", --node-rank, "1", --headless]': 0,
        # the api_server module read --headless only from vllm#36875: a data-parallel node served an API before
        module + ", --headless]": 1,
        # ... but a --node-rank >= 1 worker serves none through it in any release
        module + ', --nnodes, "2", --node-rank, "1", --headless]': 0,
    }
    for command, count in cases.items():
        assert len(adapt(POD.replace("NAME", "n").replace("COMMAND", command)).deployments) == count, command


def test_a_group_worker_template_stays_the_groups_engine():
    lws = """\
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: g}
spec:
  leaderWorkerTemplate:
    size: 2
    workerTemplate:
      spec:
        containers:
        - name: worker
          image: vllm/vllm-openai:v0.11.1
          command: [vllm, serve, Qwen/Qwen3-8B, -tp, "16", --nnodes, "2", --node-rank, "1", --headless]
          resources: {limits: {nvidia.com/gpu: "8"}}
"""
    [dep] = adapt(lws).deployments  # a group whose leader runs no engine ctxlint reads: its worker describes it
    assert dep.roles[0].accelerators.count.value == 16
