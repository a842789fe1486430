"""End to end: `ctxlint check` on Kubernetes files with no native manifest."""
from __future__ import annotations

from helpers import run


def test_vllm_window_over_pinned_pool_fails_at_the_value(in_repo):
    result = run(["check", "samples/kubernetes/vllm-window-too-long"])
    assert result.code == 1
    # the pool is pinned by --num-gpu-blocks-override, which vLLM's startup check does not count (before
    # vllm#41069): it starts and hangs (CTX401's CTXA-2026-002), and CTX201 says so
    advisory, line = result.out.splitlines()
    assert advisory.startswith("samples/kubernetes/vllm-window-too-long/deployment.yaml:17:35: CTX401 [error] "
                               "CTXA-2026-002: vLLM: a request longer than the KV pool")
    assert "vLLM starts (its startup check counts the memory it profiled, not --num-gpu-blocks-override" in line
    assert line.startswith("samples/kubernetes/vllm-window-too-long/deployment.yaml:21:16: CTX201 [error] "
                           "131,072 > 65,520")  # the 4,096 x 16-token pool less vLLM's null block
    source = (in_repo / "samples/kubernetes/vllm-window-too-long/deployment.yaml").read_text().splitlines()
    assert source[20][15:].startswith("131072")


def test_vllm_fixed_twin_passes(in_repo):
    result = run(["check", "samples/kubernetes/vllm-window-fixed"])
    assert (result.code, result.out) == (0, "")
    assert "no findings in 1 file, 1 deployment" in result.err


def test_sglang_prefill_decode_pair_is_one_deployment_with_ctx102(in_repo):
    result = run(["check", "samples/kubernetes/sglang-prefill-decode"])
    assert result.code == 1
    rules = [line.split(" ")[1] for line in result.out.splitlines()]
    # the decode's --max-total-tokens only caps a pool ctxlint cannot derive (no device); the model's 262,144 trained
    # positions are below both roles' 1,048,576 (CTX109)
    assert rules == ["CTX401", "CTX102", "CTX109", "CTX201", "CTX208", "CTX109"]
    assert result.out.splitlines()[1].startswith("samples/kubernetes/sglang-prefill-decode/deployment.yaml:20:32: CTX102 [error] "
                                 "security: prompts up to 1,048,576 tokens")
    assert "1 deployment" in result.err


def test_annotations_set_advertised_limits_and_bad_counts_are_reported(tmp_path):
    path = tmp_path / "d.yaml"
    path.write_text("""\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: chat
  annotations:
    ctxlint.io/context-window: 128Ki
    ctxlint.io/max-output-tokens: 128K
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          args: [m, --max-model-len, "32768", --num-gpu-blocks-override, "8192"]
""")
    result = run(["check", str(path)])
    assert result.code == 1
    lines = result.out.splitlines()
    assert any(":14:39: CTX104 [error] 131,072 > 32,768" in line for line in lines), lines  # window from the annotation
    assert any(":7:35: CTX005 [error]" in line for line in lines), lines


def test_engine_switches_set_by_env_reach_the_engine_rules(tmp_path):
    path = tmp_path / "d.yaml"
    path.write_text("""\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: long
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          args: ["--model", "mistralai/Mistral-7B-Instruct-v0.3", "--max-model-len", "131072"]
          env:
            - name: VLLM_ALLOW_LONG_MAX_MODEL_LEN
              value: "1"
""")
    result = run(["check", str(path), "--select", "CTX303"])
    assert result.code == 1
    assert result.out.startswith(f"{path}:14:22: CTX303 [error] 131,072 > 32,768 x 1 = 32,768: "
                                 "VLLM_ALLOW_LONG_MAX_MODEL_LEN lets vLLM start")


