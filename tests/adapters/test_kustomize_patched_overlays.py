"""An overlay whose patches or `images:` change a base's workload is a deployment of its own
(adapters/kustomize_overlay_changes.py), named as kustomize names it, its patched values found in the patch; one
that changes nothing the checks read (a namePrefix only) is not; one not applied exactly stays unknown. The base is
judged as before (`kubectl apply -k base` deploys it). Written anew: a base of vLLM on an A100 40GB, overlays that
move it to an L4 or an A10G, raise its window by a patch file or an inline JSON6902 patch, or retag its image."""
from __future__ import annotations

import json

from helpers import run

BASE = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm}
spec:
  template:
    spec:
      nodeSelector: {nvidia.com/gpu.product: NVIDIA-A100-SXM4-40GB}
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.10.1
          args: [--model, meta-llama/Llama-3.1-8B-Instruct, --max-model-len, "131072"]
          resources: {limits: {nvidia.com/gpu: 1}}
"""
GPU = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm}
spec:
  template:
    spec:
      nodeSelector: {nvidia.com/gpu.product: %s}
"""
ARGS = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm}
spec:
  template:
    spec:
      containers:
        - name: vllm
          args: [--model, meta-llama/Llama-3.1-8B-Instruct, --max-model-len, "250000"]
"""
FILES = {
    "base/kustomization.yaml": "resources: [deployment.yaml]\n",
    "base/deployment.yaml": BASE,
    "l4/kustomization.yaml": "resources: [../base]\nnamePrefix: l4-\npatches:\n  - path: gpu.yaml\n",
    "l4/gpu.yaml": GPU % "NVIDIA-L4",
    "a10/kustomization.yaml": "resources: [../base]\nnamePrefix: a10-\npatches:\n  - path: gpu.yaml\n",
    "a10/gpu.yaml": GPU % "NVIDIA-A10G",
    "json/kustomization.yaml": ("resources: [../base]\nnameSuffix: -long\npatches:\n"
                                "  - target: {kind: Deployment, name: vllm}\n    patch: |-\n"
                                "      - op: replace\n        path: /spec/template/spec/containers/0/args/3\n"
                                "        value: \"300000\"\n"),
    "args/kustomization.yaml": "resources: [../base]\nnamePrefix: args-\npatchesStrategicMerge: [args.yaml]\n",
    "args/args.yaml": ARGS,
    "retag/kustomization.yaml": "resources: [../base]\nnamePrefix: new-\nimages:\n  - name: vllm/vllm-openai\n"
                                "    newTag: v0.11.0\n",
    "dev/kustomization.yaml": "resources: [../base]\nnamePrefix: dev-\n",
    # labels only: nothing a check reads changes
    "label/kustomization.yaml": ("resources: [../base]\nnamePrefix: label-\ncommonLabels: {env: x}\n"
                                 "patches:\n  - target: {kind: Deployment}\n    patch: |-\n"
                                 "      - {op: add, path: /metadata/labels, value: {tier: gpu}}\n"),
    # an overlay of an overlay that only renames its build: `l4-vllm` again, no deployment of its own
    "top/kustomization.yaml": "resources: [../l4]\nnamePrefix: top-\n",
    # a transformer plugin may change anything: not applied, so not judged on the base's values
    "loose/kustomization.yaml": "resources: [../base]\nnamePrefix: loose-\npatches:\n  - path: gpu.yaml\n"
                                "transformers: [plugin.yaml]\n",
    "loose/gpu.yaml": GPU % "NVIDIA-L4",
}


def _tree(tmp_path, files=FILES):
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return tmp_path


def _audit(*paths):
    out = json.loads(run(["audit", "--isolated", "--format", "json", *map(str, paths)]).out)
    return sorted((d["name"], f'{d["engine"]} {d["engine_version"]}', d["engine_context"], d["verdict"]) for d in out["deployments"])


def _findings(tmp_path, *paths):
    out = json.loads(run(["check", "--isolated", "--format", "json", *map(str, paths)]).out)
    return out["summary"]["deployments"], sorted(
        (f["rule"], f["file"][len(str(tmp_path)) + 1:], f["line"], f["column"], f["deployment"])
        for f in out["findings"])


def test_each_overlay_that_patches_the_workload_is_a_deployment_of_its_own(tmp_path) -> None:
    _tree(tmp_path)
    assert _audit(tmp_path) == [
        ("a10-vllm", "vllm 0.10.1", 131072, "exceeds"),
        ("args-vllm", "vllm 0.10.1", 250000, "exceeds"),  # a strategic-merge patch file's args
        ("l4-vllm", "vllm 0.10.1", 131072, "exceeds"),  # a strategic-merge patch file's node selector
        ("new-vllm", "vllm 0.11.0", 131072, "fits"),  # `images:` retag
        ("vllm", "vllm 0.10.1", 131072, "fits"),  # the base; not `dev` (a namePrefix), `label`, `top`, `loose`
        ("vllm-long", "vllm 0.10.1", 300000, "exceeds"),  # an inline JSON6902 patch
    ]
    # a patched value is found where the patch writes it; the base's own line, for each overlay it holds
    assert _findings(tmp_path, tmp_path) == (6, [
        ("CTX011", "loose/gpu.yaml", 2, 1, "vllm"),
        ("CTX109", "args/args.yaml", 9, 79, "args-vllm"),
        ("CTX109", "json/kustomization.yaml", 8, 17, "vllm-long"),
        ("CTX201", "args/args.yaml", 9, 79, "args-vllm"),
        ("CTX201", "base/deployment.yaml", 11, 79, "a10-vllm"),
        ("CTX201", "base/deployment.yaml", 11, 79, "l4-vllm"),
        ("CTX201", "json/kustomization.yaml", 8, 17, "vllm-long"),
    ])


def test_the_text_line_names_the_deployment_where_overlays_share_a_place(tmp_path) -> None:
    _tree(tmp_path)
    lines = run(["check", "--isolated", str(tmp_path / "base/deployment.yaml")]).out.splitlines()
    shared = [line.split(" ", 3)[:3] for line in lines if "base/deployment.yaml:11:79" in line]
    assert [s[1:] for s in shared] == [["CTX201", "[error]"], ["CTX201", "[error]"]]
    assert sorted(line.split(" ")[3] for line in lines if "base/deployment.yaml:11:79" in line) == \
        ["[a10-vllm]", "[l4-vllm]"]
    # a finding whose place no other deployment's shares reads as before
    assert all("] [" not in line for line in lines if "base/deployment.yaml" not in line)


def test_a_patch_file_alone_is_read_through_its_overlay(tmp_path) -> None:
    # pre-commit passes only the changed file: the node selector patch runs no engine, the workload it patches does
    _tree(tmp_path)
    assert _findings(tmp_path, tmp_path / "l4/gpu.yaml") == (1, [
        ("CTX201", "base/deployment.yaml", 11, 79, "l4-vllm")])
    # with its base in the run, the overlay is said once (the base offers it)
    assert _findings(tmp_path, tmp_path / "base/deployment.yaml", tmp_path / "l4/gpu.yaml")[0] == 6
    # an overlay not applied exactly: nothing judged, and said
    assert _findings(tmp_path, tmp_path / "loose/gpu.yaml") == (0, [("CTX011", "loose/gpu.yaml", 2, 1, "vllm")])


def test_a_patch_of_a_workload_running_no_engine_says_nothing(tmp_path) -> None:
    # as before: another app's node selector patch is neither a deployment nor an info; the tree's engine overlay is
    _tree(tmp_path / "web", {"base/kustomization.yaml": "resources: [deployment.yaml]\n",
                             "base/deployment.yaml": BASE.replace("vllm/vllm-openai:v0.10.1", "nginx:1.27").replace(
                                 "args: [--model, meta-llama/Llama-3.1-8B-Instruct, --max-model-len, \"131072\"]",
                                 "ports: []"),
                             "l4/kustomization.yaml": FILES["l4/kustomization.yaml"], "l4/gpu.yaml": FILES["l4/gpu.yaml"]})
    _tree(tmp_path / "ai", {k: v for k, v in FILES.items() if k.startswith(("base/", "l4/"))})
    assert _findings(tmp_path, tmp_path / "web/l4/gpu.yaml", tmp_path / "ai/l4/gpu.yaml") == (1, [
        ("CTX201", "ai/base/deployment.yaml", 11, 79, "l4-vllm")])


def test_the_bases_ignore_annotation_waives_its_overlays_findings_in_their_patches(tmp_path) -> None:
    # `kubectl kustomize args` keeps the base's metadata.annotations: the built workload carries the waiver, so
    # its findings at the patch's value are waived too, and the annotation is no unused suppression
    files = dict(FILES)
    files["base/deployment.yaml"] = BASE.replace(
        "metadata: {name: vllm}",
        'metadata: {name: vllm, annotations: {ctxlint.io/ignore.CTX109: "long context on purpose"}}')
    _tree(tmp_path, {k: v for k, v in files.items() if k.startswith(("base/", "args/"))})
    out = json.loads(run(["check", "--isolated", "--format", "json", str(tmp_path)]).out)
    assert sorted((f["rule"], f["file"][len(str(tmp_path)) + 1:], f["deployment"], bool(f.get("suppressed")))
                  for f in out["findings"]) == [("CTX201", "args/args.yaml", "args-vllm", False)]


def test_the_base_is_judged_as_its_own_kustomization_builds_it(tmp_path) -> None:
    # `kubectl kustomize base` applies the base's own patches and `images:`: the workload runs on an L4 with
    # v0.11.0 (it was judged on the file's A100 40GB and v0.10.1: "fits", a false pass)
    _tree(tmp_path, {"base/deployment.yaml": BASE,
                     "base/kustomization.yaml": ("resources: [deployment.yaml]\npatches:\n  - path: gpu.yaml\n"
                                                 "images:\n  - name: vllm/vllm-openai\n    newTag: v0.11.0\n"),
                     "base/gpu.yaml": GPU % "NVIDIA-L4"})
    assert _audit(tmp_path) == [("vllm", "vllm 0.11.0", 131072, "exceeds")]
    assert _findings(tmp_path, tmp_path)[1] == [("CTX201", "base/deployment.yaml", 11, 79, "vllm")]
    # a kustomization that changes nothing the checks read leaves the file as written
    _tree(tmp_path, {"base/kustomization.yaml": "resources: [deployment.yaml]\ncommonLabels: {a: b}\n"})
    (tmp_path / "base/gpu.yaml").unlink()
    assert _audit(tmp_path) == [("vllm", "vllm 0.10.1", 131072, "fits")]
