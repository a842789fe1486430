"""A workload and the ConfigMap it reads its engine settings from, in sibling files (`kubectl apply -f dir/`).

The layout of kcns008/llm-on-k8s openshift-kimi-k2-0905-vllm/manifests (03-configmap.yaml beside
05-deployment.yaml, `configMapKeyRef`) and QuentinHamonic/llm-ops-sandbox k8s/vllm (`envFrom`). Kubernetes'
rules are the kubelet's (kubernetes/kubernetes pkg/kubelet/kubelet_pods.go makeEnvironmentVariables).
"""
from __future__ import annotations

import json

from ctxlint.audit import build_audit
from ctxlint.engine import lint_paths
from helpers import run

DEPLOY = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm, namespace: inference}
spec:
  template:
    spec:
      nodeSelector: {nvidia.com/gpu.product: NVIDIA-L4}
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.10.1
        args: [--model, $(MODEL_ID), --max-model-len, $(MAX_LEN)]
        env:
        - name: MODEL_ID
          valueFrom: {configMapKeyRef: {name: vllm-config, key: MODEL_ID}}
        - name: MAX_LEN
          valueFrom: {configMapKeyRef: {name: vllm-config, key: MAX_LEN}}
        resources: {limits: {nvidia.com/gpu: "1"}}
"""
CONFIG = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: vllm-config, namespace: inference}
data:
  MODEL_ID: meta-llama/Llama-3.1-8B-Instruct
  MAX_LEN: "131072"
"""
CTX201_AT = "config.yaml:6:12: CTX201"


def _write(root, files):
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def _locations(out: str):
    return [line.split(" [")[0] for line in out.splitlines()]


def _role(path):
    [dep] = lint_paths([str(path)]).deployments
    [role] = dep.roles
    return dep, role


def test_a_config_map_in_a_sibling_file_is_read_as_in_one_file(tmp_path, monkeypatch):
    # before: --model $(MODEL_ID) and --max-model-len $(MAX_LEN) were unknown (CTX008), no capacity verdict
    _write(tmp_path, {"split/deploy.yaml": DEPLOY, "split/config.yaml": CONFIG,
                      "one/all.yaml": CONFIG + "---\n" + DEPLOY})
    monkeypatch.chdir(tmp_path)
    split, one = run(["check", "split"]), run(["check", "one"])
    assert _locations(split.out) == ["split/" + CTX201_AT]  # the value, where the ConfigMap's file writes it
    assert _locations(one.out) == ["one/all.yaml:6:12: CTX201"]
    assert split.out.split(" [", 1)[1] == one.out.split(" [", 1)[1]
    assert split.err == "ctxlint: 1 error in 2 files, 1 deployment\n"
    assert run(["check", "split", "--jobs", "2"]).out == split.out
    dep, role = _role(tmp_path / "split")
    assert (dep.file, dep.model.id.value, dep.model.id.source.file, dep.model.id.source.line) == (
        str(tmp_path / "split/deploy.yaml"), "meta-llama/Llama-3.1-8B-Instruct", str(tmp_path / "split/config.yaml"), 5)
    assert (role.context_length.value, role.context_length.source.file) == (131072, str(tmp_path / "split/config.yaml"))
    # the audit row holds the finding in the ConfigMap's file
    audit = build_audit(lint_paths(["split"]))
    assert [(row.name, [(f.rule, f.file) for f in row.findings]) for row in audit.rows] == [
        ("vllm", [("CTX201", "split/config.yaml")])]
    assert audit.outside == ()


def test_files_named_one_by_one_read_their_directory(tmp_path, monkeypatch):
    # pre-commit passes the staged files: the other side is context; its findings about the named file's
    # deployment are reported
    _write(tmp_path, {"d/deploy.yaml": DEPLOY, "d/config.yaml": CONFIG})
    monkeypatch.chdir(tmp_path)
    staged_config = run(["check", "d/config.yaml"])
    assert (_locations(staged_config.out), staged_config.err) == (["d/" + CTX201_AT],
                                                                  "ctxlint: 1 error in 1 file, 1 deployment\n")
    staged_deploy = run(["check", "d/deploy.yaml"])  # the value is in a file not passed: its deployment's finding
    assert (_locations(staged_deploy.out), staged_deploy.err) == (["d/" + CTX201_AT],
                                                                  "ctxlint: 1 error in 1 file, 1 deployment\n")
    assert "CTX008" not in run(["check", "d/deploy.yaml", "--select", "CTX008"]).out
    both = run(["check", "d/deploy.yaml", "d/config.yaml"])
    assert _locations(both.out) == ["d/" + CTX201_AT]


