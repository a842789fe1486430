"""A base Deployment reads `runtime` ConfigMap keys its overlays generate (adapters/kustomize_overlays.py): each
overlay is its own deployment, named as kustomize names it, with the values at their place in the overlay's env
file or literal. Layout of GoogleCloudPlatform/accelerated-platforms@9320f3b online-inference-gpu/vllm (written
anew here, smaller)."""
from __future__ import annotations

import json

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
          args: ["--model=$(MODEL_ID)", "--max-model-len=$(LEN)"]
          env:
            - name: MODEL_ID
              valueFrom: {configMapKeyRef: {name: runtime, key: MODEL_ID}}
            - name: LEN
              valueFrom: {configMapKeyRef: {name: runtime, key: LEN}}
          resources: {limits: {nvidia.com/gpu: 1}}
"""
MODEL = "Qwen/Qwen2.5-7B-Instruct"
FILES = {
    "base/kustomization.yaml": "resources: [deployment.yaml]\n",
    "base/deployment.yaml": DEPLOY,
    "small/kustomization.yaml": ("resources: [../base]\nnameSuffix: -small\nconfigMapGenerator:\n"
                                 "  - name: runtime\n    envs: [runtime.env]\n"),
    "small/runtime.env": f"# the model\nMODEL_ID={MODEL}\n  LEN=200000\n",
    "big/kustomization.yaml": ("resources: [../base]\nnamePrefix: big-\nconfigMapGenerator:\n"
                               f"  - name: runtime\n    literals: [MODEL_ID={MODEL}, \"LEN=300000\"]\n"),
    # an intermediate kustomization: its prefix and suffix apply inside the outer ones
    "mid/kustomization.yaml": "resources: [../base]\nnamePrefix: mid-\nnameSuffix: -mid\n",
    "top/kustomization.yaml": ("resources: [../mid]\nnamePrefix: top-\nnameSuffix: -top\nconfigMapGenerator:\n"
                               f"  - name: runtime\n    literals: [MODEL_ID={MODEL}, LEN=16384]\n"),
}
PATCHED = {
    "patched/kustomization.yaml": ("resources: [../base]\nconfigMapGenerator:\n  - name: runtime\n"
                                   f"    literals: [MODEL_ID={MODEL}, LEN=8192]\npatches:\n  - path: patch.yaml\n"),
    "patched/patch.yaml": ("- op: add\n  path: /spec/template/spec/containers/0/args/-\n"
                           "  value: --max-model-len=300000\n"),
}


def _tree(tmp_path, files=FILES):
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return tmp_path


def _audit(path):
    out = json.loads(run(["audit", "--format", "json", str(path)]).out)
    return sorted((d["name"], d["model"], d["verdict"]) for d in out["deployments"])


def _findings(path):
    out = json.loads(run(["check", "--format", "json", str(path)]).out)
    return sorted((f["rule"], f["file"][len(str(path)) + 1:], f["line"], f["column"], f["deployment"])
                  for f in out["findings"])


def test_each_overlay_is_a_deployment_with_its_generated_config_map(tmp_path) -> None:
    _tree(tmp_path)
    assert _audit(tmp_path) == [("big-vllm", MODEL, "exceeds"), ("top-mid-vllm-mid-top", MODEL, "fits"),
                                ("vllm-small", MODEL, "exceeds")]
    # the length each overlay gives is found where it is typed: the env file's value, the literal's
    assert _findings(tmp_path) == [
        ("CTX109", "big/kustomization.yaml", 5, 56, "big-vllm"),
        ("CTX109", "small/runtime.env", 3, 7, "vllm-small"),
        ("CTX201", "big/kustomization.yaml", 5, 56, "big-vllm"),
        ("CTX201", "small/runtime.env", 3, 7, "vllm-small"),
    ]


def test_the_base_alone_reads_its_overlays(tmp_path) -> None:
    _tree(tmp_path)
    assert _audit(tmp_path / "base") == [("big-vllm", MODEL, "exceeds"), ("top-mid-vllm-mid-top", MODEL, "fits"),
                                         ("vllm-small", MODEL, "exceeds")]


def test_an_overlay_whose_patch_may_change_the_args_is_not_judged_on_the_base(tmp_path) -> None:
    # its patch adds --max-model-len=300000 (not applied here): the overlay is not read, and the base stays
    # as it was (unknown), beside the overlays that are read
    _tree(tmp_path, {**FILES, **PATCHED})
    assert _audit(tmp_path) == [("big-vllm", MODEL, "exceeds"), ("top-mid-vllm-mid-top", MODEL, "fits"),
                                ("vllm", "(no model id)", "unknown"), ("vllm-small", MODEL, "exceeds")]


def test_a_patch_of_resources_is_applied(tmp_path) -> None:
    # before the patches were applied (kustomize_patches.py) this overlay was left unread, the base's 1 GPU
    # possibly 4; now it is read with its 4
    patch = {"small/kustomization.yaml": FILES["small/kustomization.yaml"] + "patches:\n  - path: gpus.yaml\n",
             "small/gpus.yaml": ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: vllm}\nspec:\n"
                                 "  template:\n    spec:\n      containers:\n        - name: vllm\n"
                                 "          resources: {limits: {nvidia.com/gpu: 4}}\n")}
    _tree(tmp_path, {**FILES, **patch})
    assert _audit(tmp_path) == [("big-vllm", MODEL, "exceeds"), ("top-mid-vllm-mid-top", MODEL, "fits"),
                                ("vllm-small", MODEL, "exceeds")]
    out = json.loads(run(["check", "--format", "json", str(tmp_path)]).out)
    idle = [f for f in out["findings"] if f["rule"] == "CTX205" and f["deployment"] == "vllm-small"]
    assert [(f["file"][len(str(tmp_path)) + 1:], f["line"], f["column"], f["path"]) for f in idle] == [
        ("small/gpus.yaml", 9, 48, 'gpus.yaml:spec.template.spec.containers[0].resources.limits["nvidia.com/gpu"]')]


def test_no_overlay_when_the_base_directory_defines_the_config_map(tmp_path) -> None:
    _tree(tmp_path, {**FILES, "base/kustomization.yaml": (
        "resources: [deployment.yaml]\nconfigMapGenerator:\n  - name: runtime\n"
        f"    literals: [MODEL_ID={MODEL}, LEN=4096]\n")})
    assert _audit(tmp_path / "base") == [("vllm", MODEL, "fits")]


def test_no_overlay_when_the_base_kustomization_lists_not_the_file(tmp_path) -> None:
    _tree(tmp_path, {**FILES, "base/kustomization.yaml": "resources: [other.yaml]\n"})
    assert _audit(tmp_path / "base") == [("vllm", "(no model id)", "unknown")]


def test_bad_kustomizations_never_crash(tmp_path) -> None:
    bad = {"small/kustomization.yaml": "resources: 5\nconfigMapGenerator: {envs: 3}\n",
           "big/kustomization.yaml": "resources: [../base, [x]]\nconfigMapGenerator: [7, {name: runtime, envs: [{}]}]\n",
           "top/kustomization.yaml": "resources: [../top]\n: [\n"}
    _tree(tmp_path, {**FILES, **bad})
    assert _audit(tmp_path / "base") == [("vllm", "(no model id)", "unknown")]



def test_a_config_map_of_another_namespace_is_not_the_one_read(tmp_path) -> None:
    deploy = DEPLOY.replace("metadata: {name: vllm}", "metadata: {name: vllm, namespace: serving}")
    small = FILES["small/kustomization.yaml"].replace("    envs:", "    namespace: other\n    envs:")
    _tree(tmp_path, {**FILES, "base/deployment.yaml": deploy, "small/kustomization.yaml": small})
    assert [name for name, _, _ in _audit(tmp_path / "base")] == ["big-vllm", "top-mid-vllm-mid-top"]
    # the overlay's `namespace:` puts the Deployment and the ConfigMap in one
    _tree(tmp_path, {**FILES, "base/deployment.yaml": deploy, "small/kustomization.yaml": "namespace: x\n" + small})
    assert [name for name, _, _ in _audit(tmp_path / "base")] == ["big-vllm", "top-mid-vllm-mid-top", "vllm-small"]


def _small_with(extra: str, files: dict) -> dict:
    return {**FILES, "small/kustomization.yaml": FILES["small/kustomization.yaml"] + extra, **files}


def test_an_overlay_that_may_change_the_containers_by_what_is_not_applied_is_not_judged_on_the_base(tmp_path) -> None:
    # a Component's patch, a Component not found, a transformer plugin: not applied (kustomize_patches applies the
    # overlay's own patches and images, tests/adapters/test_kustomize_patches.py)
    gone = [("big-vllm", MODEL, "exceeds"), ("top-mid-vllm-mid-top", MODEL, "fits"), ("vllm", "(no model id)", "unknown")]
    cases = [
        _small_with("components: [../comp]\n", {
            "comp/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n"
                                      "patches:\n  - path: p.yaml\n",
            "comp/p.yaml": "- op: add\n  path: /spec/template/spec/containers/0/args/-\n  value: --max-model-len=4096\n"}),
        _small_with("components: [../missing]\n", {}),
        _small_with("transformers: [t.yaml]\n", {"small/t.yaml": "kind: PrefixSuffixTransformer\n"}),
    ]
    for number, files in enumerate(cases):
        _tree(tmp_path / str(number), files)
        assert _audit(tmp_path / str(number) / "base") == gone, number


def test_an_image_override_of_another_image_leaves_the_overlay_read(tmp_path) -> None:
    _tree(tmp_path, _small_with("images:\n  - name: busybox\n    newTag: '1.36'\n", {}))
    assert [name for name, _, _ in _audit(tmp_path / "base")] == ["big-vllm", "top-mid-vllm-mid-top", "vllm-small"]


def test_overlay_files_are_read_once_for_the_bases_beside_each_other(tmp_path, monkeypatch) -> None:
    # 20 bases under one parent, each with 3 overlays there: every base looks at every overlay's kustomization,
    # which is read (and parsed) once, not once per base
    import ctxlint.file_reader as file_reader
    from ctxlint.adapters.kustomize_overlays import overlays_of

    files = {}
    for i in range(20):
        files[f"base{i}/kustomization.yaml"] = "resources: [deployment.yaml]\n"
        files[f"base{i}/deployment.yaml"] = DEPLOY
        for e in range(3):
            files[f"ov/e{e}/app{i}/kustomization.yaml"] = (
                f"resources: [../../../base{i}]\nconfigMapGenerator:\n  - name: runtime\n"
                f"    literals: [MODEL_ID={MODEL}, LEN=8192]\n")
    _tree(tmp_path, files)
    reads = []
    real = file_reader.read_path
    monkeypatch.setattr(file_reader, "read_path", lambda path, *a, **k: reads.append(path) or real(path, *a, **k))
    for i in range(20):
        found, skipped = overlays_of(str(tmp_path / f"base{i}/deployment.yaml"), ["runtime"], DEPLOY)
        assert sorted(o.path[len(str(tmp_path)) + 1:] for o in found) == [
            f"ov/e{e}/app{i}/kustomization.yaml" for e in range(3)] and skipped == 0
    assert len(reads) == len(set(reads)) == 80  # 60 overlays and 20 bases' kustomizations


def test_an_overlay_changed_between_runs_is_read_anew(tmp_path) -> None:
    _tree(tmp_path)
    assert ("vllm-small", MODEL, "exceeds") in _audit(tmp_path / "base")
    (tmp_path / "small/runtime.env").write_text(f"MODEL_ID={MODEL}\nLEN=8192\n")
    (tmp_path / "extra/kustomization.yaml").parent.mkdir()
    (tmp_path / "extra/kustomization.yaml").write_text(FILES["big/kustomization.yaml"].replace("big-", "extra-"))
    audit = _audit(tmp_path / "base")
    assert ("vllm-small", MODEL, "fits") in audit and ("extra-vllm", MODEL, "exceeds") in audit


def test_a_node_selector_patch_counts_only_where_the_base_places_the_pod(tmp_path) -> None:
    # GoogleCloudPlatform/accelerated-platforms: the base names no device, each overlay's patch sets its compute
    # class; read without the patch, the device is unknown as it is for the base (no verdict on the wrong one)
    patch = {"small/ns.yaml": ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: vllm}\nspec:\n  template:\n"
                               "    spec:\n      nodeSelector: {cloud.google.com/compute-class: gpu-h100-80gb-high-x1}\n"),
             "base/deployment.yaml": DEPLOY.replace("      nodeSelector: {cloud.google.com/gke-accelerator: nvidia-l4}\n", "")}
    _tree(tmp_path, _small_with("patches:\n  - path: ns.yaml\n", patch))
    assert [name for name, _, _ in _audit(tmp_path / "base")] == ["big-vllm", "top-mid-vllm-mid-top", "vllm-small"]


def test_overlays_giving_the_workload_one_name_are_told_apart_by_their_directory(tmp_path, monkeypatch) -> None:
    # `kubectl kustomize` (5.5.0) names the Deployment `vllm` in both prod and stage (a namespace each, no prefix):
    # before, both deployments were `vllm`, their findings at the base's lines alike by place and deployment
    one = "resources: [../base]\n{}configMapGenerator:\n  - name: runtime\n    literals: [MODEL_ID={}, LEN={}]\n"
    _tree(tmp_path, {**FILES, "env/prod/kustomization.yaml": one.format("namespace: prod\n", MODEL, 300000).replace(
        "../base", "../../base"), "stage/kustomization.yaml": one.format("", MODEL, 4096)})
    named = [("big-vllm", MODEL, "exceeds"), ("top-mid-vllm-mid-top", MODEL, "fits"),
             ("vllm [env/prod]", MODEL, "exceeds"), ("vllm [stage]", MODEL, "fits"), ("vllm-small", MODEL, "exceeds")]
    assert _audit(tmp_path) == _audit(tmp_path / "base/deployment.yaml") == named
    monkeypatch.chdir(tmp_path / "base")  # the directory from the base's parent, wherever the run is
    assert _audit("deployment.yaml") == named
    assert ("CTX201", "env/prod/kustomization.yaml", 5, 55, "vllm [env/prod]") in _findings(tmp_path)
