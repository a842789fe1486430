"""A workload file a kustomization lists as a patch (adapters/kustomize_patch_files.py) is read as its overlay
builds the workload it patches, not as a deployment of its own, in a run of the tree and in a run given only the
patch file. The layout is zetxqx/llm-d@7edda66 guides/pd-disaggregation's (a base whose container runs no engine,
an overlay patch that sets `command: [vllm, serve]`), written anew and smaller. `kubectl kustomize ov` (kustomize
5.5.0) builds `l4-server`: the patch's image, command, args and ports, the base's node selector and GPU."""
from __future__ import annotations

import json

from helpers import run

MODEL = "Qwen/Qwen2.5-7B-Instruct"
BASE = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: server}
spec:
  template:
    spec:
      nodeSelector: {cloud.google.com/gke-accelerator: nvidia-l4}
      containers:
        - name: server
          image: busybox:1.36
          command: [sleep, infinity]
          ports: [{containerPort: 8000, name: http}]
          resources: {limits: {nvidia.com/gpu: 1}}
"""
PATCH = f"""\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: server}}
spec:
  template:
    spec:
      containers:
        - name: server
          image: vllm/vllm-openai:v0.11.0
          command: [vllm, serve]
          args: [{MODEL}, --max-model-len=300000]
          ports: [{{containerPort: 8000, name: api}}]