def test_suppressions_and_baselines_are_where_the_finding_is(tmp_path, monkeypatch):
    _write(tmp_path, {"d/deploy.yaml": DEPLOY, "d/config.yaml": CONFIG})
    monkeypatch.chdir(tmp_path)
    # the workload's ignore annotation covers its own document only: the finding is in the ConfigMap's file
    annotated = DEPLOY.replace("metadata: {name: vllm, namespace: inference}",
                               "metadata:\n  name: vllm\n  namespace: inference\n"
                               "  annotations: {ctxlint.io/ignore.CTX201: tested elsewhere}")
    (tmp_path / "d/deploy.yaml").write_text(annotated)
    out = run(["check", "d"]).out
    assert _locations(out)[0] == "d/" + CTX201_AT and "CTX007" in out  # and the annotation suppresses nothing
    (tmp_path / "d/deploy.yaml").write_text(DEPLOY)
    # a comment on the ConfigMap's line does
    (tmp_path / "d/config.yaml").write_text(CONFIG.replace('"131072"', '"131072"  # ctxlint: ignore[CTX201] -- ok'))
    assert run(["check", "d"]).out == ""
    (tmp_path / "d/config.yaml").write_text(CONFIG)
    # a baseline keys the finding by the ConfigMap's file and value: a new value is a new finding
    assert run(["baseline", "create", "d"]).code == 0
    entries = json.loads((tmp_path / ".ctxlint-baseline.json").read_text())["entries"]
    assert [(e["rule"], e["file"], e["deployment"]) for e in entries] == [("CTX201", "d/config.yaml", "vllm")]
    assert run(["check", "d", "--baseline", ".ctxlint-baseline.json"]).out == ""
    (tmp_path / "d/config.yaml").write_text(CONFIG.replace('"131072"', '"65536"'))
    assert _locations(run(["check", "d", "--baseline", ".ctxlint-baseline.json"]).out) == ["d/config.yaml:6:12: CTX201"]


ENV_FROM = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm}
spec:
  template:
    spec:
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.10.1
        args: [--model, $(VLLM_MODEL), --max-model-len, $(LEN)]
        envFrom:
        - configMapRef: {name: first}
        - configMapRef: {name: second}
        - {prefix: X_, configMapRef: {name: second}}
        env: ENV
        resources: {limits: {nvidia.com/gpu: "1"}}