def test_timestamps_and_binary_are_strings_to_kubernetes(tmp_path):
    # go-yaml v2 (sigs.k8s.io/yaml) hands timestamps and !!binary to string fields as strings:
    # the API server accepts them, so no refusal; a scalar `args` still is one, named as text.
    (tmp_path / "d.yaml").write_text("""\
apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.10.0
          args: ["--model", "Qwen/Qwen3-8B", "--revision", 2024-01-01, "--x", !!binary aGVsbG8=, 7]
          env:
            - {name: A, value: 2024-01-01 10:00:00}
        - name: v2
          image: vllm/vllm-openai:v0.10.0
          args: 2024-01-01
""")
    result = run(["check", "--isolated", "--select", "CTX002", str(tmp_path / "d.yaml")])
    refused = f"{tmp_path / 'd.yaml'}:{{}}: CTX002 [error] the Kubernetes API server refuses this object: "
    assert result.out.splitlines() == [
        refused.format("10:98") + '`args` items must be strings, and this one is the number 7; quote it ("7") '
        "(schema-violation)",
        refused.format("15:17") + "`args` must be a list of strings, not the string '2024-01-01'; write it as a "
        'list (`args: ["...", "..."]`) or run a shell (`command: [sh, -c]`, `args: ["..."]`) (schema-violation)']


PROMISED = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: chat
  annotations:
    ctxlint.io/context-window: "8192"
    ctxlint.io/max-output-tokens: "1024"
    ctxlint.io/gateway-max-prompt-tokens: "7168"
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          args: [m, --max-model-len, "8192", --num-gpu-blocks-override, "8192"]
"""


def test_readme_promise_annotations_on_the_workload_are_not_unknown_annotations(tmp_path):
    # Issue 13 item 1: following the README failed a `--fail-on warning` gate with CTX006.
    path = tmp_path / "d.yaml"
    path.write_text(PROMISED)
    result = run(["check", "--fail-on", "warning", str(path)])
    assert (result.code, result.out) == (0, "")


def test_a_mistyped_promise_annotation_is_still_reported(tmp_path):
    path = tmp_path / "d.yaml"
    path.write_text(PROMISED.replace("context-window", "context-windw"))
    result = run(["check", "--select", "CTX006", str(path)])
    assert result.out == (
        f"{path}:6:5: CTX006 [warning] unknown ctxlint annotation 'ctxlint.io/context-windw': expected "
        "'ctxlint.io/ignore.CTX101: \"reason\"' or one of ctxlint.io/available-kv-gib, ctxlint.io/context-window, "
        "ctxlint.io/gateway-max-prompt-tokens, ctxlint.io/kv-pool-tokens, ctxlint.io/max-output-tokens "
        "(invalid-suppression)\n")


MEASURED = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: chat
  annotations:
    ctxlint.io/available-kv-gib: "51.63"   # vLLM: "Available KV cache memory: 51.63 GiB"
spec:
  template:
    spec:
      nodeSelector: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.9.1
          command: [vllm, serve, meta-llama/Llama-3.1-8B-Instruct, --max-model-len, "131072", --speculative-config,
                    '{"method": "eagle", "model": "yuhuili/EAGLE-LLaMA3.1-Instruct-8B"}']
          resources: {limits: {nvidia.com/gpu: 1}}
"""


def test_the_pool_the_engine_logged_is_stated_with_annotations(tmp_path):
    # vllm-project/vllm#19996: 51.63 GiB available, Llama-3.1-8B + EAGLE -> "GPU KV cache size: 410,128 tokens"
    import json
    path = tmp_path / "d.yaml"
    path.write_text(MEASURED)
    result = run(["check", "--fail-on", "warning", str(path)])
    assert (result.code, result.out) == (0, "")  # a known annotation, and the engine's own figure: no band
    [row] = json.loads(run(["audit", str(path), "--format", "json"]).out)["deployments"]
    assert row["prefill_pool"] == {"tokens": 410_128, "origin": "derived", "role": "unified"}
    path.write_text(MEASURED.replace('available-kv-gib: "51.63"', "kv-pool-tokens: 100Ki"))
    result = run(["check", "--select", "CTX201", str(path)])
    assert result.out.startswith(f"{path}:14:86: CTX201 [error] 131,072 > 102,384: the unified engine context "
                                 "length 131,072 exceeds its KV pool 102,400 (declared), which holds at most 102,384 "
                                 "tokens for one request (one 16-token block is vLLM's null block)")
    # the engine's own flag is what it runs with: an annotation does not replace it
    path.write_text(MEASURED.replace('available-kv-gib: "51.63"', "kv-pool-tokens: 100Ki").replace(
        '"131072",', '"131072", --num-gpu-blocks-override, "5000",'))
    out = run(["check", "--select", "CTX201", str(path)]).out
    assert "exceeds its KV pool 80,000 (declared)" in out and "102,400" not in out
    path.write_text(MEASURED.replace('"51.63"', "plenty"))
    assert run(["check", "--select", "CTX002", str(path)]).out == (
        f"{path}:6:34: CTX002 [error] metadata.annotations[\"ctxlint.io/available-kv-gib\"]: 'plenty' is not a "
        "positive number of GiB (the engine's \"Available KV cache memory\" figure, e.g. 51.63) (schema-violation)\n")


