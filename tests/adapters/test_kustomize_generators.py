"""A kustomization's configMapGenerator makes the ConfigMap a workload of its directory mounts (adapters/
kustomize_maps.py): the Deployment reads the generated `--config` file with its keys where they are typed, the
input file is no deployment of its own, and `literals` feed `configMapKeyRef`. Layout of danielpenchev98/vllm-k8s
deploy/components/vllm (written anew here)."""
from __future__ import annotations

import json

import pytest

from helpers import run

DEPLOY = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm}
spec:
  template:
    spec:
      nodeSelector: {cloud.google.com/gke-accelerator: nvidia-l4}
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          args: ["--config", "/etc/vllm/config.yaml", "--max-num-seqs", "$(SEQS)"]
          env:
            - name: SEQS
              valueFrom: {configMapKeyRef: {name: vllm-env, key: SEQS}}
          resources: {limits: {nvidia.com/gpu: 1}}
          volumeMounts:
            - {name: config, mountPath: /etc/vllm}
      volumes:
        - name: config
          configMap: {name: vllm-config}
"""
CONFIG = """\
# engine settings
model: Qwen/Qwen2.5-7B-Instruct
max-model-len: 200000
"""
KUSTOMIZATION = """\
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources: [vllm-deployment.yaml]
configMapGenerator:
  - name: vllm-config
    files:
      - {entry}
  - name: vllm-env
    literals: [SEQS=8]
"""


def _tree(tmp_path, entry="config.yaml=vllm-config.yaml", config_name="vllm-config.yaml"):
    (tmp_path / "vllm-deployment.yaml").write_text(DEPLOY)
    (tmp_path / config_name).write_text(CONFIG)
    (tmp_path / "kustomization.yaml").write_text(KUSTOMIZATION.format(entry=entry))
    return tmp_path


def _findings(*paths):
    res = run(["check", "--format", "json", *map(str, paths)])
    out = json.loads(res.out)
    return [(f["rule"], f["file"].rsplit("/", 1)[-1], f["line"], f["column"]) for f in out["findings"]], \
        out["summary"]["deployments"]


@pytest.mark.parametrize("entry, name", [("config.yaml=vllm-config.yaml", "vllm-config.yaml"),
                                         ("config.yaml", "config.yaml")])  # `path` alone: the key is its basename
def test_the_deployment_reads_the_generated_config_file(tmp_path, entry, name) -> None:
    _tree(tmp_path, entry, name)
    found, deployments = _findings(tmp_path)
    assert deployments == 1  # the generator's input is no second, model-less deployment
    # max-model-len 200,000 is typed in the input file: the findings point there, and no CTX008 says the
    # engine settings are in a file this manifest does not hold
    assert ("CTX008", "vllm-deployment.yaml") not in [(rule, file) for rule, file, _, _ in found]
    assert found and all(file == name and line == 3 for _, file, line, _ in found), found


def test_each_file_alone(tmp_path) -> None:
    _tree(tmp_path)
    found, deployments = _findings(tmp_path / "vllm-deployment.yaml")  # as pre-commit passes it
    assert deployments == 1 and found and all(rule != "CTX008" for rule, *_ in found), found
    assert _findings(tmp_path / "vllm-config.yaml") == ([], 0)


def test_literals_feed_config_map_key_refs(tmp_path) -> None:
    from ctxlint.engine import lint_paths

    _tree(tmp_path)
    report = lint_paths([str(tmp_path)])
    [dep] = report.deployments
    assert dep.roles[0].arg("max_num_seqs").value == 8


def test_a_config_file_no_generator_names_is_still_its_own_deployment(tmp_path) -> None:
    _tree(tmp_path, "config.yaml=other.yaml")
    assert _findings(tmp_path / "vllm-config.yaml")[1] == 1


def test_a_literal_loses_one_pair_of_quotes(tmp_path) -> None:
    # review: kustomize's removeQuotes drops them (`SEQS="8"` is 8); kept, vLLM was said to refuse '"8"'
    from ctxlint.engine import lint_paths

    _tree(tmp_path)
    text = (tmp_path / "kustomization.yaml").read_text()
    (tmp_path / "kustomization.yaml").write_text(text.replace("literals: [SEQS=8]", "literals: ['SEQS=\"8\"']"))
    report = lint_paths([str(tmp_path)])
    [dep] = report.deployments
    seqs = dep.roles[0].arg("max_num_seqs")
    assert seqs.value == 8 and (seqs.source.line, seqs.source.col) == (9, 23)  # the 8 inside the quotes
    assert not [f for f in report.findings if f.rule == "CTX301"]


@pytest.mark.parametrize("more", ["    envs: [vllm.env]\n", "    behavior: merge\n",
                                  "    files: [missing.conf]\n"])
def test_a_generator_with_sources_not_read_leaves_a_missing_key_unknown(tmp_path, more) -> None:
    # review: with `envs` (KEY=VALUE files), `behavior: merge` or a `files` input not found, the generated map may
    # hold the key: the kubelet refusing the container (CTX002) was a false error; the value is unknown
    _tree(tmp_path)
    (tmp_path / "vllm.env").write_text("SEQS=8\n")
    text = (tmp_path / "kustomization.yaml").read_text().replace("    literals: [SEQS=8]\n", more)
    (tmp_path / "kustomization.yaml").write_text(text)
    found, deployments = _findings(tmp_path)
    assert deployments == 1 and "CTX002" not in [rule for rule, *_ in found], found


def test_env_file_lines_as_kustomize_reads_them(tmp_path) -> None:
    from ctxlint.adapters.kustomize_maps import env_pairs
    from ctxlint.file_reader import read_path

    path = tmp_path / "runtime.env"
    path.write_bytes("\ufeffA=1\r\n# c\n\n\t B= 'x' \nFROM_ENV\nC=\n".encode())
    data, why = env_pairs(read_path(str(path)))
    assert {k: (v.value, v.source(str(path)).line, v.source(str(path)).col) for k, v in data.items()} == {
        "A": ("1", 1, 3), "B": (" 'x' ", 4, 5), "C": ("", 6, 3)}
    assert why == "its `envs` line FROM_ENV takes its value from kustomize's environment"
    path.write_text("BAD KEY=1\n")
    assert env_pairs(read_path(str(path))) is None  # kustomize refuses a key that is no variable name