"""
FIRST = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: first}
data: {VLLM_MODEL: Qwen/Qwen3-8B, LEN: "8192"}
"""
SECOND = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: second}
data: {LEN: "16384", OTHER: "1"}
"""


def test_env_from_precedence_and_prefix_as_the_kubelet_resolves_them(tmp_path):
    # envFrom sources in order, a later one's key winning; then env, which beats them all; `prefix` renames
    _write(tmp_path, {"deploy.yaml": ENV_FROM.replace("env: ENV", "env: []"), "first.yaml": FIRST,
                      "second.yaml": SECOND})
    dep, role = _role(tmp_path)
    assert (dep.model.id.value, dep.model.id.source.file) == ("Qwen/Qwen3-8B", str(tmp_path / "first.yaml"))
    assert (role.context_length.value, role.context_length.source.file) == (16384, str(tmp_path / "second.yaml"))
    (tmp_path / "deploy.yaml").write_text(ENV_FROM.replace("env: ENV", "env: [{name: LEN, value: '4096'}]"))
    assert _role(tmp_path)[1].context_length.value == 4096
    (tmp_path / "deploy.yaml").write_text(ENV_FROM.replace("$(LEN)", "$(X_LEN)").replace("env: ENV", "env: []"))
    assert _role(tmp_path)[1].context_length.value == 16384


def test_optional_refs_and_missing_keys_behave_as_in_kubernetes(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _write(tmp_path, {"d/config.yaml": CONFIG.replace('  MAX_LEN: "131072"\n', "")})
    # a required key the ConfigMap lacks: the kubelet does not start the container
    (tmp_path / "d/deploy.yaml").write_text(DEPLOY)
    out = run(["check", "d", "--select", "CTX002"]).out
    assert out == ("d/deploy.yaml:16:65: CTX002 [error] spec.template.spec.containers[0].env[1].valueFrom."
                   "configMapKeyRef.key: the ConfigMap 'vllm-config' (config.yaml) has no key 'MAX_LEN' and the "
                   "reference is not optional: the kubelet does not start the container (\"couldn't find key MAX_LEN "
                   "in ConfigMap\"); add the key, or mark the reference `optional: true` (schema-violation)\n")
    # an optional one sets nothing: $(MAX_LEN) stays as written, as it does in Kubernetes
    (tmp_path / "d/deploy.yaml").write_text(DEPLOY.replace("key: MAX_LEN}", "key: MAX_LEN, optional: true}"))
    assert run(["check", "d", "--select", "CTX002"]).out == ""
    assert "$(MAX_LEN) (MAX_LEN is not set in the file)" in run(["check", "d", "--select", "CTX008"]).out
    # an optional key a ConfigMap has is read
    _write(tmp_path, {"d/config.yaml": CONFIG})
    assert _locations(run(["check", "d"]).out) == ["d/" + CTX201_AT]


def test_a_config_map_several_files_define_differently_is_not_guessed(tmp_path, monkeypatch):
    # overlays or one file per environment: which one the cluster holds depends on which is applied
    _write(tmp_path, {"d/deploy.yaml": DEPLOY, "d/config-prod.yaml": CONFIG,
                      "d/config-dev.yaml": CONFIG.replace('"131072"', '"8192"')})
    monkeypatch.chdir(tmp_path)
    out = run(["check", "d"]).out
    why = ("comes from the ConfigMap 'vllm-config', which 2 files of its directory define with different data "
           "(config-dev.yaml, config-prod.yaml): which one the pod reads depends on which is applied")
    assert ("d/deploy.yaml:11:25: CTX008 [info] values ctxlint cannot resolve: --model $(MODEL_ID) "
                          f"(MODEL_ID {why}); --max-model-len $(MAX_LEN) (MAX_LEN {why}); ") in out, out
    assert "CTX201" not in out
    # defined alike in both, it is read (from the first, in name order)
    (tmp_path / "d/config-dev.yaml").write_text(CONFIG)
    assert _locations(run(["check", "d"]).out) == ["d/config-dev.yaml:6:12: CTX201"]
    # the workload's own file wins over its siblings, as a runtime in the service's own file does
    (tmp_path / "d/deploy.yaml").write_text(CONFIG.replace('"131072"', '"8192"') + "---\n" + DEPLOY)
    assert "CTX201" not in run(["check", "d"]).out


def test_namespaces_decide_as_kubernetes_does(tmp_path):
    # the pod reads ConfigMaps of its own namespace; an unset namespace is the one it is applied to
    _write(tmp_path, {"deploy.yaml": DEPLOY, "config.yaml": CONFIG.replace("namespace: inference", "namespace: other")})
    assert _role(tmp_path)[1].context_length is None
    (tmp_path / "config.yaml").write_text(CONFIG.replace(", namespace: inference", ""))
    assert _role(tmp_path)[1].context_length.value == 131072
    (tmp_path / "deploy.yaml").write_text(DEPLOY.replace(", namespace: inference", ""))
    (tmp_path / "config.yaml").write_text(CONFIG)
    assert _role(tmp_path)[1].context_length.value == 131072


def test_the_joins_know_the_adapters_markers():
    # engine groups test them before importing the adapters' lookups: the lists must agree
    from ctxlint import joins
    from ctxlint.adapters import config_map_refs
    assert joins.MAP_MARKERS == config_map_refs.MARKERS and joins.MAP_HOLDER == config_map_refs.HOLDER


def test_a_missing_key_of_a_config_map_in_the_same_file_is_refused_too(tmp_path):
    # before: MAX_LEN was unknown, as a secret's value; the kubelet does not start the container
    path = tmp_path / "all.yaml"
    path.write_text(CONFIG.replace('  MAX_LEN: "131072"\n', "") + "---\n" + DEPLOY)
    out = run(["check", str(path), "--select", "CTX002"]).out
    assert out.startswith(f"{path}:22:65: CTX002 [error] spec.template.spec.containers[0].env[1].valueFrom."
                          "configMapKeyRef.key: the ConfigMap 'vllm-config' of this file has no key 'MAX_LEN' "), out
    # a container that runs no engine is not judged (kube-linter's business, as k8s_refusals)
    path.write_text(path.read_text().replace("vllm/vllm-openai:v0.10.1", "busybox").replace(
        "args: [--model, $(MODEL_ID), --max-model-len, $(MAX_LEN)]", "args: [sleep, '1']"))
    assert run(["check", str(path), "--select", "CTX002"]).out == ""


def test_odd_references_are_read_without_a_crash(tmp_path):
    # bad input never crashes: a key that is a mapping, a number for a name, an envFrom item that is a string
    odd = DEPLOY.replace("key: MAX_LEN}", "key: {a: b}}").replace("name: vllm-config, key: MODEL_ID",
                                                                     "name: 7, key: MODEL_ID")
    odd = odd.replace("        env:\n",
                      "        envFrom: [oops, {configMapRef: {name: [x]}}, {configMapRef: 3}]\n        env:\n")
    _write(tmp_path, {"deploy.yaml": odd, "config.yaml": CONFIG})
    dep, role = _role(tmp_path)
    assert (dep.model.id, role.context_length) == (None, None)


def test_a_file_checked_alone_parses_only_the_siblings_that_can_complete_its_join(tmp_path, monkeypatch):
    # a GKE sample that holds its chat-template ConfigMap (mounted, read by no env ref), checked alone, had its
    # whole directory parsed and adapted as context (~35 ms of a pre-commit run); the siblings that cannot name or
    # read a ConfigMap are now skipped on their bytes, while the one that reads it is still joined
    import ctxlint.file_reader as file_reader

    _write(tmp_path, {"d/deploy.yaml": DEPLOY, "d/config.yaml": CONFIG,
                      "d/other.yaml": "apiVersion: v1\nkind: Service\nmetadata: {name: vllm}\n",
                      "d/notes.yaml": "a: 1\n"})
    monkeypatch.chdir(tmp_path)
    parsed = []
    real = file_reader.read_path
    monkeypatch.setattr(file_reader, "read_path", lambda path, **kw: parsed.append(path) or real(path, **kw))
    report = lint_paths(["d/config.yaml"])
    assert parsed == ["d/deploy.yaml"]  # the sibling that reads it, not the Service or the other file
    assert [f.rule for f in report.findings] == ["CTX201"]


# DEPLOY, and a namesake in another namespace that writes its window itself and reads no ConfigMap
NAMESAKES = DEPLOY + "---\n" + DEPLOY.replace("namespace: inference", "namespace: other").replace(
    "$(MODEL_ID), --max-model-len, $(MAX_LEN)", 'meta-llama/Llama-3.1-8B-Instruct, --max-model-len, "131072"').split(
    "        env:\n")[0] + '        resources: {limits: {nvidia.com/gpu: "1"}}\n'


def test_a_namesake_deployment_of_a_context_file_is_not_reported(tmp_path, monkeypatch):
    # the ConfigMap staged alone: its workload (namespace inference) fits; the other namespace's `vllm` does not,
    # and never reads the ConfigMap: its finding is not the staged file's (a finding names a deployment by name)
    config = CONFIG.replace('"131072"', '"8192"')
    _write(tmp_path, {"d/config.yaml": config, "d/deploys.yaml": NAMESAKES})
    monkeypatch.chdir(tmp_path)
    assert _locations(run(["check", "d"]).out) == ["d/deploys.yaml:29:77: CTX201"]
    alone = run(["check", "d/config.yaml"])
    assert (alone.code, alone.out, alone.err) == (0, "", "ctxlint: no findings in 1 file, 1 deployment\n")