_DP_RANK = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: dp-rank
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.13.0
          command: [vllm, serve, Qwen/Qwen3-0.6B, --data-parallel-size, "2", --max-model-len, "2048"RANK]
          resources:
            limits:
              nvidia.com/gpu: "1"
"""


def test_a_vllm_data_parallel_rank_runs_one_rank_a_pod(tmp_path):
    # --data-parallel-rank turns on vLLM's external load balancing: this instance runs that one rank
    # (data_parallel_size_local = 1), so the pod needs tensor x pipeline GPUs, not x the global DP size
    path = tmp_path / "d.yaml"
    path.write_text(_DP_RANK.replace("RANK", ""))
    assert "CTX204 [error] 2 > 1: the unified engine needs tensor x pipeline x data = 2 GPUs" in run(
        ["check", str(path)]).out
    for rank in ('"0"', '"$(LWS_WORKER_INDEX)"'):  # the flag alone decides, known value or not
        path.write_text(_DP_RANK.replace("RANK", f", --data-parallel-rank, {rank}"))
        result = run(["check", str(path), "--format", "json"])
        assert "CTX204" not in result.out and "CTX205" not in result.out, result.out


def test_limit_mm_per_prompt_pairs_are_refused_only_by_the_releases_that_refuse_them(tmp_path):
    text = _DP_RANK.replace("RANK", ", --limit-mm-per-prompt, image=1").replace(
        '--data-parallel-size, "2", ', "")
    said = {}
    for tag in ("v0.9.0.1", "v0.10.1", "latest"):
        path = tmp_path / f"{tag}.yaml"
        path.write_text(text.replace("v0.13.0", tag))
        said[tag] = [line.split(": ", 1)[1] for line in run(["check", str(path)]).out.splitlines() if "CTX301" in line]
    assert said["v0.9.0.1"] == []  # read as {"image": 1}, with a deprecation warning
    assert said["v0.10.1"] == ["CTX301 [error] vllm 0.10.1 would refuse to start: argument --limit-mm-per-prompt: "
                               'invalid JSON: Expecting value: line 1 column 1 (char 0); write {"image": 1} (vllm read '
                               "KEY=VALUE pairs before 0.10.0) (engine-rejects-value)"]
    assert said["latest"] == [said["v0.10.1"][0].replace("vllm 0.10.1 would", "vllm 0.10.0 and later would")]


_TGI = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: llm
  annotations: {ctxlint.io/context-window: "4096"}
spec:
  template:
    spec:
      containers:
        - name: llm
          image: ghcr.io/huggingface/text-generation-inference:TAG
          env:
            - {name: MODEL_ID, value: MODEL}
"""


def test_tgi_before_2_0_defaults_max_total_tokens_to_2048_whatever_the_model(tmp_path):
    # launcher/src/main.rs of TGI 1.x: `#[clap(default_value = "2048", long, env)] max_total_tokens`
    path = tmp_path / "d.yaml"
    for model in ("meta-llama/Llama-2-7b-hf", "myorg/not-in-any-catalog"):
        path.write_text(_TGI.replace("TAG", "1.4.5").replace("MODEL", model))
        out = run(["check", str(path), "--select", "CTX104"]).out
        assert "CTX104 [error] 4,096 > 2,048: the advertised window exceeds the unified engine context length " \
               "2,048 (the engine's default)" in out, (model, out)
    path.write_text(_TGI.replace("TAG", "2.0.4").replace("MODEL", "myorg/not-in-any-catalog"))
    assert run(["check", str(path), "--select", "CTX104"]).out == ""  # from 2.0 the default follows the model