"""
FILES = {"base/kustomization.yaml": "resources: [deployment.yaml]\n", "base/deployment.yaml": BASE,
         "ov/kustomization.yaml": "resources: [../base]\nnamePrefix: l4-\npatches:\n  - path: patch.yaml\n",
         "ov/patch.yaml": PATCH}


def _tree(tmp_path, files):
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return tmp_path


def _check(tmp_path, target):
    out = json.loads(run(["check", "--isolated", "--format", "json", str(target)]).out)
    return out["summary"]["deployments"], sorted(
        (f["rule"], f["file"][len(str(tmp_path)) + 1:], f["line"], f["column"], f["deployment"], f["message"])
        for f in out["findings"])


def _audit(target):
    out = json.loads(run(["audit", "--isolated", "--format", "json", str(target)]).out)
    return sorted((d["name"], d["model"], d["verdict"]) for d in out["deployments"])


def test_a_patch_file_is_read_as_its_overlay_builds_the_workload_in_a_tree_and_alone(tmp_path) -> None:
    _tree(tmp_path, FILES)
    # before: `server` from the patch alone (no GPU type: "needs >= 34.6 GiB/GPU"), the base never offered the
    # overlay (its container runs no engine); now the overlay's workload, on the base's L4
    assert _audit(tmp_path) == [("l4-server", MODEL, "exceeds")]
    assert _audit(tmp_path / "ov/patch.yaml") == [("l4-server", MODEL, "exceeds")]
    tree = _check(tmp_path, tmp_path)
    assert tree == _check(tmp_path, tmp_path / "ov/patch.yaml")
    assert [f[:5] for f in tree[1]] == [("CTX109", "ov/patch.yaml", 11, 60, "l4-server"),
                                       ("CTX201", "ov/patch.yaml", 11, 60, "l4-server")]


def test_a_patch_file_also_listed_as_a_resource_is_its_own_deployment(tmp_path) -> None:
    _tree(tmp_path, {**FILES, "kustomization.yaml": "resources: [ov/patch.yaml]\n"})
    assert _audit(tmp_path / "ov/patch.yaml") == [("server", MODEL, "needs >= 34.6 GiB/GPU")]


def test_two_patch_files_of_one_workload_make_one_deployment(tmp_path) -> None:
    second = PATCH.replace("--max-model-len=300000", "--max-model-len=4096")
    _tree(tmp_path, {**FILES, "ov/kustomization.yaml": FILES["ov/kustomization.yaml"] + "  - path: second.yaml\n",
                     "ov/second.yaml": second})
    # kustomize applies both, in order: the second's args replace the first's
    assert _audit(tmp_path) == [("l4-server", MODEL, "fits")]
    assert _audit(tmp_path / "ov/second.yaml") == [("l4-server", MODEL, "fits")]


HEAD = ("this Deployment `server` is a kustomize patch: kustomization.yaml lists the file under `patches`, not "
        "`resources`, so kustomize never deploys it alone and ctxlint reads it only as that overlay builds the "
        "workload it patches; ")


def test_an_overlay_not_applied_or_a_target_not_found_is_said_and_nothing_judged(tmp_path) -> None:
    _tree(tmp_path, {**FILES, "ov/kustomization.yaml": FILES["ov/kustomization.yaml"] + "transformers: [t.yaml]\n"})
    assert _check(tmp_path, tmp_path / "ov/patch.yaml") == (0, [(
        "CTX011", "ov/patch.yaml", 2, 1, "server", HEAD + "that overlay is not read, so nothing of it was checked: "
        f"{tmp_path}/ov/kustomization.yaml runs transformers or generators: what they change is not read")])
    _tree(tmp_path, {**FILES, "base/deployment.yaml": BASE.replace("name: server}", "name: other}")})
    assert _check(tmp_path, tmp_path / "ov/patch.yaml") == (0, [(
        "CTX011", "ov/patch.yaml", 2, 1, "server", HEAD + "no Deployment `server` was found in that kustomization's "
        "resources, so nothing of it was checked")])


def test_bad_kustomizations_never_crash(tmp_path) -> None:
    for text in ("patches: 5\n", "patches: [{path: [x]}, 7, {path: patch.yaml}]\nresources: 3\n",
                 "resources: [../ov, ../base]\npatches: [{path: patch.yaml, target: {name: '['}}]\n", ": [\n"):
        _tree(tmp_path, {**FILES, "ov/kustomization.yaml": text})
        assert run(["check", "--isolated", str(tmp_path / "ov/patch.yaml")]).code in (0, 1)


def test_a_base_running_no_engine_is_offered_the_overlays_that_patch_one_in(tmp_path) -> None:
    # the overlay generates the ConfigMap the base reads and its inline patch starts vllm: the base (busybox) was
    # never read, so the overlay was never offered (kubernetes.adapt asked for overlays only of an engine workload)
    base = BASE.replace("          resources:", "          env: [{name: MODEL, valueFrom: {configMapKeyRef: "
                                               "{name: runtime, key: MODEL}}}]\n          resources:")
    inline = ("patches:\n  - patch: |-\n      apiVersion: apps/v1\n      kind: Deployment\n      metadata: {name: server}\n"
              "      spec: {template: {spec: {containers: [{name: server, image: 'vllm/vllm-openai:v0.11.0', "
              "command: [vllm, serve], args: ['$(MODEL)', --max-model-len=4096]}]}}}\n")
    _tree(tmp_path, {"base/kustomization.yaml": "resources: [deployment.yaml]\n", "base/deployment.yaml": base,
                     "ov/kustomization.yaml": ("resources: [../base]\nnameSuffix: -l4\nconfigMapGenerator:\n"
                                               f"  - name: runtime\n    literals: [MODEL={MODEL}]\n" + inline)})
    assert _audit(tmp_path) == [("server-l4", MODEL, "fits")]
    assert _audit(tmp_path / "base/deployment.yaml") == [("server-l4", MODEL, "fits")]


def test_a_components_patches_and_images_apply_before_the_overlays_own(tmp_path) -> None:
    # `kubectl kustomize ov` (5.5.0): the Component runs after ov's resources and before ov's own patches, so its
    # retag meets busybox (and changes nothing; the patch then sets v0.11.0) and its JSON patch sets 2 GPUs
    comp = ("apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n"
            "images:\n  - {name: vllm/vllm-openai, newTag: v0.10.2}\n"
            "patches:\n  - target: {kind: Deployment}\n    patch: |-\n      - op: replace\n"
            "        path: /spec/template/spec/containers/0/resources/limits/nvidia.com~1gpu\n        value: 2\n")
    _tree(tmp_path, {**FILES, "comp/kustomization.yaml": comp, "ov/kustomization.yaml": (
        "resources: [../base]\nnamePrefix: l4-\ncomponents: [../comp]\npatches:\n  - path: patch.yaml\n")})
    out = json.loads(run(["audit", "--isolated", "--format", "json", str(tmp_path / "ov/patch.yaml")]).out)
    assert [(d["name"], d["engine_version"]) for d in out["deployments"]] == [("l4-server", "0.11.0")]
    assert [f[:5] for f in _check(tmp_path, tmp_path / "ov/patch.yaml")[1]] == [
        ("CTX109", "ov/patch.yaml", 11, 60, "l4-server"), ("CTX201", "ov/patch.yaml", 11, 60, "l4-server"),
        ("CTX205", "comp/kustomization.yaml", 10, 16, "l4-server")]


def test_an_overlay_its_base_does_not_offer_is_read_from_its_patch_file_once(tmp_path) -> None:
    # a base that reads the overlay's ConfigMap but runs no engine and asks for no accelerator is not offered its
    # overlays (kubernetes.offers_overlays): the patch file reports the overlay, not both and not neither
    base = BASE.replace("          resources: {limits: {nvidia.com/gpu: 1}}\n", "          env: [{name: MODEL, valueFrom: "
                        "{configMapKeyRef: {name: runtime, key: MODEL}}}]\n")
    patch = PATCH.replace("--max-model-len=300000", "--max-model-len=4096").replace(
        "          ports:", "          resources: {limits: {nvidia.com/gpu: 1}}\n          ports:")
    _tree(tmp_path, {**FILES, "base/deployment.yaml": base, "ov/patch.yaml": patch, "ov/kustomization.yaml": (
        FILES["ov/kustomization.yaml"] + f"configMapGenerator:\n  - name: runtime\n    literals: [MODEL={MODEL}]\n")})
    assert _audit(tmp_path) == [("l4-server", MODEL, "fits")]


def test_a_target_selects_the_workloads_the_patch_name_aside(tmp_path) -> None:
    # `kubectl kustomize ov` (5.5.0) patches every Deployment a target selects, whatever the patch's own name
    # (PatchTransformer.go transformStrategicMerge): before, `other` was looked for by name and nothing was checked
    _tree(tmp_path, {**FILES, "ov/patch.yaml": PATCH.replace("name: server}", "name: other}"),
                     "ov/kustomization.yaml": "resources: [../base]\nnamePrefix: l4-\npatches:\n  - path: patch.yaml\n"
                                              "    target: {kind: Deployment}\n"})
    assert _audit(tmp_path / "ov/patch.yaml") == [("l4-server", MODEL, "exceeds")]
    _tree(tmp_path, {**FILES, "ov/kustomization.yaml": FILES["ov/kustomization.yaml"] +
                     "    target: {kind: Deployment, labelSelector: app=absent}\n"})
    assert _audit(tmp_path / "ov/patch.yaml") == []


def test_a_patch_file_defers_only_to_an_earlier_patch_file_that_reports_the_workload(tmp_path) -> None:
    # an earlier patch of `server` that only sets GPUs runs no engine, so it is not read through the overlay: the
    # engine's patch reports it (before: a run of the tree, or of both files, found no deployment at all)
    gpus = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: server}\nspec:\n  template:\n    spec:\n"
            "      containers:\n        - name: server\n          resources: {limits: {nvidia.com/gpu: 1}}\n")
    _tree(tmp_path, {**FILES, "ov/gpus.yaml": gpus, "ov/kustomization.yaml": (
        "resources: [../base]\nnamePrefix: l4-\npatches:\n  - path: gpus.yaml\n  - path: patch.yaml\n")})
    assert _audit(tmp_path) == [("l4-server", MODEL, "exceeds")]
    out = json.loads(run(["audit", "--isolated", "--format", "json", str(tmp_path / "ov/gpus.yaml"),
                          str(tmp_path / "ov/patch.yaml")]).out)
    assert [(d["name"], d["verdict"]) for d in out["deployments"]] == [("l4-server", "exceeds")]


def test_a_patch_file_a_component_lists_is_read_alone(tmp_path) -> None:
    # a Component builds nothing (`kubectl kustomize comp` refuses it): the overlay that includes it builds
    # l4-server with the patch's args; before, the patch was looked for in the Component's resources (none), said
    # CTX011 and the 300,000-token context of a 32,768-position model passed
    comp = "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\npatches:\n  - path: patch.yaml\n"
    _tree(tmp_path, {**{k: v for k, v in FILES.items() if not k.startswith("ov/")}, "comp/kustomization.yaml": comp,
                     "comp/patch.yaml": PATCH,
                     "ov/kustomization.yaml": "resources: [../base]\nnamePrefix: l4-\ncomponents: [../comp]\n"})
    assert "CTX109" in {f[0] for f in _check(tmp_path, tmp_path / "comp/patch.yaml")[1]}


def _named(args):
    """(file, line, rule) of each finding of `check` in the JSON, text, SARIF and GitHub formats, in their order."""
    found = json.loads(run(["check", "--isolated", "--format", "json", *args]).out)["findings"]
    out = {"json": [(f["file"], f["line"], f["rule"]) for f in found]}
    out["text"] = [(line.split(":")[0], int(line.split(":")[1]), line.split(" ")[1])
                   for line in run(["check", "--isolated", *args]).out.splitlines() if " CTX" in line]
    sarif = json.loads(run(["check", "--isolated", "--format", "sarif", *args]).out)["runs"][0]["results"]
    out["sarif"] = [(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
                     r["locations"][0]["physicalLocation"]["region"]["startLine"], r["ruleId"]) for r in sarif]
    github = [line for line in run(["check", "--isolated", "--format", "github", *args]).out.splitlines()
              if "file=" in line]
    out["github"] = [(line.split("file=")[1].split(",")[0], int(line.split("line=")[1].split(",")[0]),
                      line.split("(")[1].split(")")[0]) for line in github]
    out["github message"] = [(line.split("::")[2].split(":")[0], int(line.split("::")[2].split(":")[1]),
                              line.split("::")[2].split(" ")[1]) for line in github]
    return out


def test_findings_in_a_patch_or_an_overlay_name_the_file_as_the_run_does(tmp_path, monkeypatch) -> None:
    # before: `ov/patch.yaml` given, `/tmp/.../ov/patch.yaml` printed (the overlay's files were looked up from the
    # absolute path), sorted apart from the run's relative names; now each file is named relative to the cwd as the
    # run's paths are, and absolute where they are
    base = BASE.replace("          ports:", "          env: [{name: LEN, valueFrom: {configMapKeyRef: "
                                           "{name: runtime, key: LEN}}}]\n          ports:")
    patch = PATCH.replace("--max-model-len=300000", "--max-model-len=$(LEN), --tensor-parallel-size=2")
    _tree(tmp_path, {**FILES, "base/deployment.yaml": base, "ov/patch.yaml": patch, "ov/runtime.env": "LEN=300000\n",
                     "ov/kustomization.yaml": FILES["ov/kustomization.yaml"] + (
                         "configMapGenerator:\n  - name: runtime\n    envs: [runtime.env]\n")})
    monkeypatch.chdir(tmp_path)
    want = [("ov/patch.yaml", 11, "CTX204"), ("ov/runtime.env", 1, "CTX109")]
    for args in (["ov/patch.yaml"], ["."], ["base/deployment.yaml", "ov/patch.yaml"], ["-j", "2", "."]):
        assert _named(args) == dict.fromkeys(("json", "text", "sarif", "github", "github message"), want), args
    monkeypatch.chdir(tmp_path / "base")
    up = [("../" + f, line, rule) for f, line, rule in want]
    assert _named(["deployment.yaml"])["text"] == _named(["../ov/patch.yaml"])["text"] == up
    assert _named([str(tmp_path / "ov/patch.yaml")])["text"] == [(f"{tmp_path}/{f}", n, r) for f, n, r in want]
    # a baseline written from one names the findings of the other
    monkeypatch.chdir(tmp_path)
    assert run(["baseline", "create", "--isolated", "--baseline", "b.json", "ov/patch.yaml"]).code == 0
    assert run(["check", "--isolated", "--baseline", "b.json", "."]).code == 0


def test_a_patchs_kustomization_is_not_looked_for_above_the_repository_or_the_cwd(tmp_path, monkeypatch) -> None:
    # a kustomization outside the checked tree (a stray one in /tmp or $HOME) that lists the file as a patch: before,
    # the four folders above were read whatever they were, and the file was judged as that overlay builds it
    stray_kust = "resources: [base]\nnamePrefix: stray-\npatches:\n  - path: repo/patch.yaml\n"
    _tree(tmp_path, {"kustomization.yaml": stray_kust,
                     "base/kustomization.yaml": "resources: [deployment.yaml]\n", "base/deployment.yaml": BASE,
                     "repo/patch.yaml": PATCH})
    alone, stray = [("server", MODEL, "needs >= 34.6 GiB/GPU")], [("stray-server", MODEL, "exceeds")]
    assert _audit(tmp_path / "repo/patch.yaml") == stray  # no bound: the file's folder and three above
    monkeypatch.chdir(tmp_path / "repo")  # not above the directory ctxlint runs from, for a file under it
    assert _audit("patch.yaml") == _audit(tmp_path / "repo/patch.yaml") == alone
    monkeypatch.chdir(tmp_path)
    assert _audit("repo/patch.yaml") == stray
    (tmp_path / "repo/.git").mkdir()  # nor above a repository's root
    assert _audit("repo/patch.yaml") == _audit(tmp_path / "repo/patch.yaml") == alone


def test_a_run_from_a_subfolder_of_a_repository_reads_what_one_from_its_root_reads(tmp_path, monkeypatch) -> None:
    # a patch in a subfolder of its overlay (kustomize's root-only load restriction allows it): with a repository
    # root above, the cwd does not bound the lookup, so `cd ov/patches && ctxlint check patch.yaml` reads the
    # overlay as a run from the root does (before: the patch alone, `server ... needs`)
    files = {**FILES, "ov/kustomization.yaml": FILES["ov/kustomization.yaml"].replace(
        "path: patch.yaml", "path: patches/patch.yaml"), "ov/patches/patch.yaml": PATCH}
    del files["ov/patch.yaml"]
    _tree(tmp_path, files)
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    from_root = _audit("ov/patches/patch.yaml")
    assert [name for name, _, _ in from_root] == ["l4-server"]
    monkeypatch.chdir(tmp_path / "ov/patches")
    assert _audit("patch.yaml") == _audit(".") == from_root


def test_a_patch_that_runs_no_engine_is_read_through_the_overlay_whose_engine_it_sets(tmp_path) -> None:
    # kubernetes-sigs/wg-serving serving-catalog's layout, written anew: the base runs vllm on `$(MODEL_ID)`, one
    # overlay's patch only sets that variable (its container names no image), an outer one's only the device
    base = BASE.replace("busybox:1.36", "vllm/vllm-openai:v0.11.0").replace(
        "command: [sleep, infinity]", "command: [vllm, serve]\n          args: [\"--model=$(MODEL_ID)\"]")
    model = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: server}\nspec:\n  template:\n    spec:\n"
             f"      containers:\n        - name: server\n          env: [{{name: MODEL_ID, value: {MODEL}}}]\n")
    device = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: '*'}\nspec:\n  template:\n    spec:\n"
              "      nodeSelector: {cloud.google.com/gke-accelerator: nvidia-h100-80gb}\n")
    files = {"base/kustomization.yaml": "resources: [deployment.yaml]\n", "base/deployment.yaml": base,
             "m/kustomization.yaml": "resources: [../base]\npatches:\n  - {path: model.yaml, target: {kind: Deployment}}\n",
             "m/model.yaml": model,
             "m/h100/kustomization.yaml": "resources: [..]\nnameSuffix: -h100\npatches:\n"
                                          "  - {path: device.yaml, target: {kind: Deployment}}\n",
             "m/h100/device.yaml": device}
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    out = json.loads(run(["audit", "--format", "json", str(tmp_path)]).out)
    assert sorted((d["name"], d["file"][len(str(tmp_path)) + 1:], d["model"], d["verdict"])
                  for d in out["deployments"]) == [
        ("server", "base/deployment.yaml", "(no model id)", "unknown"),
        ("server [m]", "base/deployment.yaml", MODEL, "fits"),
        ("server-h100", "base/deployment.yaml", MODEL, "fits")]
    # checked alone, the patch is read as its overlay builds the workload; one of a workload that runs no engine
    # (most patches) says nothing
    alone = json.loads(run(["check", "--format", "json", str(tmp_path / "m" / "model.yaml")]).out)
    assert alone["summary"]["deployments"] == 1
    (tmp_path / "base" / "deployment.yaml").write_text(BASE)
    alone = json.loads(run(["check", "--format", "json", str(tmp_path / "m" / "model.yaml")]).out)
    assert (alone["findings"], alone["summary"]["deployments"]) == ([], 0)


def test_a_patch_is_not_left_to_an_earlier_one_whose_target_selects_another_workload(tmp_path) -> None:
    # a.yaml bears the engine's name but its entry targets the `other` Deployment (a target ignores the patch's own
    # name), so a.yaml reports nothing of `vllm`: b.yaml, the engine's patch, is read through the overlay itself
    from adapters.test_kustomize_overlays import DEPLOY
    from adapters.test_kustomize_patches import GEN, SMP

    other = ("---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: other}\nspec:\n  template:\n    spec:\n"
             "      containers:\n        - {name: c, image: busybox:1.36}\n")
    device = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: vllm}\nspec:\n  template:\n    spec:\n"
              "      nodeSelector: {cloud.google.com/gke-accelerator: nvidia-h100-80gb}\n")
    engine = SMP.replace("- name: vllm\n", "- name: vllm\n          image: vllm/vllm-openai:v0.11.0\n")
    files = {"base/kustomization.yaml": "resources: [deployment.yaml]\n", "base/deployment.yaml": DEPLOY + other,
             "o/kustomization.yaml": "resources: [../base]\n" + GEN + "patches:\n  - path: a.yaml\n"
                                     "    target: {name: other}\n  - path: b.yaml\n",
             "o/a.yaml": device, "o/b.yaml": engine}
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    out = json.loads(run(["check", "--format", "json", str(tmp_path / "o")]).out)
    assert out["summary"]["deployments"] == 1
    assert [(f["rule"], f["file"][len(str(tmp_path)) + 1:], f["line"]) for f in out["findings"]
            if f["rule"] == "CTX109"] == [("CTX109", "o/b.yaml", 11)]


def test_a_model_patch_over_an_engine_patch_over_an_engine_less_base_is_read_through_its_overlay(tmp_path) -> None:
    # kubernetes-sigs/wg-serving serving-catalog's deployment layout, written anew: an engine-less base, an overlay
    # whose patch runs vllm on `$(MODEL_ID)`, and an overlay of that one whose patch (no engine, no image) only sets
    # the variable. The engine comes from the inner patch, so the model patch's overlay runs one and is read through.
    engine = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: server}\nspec:\n  template:\n    spec:\n"
              "      containers:\n        - name: server\n          image: vllm/vllm-openai:v0.11.0\n"
              "          command: [vllm, serve]\n          args: [\"--model=$(MODEL_ID)\"]\n")
    model = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: server}\nspec:\n  template:\n    spec:\n"
             f"      containers:\n        - name: server\n          env: [{{name: MODEL_ID, value: {MODEL}}}]\n")
    files = {"base/kustomization.yaml": "resources: [deployment.yaml]\n", "base/deployment.yaml": BASE,
             "vllm/kustomization.yaml": "resources: [../base]\npatches:\n  - {path: engine.yaml, target: {kind: Deployment}}\n",
             "vllm/engine.yaml": engine,
             "vllm/qwen/kustomization.yaml": "resources: [..]\nnameSuffix: -qwen\npatches:\n"
                                             "  - {path: model.yaml, target: {kind: Deployment}}\n",
             "vllm/qwen/model.yaml": model}
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    for target in (tmp_path, tmp_path / "vllm" / "qwen" / "model.yaml"):
        out = json.loads(run(["audit", "--format", "json", str(target)]).out)
        assert [(d["name"], d["model"], d["verdict"]) for d in out["deployments"]
                if d["model"] == MODEL] == [("server-qwen", MODEL, "fits")], target
