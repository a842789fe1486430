"""`python -m sglang_router.launch_server` is an SGLang launch (dp_size servers of TP tp_size behind a router),
and an argument file of SGLang's benchmark scripts is no server config: two or more of their own keys leave a
file alone, and one in a file a launch reads with `--config` is a key the server refuses (CTX301)."""
from __future__ import annotations

from ctxlint.adapters import adapt_file
from ctxlint.file_reader import parse_bytes
from helpers import run
from tests.adapters.kit import adapt, at

ROUTED = ("#!/bin/bash\n"
          "nohup python3 -u -m sglang_router.launch_server --model-path Qwen/Qwen3-32B --dp-size 4 --tp 2 \\\n"
          "  --router-policy round_robin --router-dp-worker-base-port 32000 --context-length 28000 > s.log 2>&1 &\n")


def _roles(text: str, name: str = "start.sh"):
    result = adapt_file(parse_bytes(text.encode(), name))
    return result, [role for dep in result.deployments for role in dep.roles]


def test_the_router_launcher_runs_dp_size_sglang_servers_of_tp_size():
    # Before: no deployment at all (the module was no engine launcher).
    result, [role] = _roles(ROUTED)
    [dep] = result.deployments
    par = role.parallelism
    assert (dep.engine.name.value, role.role.value, role.context_length.value) == ("sglang", "unified", 28000)
    assert (par.tp, par.dp, par.gpus, role.source.line, role.source.col) == (2, 4, 8, 2, 7)
    # the same engines as SGLang's own data parallelism: one KV pool per TP group, dp_size groups
    plain = ROUTED.replace("sglang_router.launch_server", "sglang.launch_server").replace(
        "--router-policy round_robin --router-dp-worker-base-port 32000 ", "")
    _, [same] = _roles(plain)
    assert (same.parallelism.tp, same.parallelism.dp, same.context_length.value) == (2, 4, 28000)
    assert result.diagnostics == []  # the router's own flags are no refused SGLang flags


def test_the_router_alone_is_no_engine():
    text = "python3 -m sglang_router.launch_router --worker-urls http://127.0.0.1:30000 --policy cache_aware\n"
    result, found = _roles(text)
    assert (found, result.diagnostics) == ([], [])


def test_the_router_launcher_never_reads_a_config_file(tmp_path):
    # it parses ServerArgs itself, without prepare_server_args' ConfigArgumentMerger: `--config` is parsed, unread
    # (read, its pool of 1,000 would be below the context: CTX201; its run-name refused: CTX301)
    (tmp_path / "cfg.yaml").write_text("max-total-tokens: 1000\nrun-name: a\n")
    script = tmp_path / "serve.sh"
    script.write_text("python3 -m sglang_router.launch_server --model-path Qwen/Qwen3-8B --config cfg.yaml "
                      "--context-length 32768\n")
    result = run(["check", "--isolated", "--select", "CTX201,CTX301,CTX008", str(script)])
    assert (result.code, result.out, result.err) == (0, "", "ctxlint: no findings in 1 file, 1 deployment\n")


def test_a_benchmark_argument_file_is_no_server_config():
    # Before: read as a served SGLang config (CTX201 on max-total-tokens against the model's 131,072 context).
    text = ("model: meta-llama/Llama-3.2-1B\nmax-total-tokens: 120000\nattention-backend: torch_native\n"
            "run-name: decode\nbatch-size: 8\ninput-len: 2048\noutput-len: 128\ncorrectness-test: true\n")
    assert (adapt(text).deployments, adapt(text).diagnostics) == ([], [])
    # one benchmark key: a server config the server refuses to start with, located at that key's value
    one = "model-path: Qwen/Qwen3-8B\ncontext-length: 32768\nprompt-filename: /p.txt\n"
    res = adapt(one)
    [dep] = res.deployments
    [diag] = res.diagnostics
    assert (dep.engine.name.value, diag.kind, diag.source.line, at(one, diag.source)) == \
        ("sglang", "engine-rejects-value", 3, "/p.txt")
    assert diag.message == (
        "sglang would refuse to start: deploy.yaml: prompt-filename: unrecognized arguments: --prompt-filename "
        "(an argument of sglang's benchmark scripts, not of the server, which reads every key of its config file "
        "as a flag: remove it)")
    # vLLM's config files have no such keys listed: nothing said
    assert adapt("model: m\nmax-model-len: 8192\nrun-name: a\n").diagnostics == []


def test_a_launch_reading_a_benchmark_argument_file_is_refused_at_its_keys(tmp_path):
    (tmp_path / "bench.yaml").write_text("model-path: Qwen/Qwen3-8B\ncontext-length: 32768\nrun-name: smoke\n"
                                         "batch-size: 8\n")
    (tmp_path / "serve.sh").write_text("python3 -m sglang.launch_server --config bench.yaml\n")
    result = run(["check", "--isolated", "--select", "CTX301", str(tmp_path)])
    text = ("CTX301 [error] sglang would refuse to start: bench.yaml: {0}: unrecognized arguments: --{0} (an "
            "argument of sglang's benchmark scripts, not of the server, which reads every key of its config file as "
            "a flag: remove it) (engine-rejects-value)")
    bench = tmp_path / "bench.yaml"
    assert result.out == f"{bench}:3:11: {text.format('run-name')}\n{bench}:4:13: {text.format('batch-size')}\n"
    assert "in 2 files, 1 deployment" in result.err  # the file alone is no deployment: the launch is


K8S = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: sgl}
spec:
  template:
    spec:
      containers:
        - name: %s
          image: lmsysorg/sglang:v0.5.2-cu126
          command: ["python3", "-m", "sglang_router.%s"]
          args: ["--model-path", "Qwen/Qwen3-32B", "--dp-size", "4", "--tp", "2", "--worker-urls", "http://w:30000"]
          resources: {limits: {nvidia.com/gpu: 8}}
"""


def test_the_router_marker_does_not_take_the_launcher_for_a_router_alone():
    res = adapt(K8S % ("server", "launch_server"))
    [dep] = res.deployments
    [role] = dep.roles
    assert (role.parallelism.gpus, role.accelerators.count.value) == (8, 8)
    assert res.routes == []  # its router fronts the servers it starts, whatever --worker-urls says
    router = adapt(K8S % ("router", "launch_router"))
    assert router.deployments == [] and [r.gateway for r in router.routes] == ["SGLang router"]