def test_a_logged_pool_is_the_least_of_a_cap_and_is_one_engines(tmp_path):
    # review: SGLang's --max-total-tokens is a cap (the engine takes the least of it and what memory
    # holds), so a lower logged pool is the pool; a resource that runs two engines cannot say whose
    path = tmp_path / "d.yaml"
    path.write_text(MEASURED.replace('available-kv-gib: "51.63"', 'kv-pool-tokens: "100000"').replace(
        "vllm/vllm-openai:v0.9.1", "lmsysorg/sglang:v0.5.2").replace(
        """[vllm, serve, meta-llama/Llama-3.1-8B-Instruct, --max-model-len, "131072", --speculative-config,
                    '{"method": "eagle", "model": "yuhuili/EAGLE-LLaMA3.1-Instruct-8B"}']""",
        """[python3, -m, sglang.launch_server, --model-path, meta-llama/Llama-3.1-8B-Instruct,
                    --context-length, "131072", --max-total-tokens, "500000"]"""))
    assert "exceeds its KV pool 100,000 (declared)" in run(["check", "--select", "CTX201", str(path)]).out
    path.write_text("""\
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata:
  name: disagg
  annotations: {ctxlint.io/kv-pool-tokens: "20000"}
spec:
  services:
    Decode:
      componentType: worker
      extraPodSpec:
        mainContainer:
          command: [python3, -m, dynamo.vllm]
          args: [--model, Qwen/Qwen3-32B, --max-model-len, "32768"]
    Prefill:
      componentType: worker
      extraPodSpec:
        mainContainer:
          command: [python3, -m, dynamo.vllm]
          args: [--model, Qwen/Qwen3-32B, --max-model-len, "32768", --is-prefill-worker]
""")
    out = run(["check", "--select", "CTX008,CTX102,CTX103,CTX201", str(path)]).out
    assert out == (f'{path}:5:44: CTX008 [info] the pool the engine logged (metadata.annotations["ctxlint.io/kv-pool-'
                   'tokens"]) is one engine\'s, but this resource runs 2 engine roles, each with a pool of its own: it '
                   "is applied to none of them (unresolved-value)\n")


RAY_WORKER = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: ray-worker}
spec:
  template:
    spec:
      containers:
      - name: ray-worker
        image: vllm/vllm-openai:v0.11.0
        command: ["/bin/bash", "-c"]
        args:
        - |
          START
          vllm serve Qwen/Qwen2.5-72B-Instruct -tp TP --distributed-executor-backend ray --max-model-len 32768
        resources: {limits: {nvidia.com/gpu: 8}}
"""


def test_an_engine_in_a_pod_that_joins_a_ray_cluster_may_use_its_other_gpus(tmp_path):
    # sweep 10: a worker pod that runs `ray start --address` (or a head pod, `ray start --head`) and then vLLM
    # with the Ray executor spans the cluster's GPUs (vllm/v1/executor/ray_utils.py places a bundle per rank):
    # TP 16 over an 8-GPU pod was a false CTX204. Without `ray start` it is still an error; within the pod's
    # GPUs the count is the pod's (4 of 8 idle is still a warning).
    path = tmp_path / "ray.yaml"
    found = {}
    for start, tp in (("ray start --address=ray-head:6379", 16), ("ray start --head --port=6379", 16),
                      ("echo no cluster", 16), ("ray start --address=ray-head:6379", 4)):
        path.write_text(RAY_WORKER.replace("START", start).replace("TP", str(tp)))
        out = run(["check", str(path), "--isolated", "--select", "CTX204,CTX205"]).out
        found[start.split()[-1], tp] = [line.split(": ")[1].split()[0] for line in out.splitlines() if "CTX20" in line]
    assert found == {("--address=ray-head:6379", 16): [], ("--port=6379", 16): [], ("cluster", 16): ["CTX204"],
                     ("--address=ray-head:6379", 4): ["CTX205"]}


SGLANG_NODE = """\
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: sglang-RANK}
spec:
  template:
    spec:
      containers:
      - name: sglang
        image: lmsysorg/sglang:v0.5.4
        command: [python3, -m, sglang.launch_server, --model-path, Qwen/Qwen2.5-72B-Instruct, --tp, "16",
                  --nnodes, "2", --node-rank, "RANK", --dist-init-addr, "sglang-0:5000"]
        resources: {limits: {nvidia.com/gpu: 8}}
