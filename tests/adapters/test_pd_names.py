"""Prefill/decode roles named by workload names or role labels (vLLM kv_both connectors), and how messages
name roles of one kind (Role.name)."""
from __future__ import annotations

from ctxlint.engine import lint_paths
from tests.adapters.kit import adapt, at

DEPLOY = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
  labels: {labels}
spec:
  replicas: {replicas}
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.10.2
          args: ["--model", "Qwen/Qwen3-8B", "--max-model-len", "32768"{extra}]
          resources: {{limits: {{nvidia.com/gpu: 1}}}}
"""
KV_BOTH = ', "--kv-transfer-config", \'{"kv_connector":"NixlConnector","kv_role":"kv_both"}\''


def _doc(name, replicas=1, labels="{}", extra=""):
    return DEPLOY.format(name=name, labels=labels, replicas=replicas, extra=extra)


def test_names_pair_two_workloads_of_one_model_in_one_file():
    text = _doc("qwen-prefill", 2) + "---\n" + _doc("qwen-decode", 3)
    [dep] = adapt(text).deployments
    assert (dep.display_name, [r.kind for r in dep.roles]) == ("qwen-prefill + qwen-decode", ["prefill", "decode"])
    role = dep.roles[0].role
    assert (role.raw, role.source.line, at(text, role.source)) == ("name qwen-prefill", 4, "qwen-prefill")
    assert [r.replicas.value for r in dep.roles] == [2, 3]


def test_a_name_alone_does_not_make_a_lone_workload_a_half():
    [dep] = adapt(_doc("decode")).deployments
    assert [r.kind for r in dep.roles] == ["unified"]


def test_kv_both_takes_the_role_from_a_label_or_the_name():
    labelled = _doc("worker-a", labels="{llm-d.ai/role: prefill}", extra=KV_BOTH)
    [dep] = adapt(labelled).deployments
    assert (dep.roles[0].kind, dep.roles[0].role.raw) == ("prefill", "label llm-d.ai/role: prefill")
    [dep] = adapt(_doc("ds-decode", extra=KV_BOTH)).deployments
    assert dep.roles[0].kind == "decode"
    [dep] = adapt(_doc("ds-worker", extra=KV_BOTH)).deployments  # kv_both, no name or label: unified
    assert dep.roles[0].kind == "unified"
    [dep] = adapt(_doc("prefill-and-decode", extra=KV_BOTH)).deployments  # both words: ambiguous
    assert dep.roles[0].kind == "unified"


def test_named_halves_in_sibling_files_pair(tmp_path, monkeypatch):
    (tmp_path / "p.yaml").write_text(_doc("llm-prefill", 4))
    (tmp_path / "d.yaml").write_text(_doc("llm-decode", 2))
    (tmp_path / "other.yaml").write_text(_doc("other-decode").replace("Qwen3-8B", "Qwen3-32B"))
    monkeypatch.chdir(tmp_path)
    report = lint_paths(["."])
    names = sorted((d.display_name, tuple(r.kind for r in d.roles)) for d in report.deployments)
    assert names == [("llm-prefill + llm-decode", ("prefill", "decode")), ("other-decode", ("unified",))]


def test_roles_of_one_kind_are_named_by_container_and_where_their_command_starts():
    # Before: both engines of the `main` container's if/else were "unified (main)" (their container's line too)
    text = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: llm}
spec:
  template:
    spec:
      containers:
        - name: main
          image: vllm/vllm-openai:v0.8.5
          command: ["sh", "-c"]
          args:
            - |
              if [ -n "$FAST" ]; then
                vllm serve Qwen/Qwen3-8B --max-model-len 4096
              else
                vllm serve Qwen/Qwen3-8B --max-model-len 8192
              fi
        - name: side
          image: vllm/vllm-openai:v0.8.5
          args: ["--model", "Qwen/Qwen3-8B", "--max-model-len", "2048"]
"""
    [dep] = adapt(text).deployments
    assert [r.label for r in dep.roles] == ["unified (main, line 14)", "unified (main, line 16)", "unified (side)"]
    # the engines of one container alone are told apart by line only; one engine of each kind keeps its kind
    [dep] = adapt(text.split("        - name: side")[0]).deployments
    assert [r.label for r in dep.roles] == ["unified (line 14)", "unified (line 16)"]
    [dep] = adapt(_doc("qwen-prefill") + "---\n" + _doc("qwen-decode")).deployments
    assert [r.label for r in dep.roles] == ["prefill", "decode"]