"""


def test_a_follower_node_of_a_multi_node_sglang_engine_is_no_deployment(tmp_path):
    # sweep 10: `--node-rank 1` starts schedulers and a dummy health check, no tokenizer or API
    # (sglang entrypoints/engine.py _launch_subprocesses): one TP-16 engine over two pods was two deployments
    path = tmp_path / "sglang.yaml"
    path.write_text("---\n".join(SGLANG_NODE.replace("RANK", rank) for rank in ("0", "1", "$(POD_INDEX)")))
    import json
    names = [d["name"] for d in json.loads(run(["audit", str(path), "--format", "json"]).out)["deployments"]]
    assert names == ["sglang-0", "sglang-$(POD_INDEX)"]  # a rank ctxlint cannot read stays, its rank unknown


def test_a_group_that_runs_ray_is_its_own_cluster_and_a_group_worker_is_its_engine(tmp_path):
    # review of f85c430/314012a: a LeaderWorkerSet's pods are the Ray cluster its leader starts, counted as the group
    # (TP 8 x PP 4 over 2 x 8 GPUs stays a CTX204); a group whose leader runs no engine ctxlint reads is described by
    # its worker template, `--node-rank 1` or not (its deployment was dropped)
    lws = """\
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: g}
spec:
  leaderWorkerTemplate:
    size: 2
    leaderTemplate:
      spec:
        containers:
        - name: leader
          image: IMAGE
          command: ["sh", "-c", "LEADER"]
          resources: {limits: {nvidia.com/gpu: "8"}}
    workerTemplate:
      spec:
        containers:
        - name: worker
          image: IMAGE
          command: ["sh", "-c", "WORKER"]
          resources: {limits: {nvidia.com/gpu: "8"}}
"""
    path = tmp_path / "lws.yaml"
    path.write_text(lws.replace("IMAGE", "vllm/vllm-openai:v0.8.5").replace(
        "LEADER", "ray start --head; vllm serve Qwen/Qwen3-8B -tp 8 -pp 4").replace(
        "WORKER", "ray start --address=$(LWS_LEADER_ADDRESS):6379 --block"))
    out = run(["check", str(path), "--isolated", "--select", "CTX204"]).out
    assert "CTX204 [error] 32 > 16" in out and "(8 per pod x 2 pods (LeaderWorkerSet size))" in out
    path.write_text(lws.replace("IMAGE", "lmsysorg/sglang:v0.5.4").replace("LEADER", "bash /scripts/start.sh").replace(
        "WORKER", "python3 -m sglang.launch_server --model-path Qwen/Qwen2.5-72B-Instruct --tp 16 --nnodes 2 "
                  "--node-rank 1 --context-length 131072"))
    out = run(["check", str(path), "--isolated", "--select", "CTX109"]).out
    assert "CTX109 [error] 131,072 > 32,768" in out  # the group has its deployment


def test_a_workload_without_api_version_is_refused_at_its_kind_and_still_read(tmp_path):
    # kubectl refuses it ("apiVersion not set"): said at `kind`, and the engine is read all the same
    (tmp_path / "d.yaml").write_text("""\
kind: Deployment
metadata: {name: d}
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.10.0
          args: [Qwen/Qwen3-8B, --max-model-len, "8192"]
          resources: {limits: {amd.com/gpu: 1}}
---
kind: Deployment
metadata: {name: web}
spec:
  template:
    spec:
      containers: [{name: web, image: nginx}]
""")
    result = run(["check", "--isolated", "--select", "CTX002", str(tmp_path / "d.yaml")])
    assert result.out.splitlines() == [
        f"{tmp_path / 'd.yaml'}:1:1: CTX002 [error] this Deployment has no `apiVersion`: kubectl refuses the file "
        '("apiVersion not set") and the workload never runs; ctxlint reads it all the same. Add the API version of '
        "its kind (`apiVersion: apps/v1`) (schema-violation)"]  # the nginx Deployment runs no engine: not ours
    assert "1 deployment" in result.err
