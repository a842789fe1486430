"""An overlay's patches, `images:` and image replacements applied to its base's workload (adapters/kustomize_patches.py),
end to end: each overlay a deployment with what kustomize would build, the values a patch sets found in the patch.
The trees are written anew here, in the layout of GoogleCloudPlatform/accelerated-platforms@9320f3b
platforms/gke/base/use-cases/inference-ref-arch/kubernetes-manifests/online-inference-gpu/vllm (a base Deployment
reading a `runtime` ConfigMap, overlays that generate it and patch the node selector and GPU count,
https://github.com/GoogleCloudPlatform/accelerated-platforms), and of kustomize's own examples
(https://github.com/kubernetes-sigs/kustomize/blob/master/examples/patchMultipleObjects.md, inlinePatch.md,
image.md)."""
from __future__ import annotations

import json

from helpers import run

from adapters.test_kustomize_overlays import DEPLOY, MODEL

BASE = {"base/kustomization.yaml": "resources: [deployment.yaml]\n", "base/deployment.yaml": DEPLOY}
GEN = "configMapGenerator:\n  - name: runtime\n    literals: [MODEL_ID=" + MODEL + ", LEN=8192]\n"
SMP = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm}
spec:
  template:
    spec:
      nodeSelector: {cloud.google.com/gke-accelerator: nvidia-h100-80gb}
      containers:
        - name: vllm
          args: ["--model=$(MODEL_ID)", "--max-model-len=300000"]
"""


def _tree(tmp_path, files):
    for name, text in {**BASE, **files}.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return tmp_path


def _audit(path):
    out = json.loads(run(["audit", "--format", "json", str(path)]).out)
    return sorted((d["name"], d["model"], d["engine_version"], d["verdict"]) for d in out["deployments"])


def _findings(path, rule="CTX201"):
    out = json.loads(run(["check", "--format", "json", str(path)]).out)
    return sorted((f["file"][len(str(path)) + 1:], f["line"], f["column"], f["path"], f["deployment"])
                  for f in out["findings"] if f["rule"] == rule)


def test_a_strategic_merge_patch_file_is_applied_and_its_values_found_in_it(tmp_path) -> None:
    _tree(tmp_path, {"h100/kustomization.yaml": "resources: [../base]\nnameSuffix: -h100\n" + GEN +
                     "patches:\n  - path: patch.yaml\n", "h100/patch.yaml": SMP})
    # the patch's args replace the base's whole (--max-model-len 300000 for the literal's 8192), beyond the
    # model's 32,768 positions; its KV pool is the H100's
    assert _audit(tmp_path) == [("vllm-h100", MODEL, "0.11.0", "fits")]
    assert _findings(tmp_path, "CTX109") == [
        ("h100/patch.yaml", 10, 58, "patch.yaml:spec.template.spec.containers[0].args[1]", "vllm-h100")]
    out = json.loads(run(["audit", "--format", "json", str(tmp_path)]).out)
    assert out["deployments"][0]["prefill_pool"] == {"tokens": 1019056, "origin": "derived", "role": "unified"}


def test_an_inline_patch_with_a_target_is_found_in_the_kustomization(tmp_path) -> None:
    inline = ("patches:\n  - target: {kind: Deployment, name: vl.*}\n    patch: |-\n"
              "      - op: replace\n        path: /spec/template/spec/containers/0/args/1\n"
              "        value: --max-model-len=300000\n")
    _tree(tmp_path, {"big/kustomization.yaml": "resources: [../base]\n" + GEN + inline})
    assert _audit(tmp_path) == [("vllm", MODEL, "0.11.0", "exceeds")]
    assert _findings(tmp_path) == [
        ("big/kustomization.yaml", 10, 32, "kustomization.yaml:patches[0].patch:spec.template.spec.containers[0].args[1]",
         "vllm")]


def test_legacy_patch_fields_are_applied(tmp_path) -> None:
    json_patch = "- op: add\n  path: /spec/template/spec/containers/0/args/-\n  value: --max-model-len=300000\n"
    _tree(tmp_path, {"old/kustomization.yaml": "resources: [../base]\n" + GEN +
                     "patchesStrategicMerge: [gpu.yaml]\npatchesJson6902:\n"
                     "  - target: {group: apps, version: v1, kind: Deployment, name: vllm}\n    path: len.yaml\n",
                     "old/gpu.yaml": SMP.replace('          args: ["--model=$(MODEL_ID)", "--max-model-len=300000"]\n',
                                                 "          resources: {limits: {nvidia.com/gpu: 2}}\n"),
                     "old/len.yaml": json_patch})
    # a later flag wins in vLLM's argparse: 300000 over the base's $(LEN) = 8192, on 2 H100s
    assert _audit(tmp_path) == [("vllm", MODEL, "0.11.0", "fits")]
    assert _findings(tmp_path, "CTX109") == [
        ("old/len.yaml", 3, 26, "len.yaml:spec.template.spec.containers[0].args[2]", "vllm")]
    assert _findings(tmp_path, "CTX205") == [
        ("old/gpu.yaml", 10, 48, 'gpu.yaml:spec.template.spec.containers[0].resources.limits["nvidia.com/gpu"]', "vllm")]


def test_an_images_retag_gives_the_engine_release(tmp_path) -> None:
    _tree(tmp_path, {"new/kustomization.yaml": "resources: [../base]\n" + GEN +
                     "images:\n  - name: vllm/vllm-openai\n    newTag: v0.10.1\n"})
    assert _audit(tmp_path) == [("vllm", MODEL, "0.10.1", "fits")]


def test_a_patch_for_another_object_leaves_the_workload_as_the_base(tmp_path) -> None:
    other = SMP.replace("metadata: {name: vllm}", "metadata: {name: router}")
    _tree(tmp_path, {"o/kustomization.yaml": "resources: [../base]\n" + GEN + "patches:\n  - path: p.yaml\n"
                     "  - path: p.yaml\n    target: {kind: StatefulSet}\n", "o/p.yaml": other})
    assert _audit(tmp_path) == [("vllm", MODEL, "0.11.0", "fits")]


def test_what_is_not_applied_exactly_leaves_the_overlay_unread(tmp_path) -> None:
    unread = [("vllm", "(no model id)", "0.11.0", "unknown")]
    cases = {
        # kustomize finds no resource: the patch names another namespace
        "ns": {"p.yaml": SMP.replace("metadata: {name: vllm}", "metadata: {name: vllm, namespace: other}"),
               "kustomization.yaml": "resources: [../base]\n" + GEN + "patches:\n  - path: p.yaml\n"},
        # a JSON patch whose test fails, and one without a target
        "test": {"p.yaml": "- {op: test, path: /spec/replicas, value: 3}\n",
                 "kustomization.yaml": "resources: [../base]\n" + GEN +
                 "patches:\n  - path: p.yaml\n    target: {kind: Deployment}\n"},
        "untargeted": {"p.yaml": "- {op: add, path: /spec/replicas, value: 3}\n",
                       "kustomization.yaml": "resources: [../base]\n" + GEN + "patches:\n  - path: p.yaml\n"},
        # a directive not applied here, a patch file not there
        "retain": {"p.yaml": SMP.replace("      nodeSelector:", "      $retainKeys: [containers]\n      nodeSelector:"),
                   "kustomization.yaml": "resources: [../base]\n" + GEN + "patches:\n  - path: p.yaml\n"},
        "missing": {"kustomization.yaml": "resources: [../base]\n" + GEN + "patches:\n  - path: nowhere.yaml\n"},
    }
    for name, files in cases.items():
        (tmp_path / name).mkdir()
        _tree(tmp_path / name, {f"o/{k}": v for k, v in files.items()})
        assert _audit(tmp_path / name) == unread, name


def test_an_image_replacement_from_a_generated_config_map(tmp_path) -> None:
    # GoogleCloudPlatform/accelerated-platforms' overlays take the engine image from the `vllm` ConfigMap their
    # base generates (replacements: data.CONTAINER_IMAGE_URL -> containers.[name=inference-server].image)
    base = {"base/kustomization.yaml": "resources: [deployment.yaml]\nconfigMapGenerator:\n  - name: images\n"
                                       "    literals: [IMAGE=vllm/vllm-openai:v0.9.2]\n"}
    replacement = ("replacements:\n  - source: {kind: ConfigMap, name: images, fieldPath: data.IMAGE}\n"
                   "    targets:\n      - select: {kind: Deployment}\n"
                   "        fieldPaths:\n          - spec.template.spec.containers.[name=vllm].image\n")
    _tree(tmp_path, {**base, "o/kustomization.yaml": "resources: [../base]\n" + GEN + replacement})
    assert _audit(tmp_path) == [("vllm", MODEL, "0.9.2", "fits")]
    # its input not read: the image is unknown (no release), not the base's; the container that runs `vllm serve`
    # is read without one, the one that gives only args to the image's entrypoint runs no engine known
    absent = {"base/kustomization.yaml": "resources: [deployment.yaml]\nconfigMapGenerator:\n"
                                         "  - name: images\n    envs: [absent.env]\n"}
    served = DEPLOY.replace("          args:", "          command: [vllm, serve]\n          args:")
    _tree(tmp_path, {**absent, "base/deployment.yaml": served})
    assert _audit(tmp_path) == [("vllm", MODEL, "", "fits")]
    _tree(tmp_path, absent)
    assert _audit(tmp_path) == [("vllm", "(no model id)", "0.11.0", "unknown")]
    # a key the generator does not make: kustomize refuses the build
    _tree(tmp_path, {**base, "o/kustomization.yaml": "resources: [../base]\n" + GEN +
                     replacement.replace("data.IMAGE", "data.OTHER")})
    assert _audit(tmp_path) == [("vllm", "(no model id)", "0.11.0", "unknown")]


def test_targets_match_the_original_or_the_current_name(tmp_path) -> None:
    # kustomize's Select tries the original name, then the current one (mid- prefixed by the kustomization
    # between); a strategic-merge patch without a target matches any name the object had
    len_patch = ("- op: add\n  path: /spec/template/spec/containers/0/args/-\n  value: --max-model-len=300000\n")
    files = {"mid/kustomization.yaml": "resources: [../base]\nnamePrefix: mid-\n",
             "top/kustomization.yaml": "resources: [../mid]\n" + GEN +
             "patches:\n  - path: len.yaml\n    target: {kind: Deployment, name: mid-vllm}\n",
             "top/len.yaml": len_patch}
    _tree(tmp_path, files)
    assert _audit(tmp_path) == [("mid-vllm", MODEL, "0.11.0", "exceeds")]
    _tree(tmp_path, {**files, "top/kustomization.yaml": files["top/kustomization.yaml"].replace("mid-vllm", "other")})
    assert _audit(tmp_path) == [("mid-vllm", MODEL, "0.11.0", "fits")]  # the patch is for another object
    _tree(tmp_path, {**files, "top/kustomization.yaml": "resources: [../mid]\n" + GEN + "patches:\n  - path: p.yaml\n",
                     "top/p.yaml": SMP.replace("      nodeSelector: {cloud.google.com/gke-accelerator: nvidia-h100-80gb}\n",
                                               "")})
    assert _findings(tmp_path, "CTX109") == [
        ("top/p.yaml", 9, 58, "p.yaml:spec.template.spec.containers[0].args[1]", "mid-vllm")]


def test_bad_patches_never_crash(tmp_path) -> None:
    unread = [("vllm", "(no model id)", "0.11.0", "unknown")]
    bad = [
        "patches: 5\n", "patches: [5, {path: 7}]\n", "patches: [{patch: {a: 1}}]\n", "patches: [{patch: '[', target: {}}]\n",
        "patches: [{path: p.yaml, target: 5}]\n", "patches: [{path: p.yaml, target: {name: '('}}]\n",
        "patches: [{path: p.yaml, target: {labelSelector: 'a in b'}}]\n", "patchesStrategicMerge: [{}, 3]\n",
        "patchesJson6902: [{path: p.yaml}]\n", "images: [{name: 3}, 7]\n", "images: [{name: vllm/vllm-openai, newTag: 0.1}]\n",
        "replacements: [{source: 3, targets: [{select: {kind: Deployment},"
        " fieldPaths: ['spec.template.spec.containers.[name=vllm].image']}]}]\n",
    ]
    ops = ["[1, 2]", "- {op: add, path: /spec/template/spec/containers/0/args/x, value: 1}",
           "- {op: move, from: 3, path: /a}", "- {op: copy, from: '', path: /spec/x}", "- {op: test, path: ''}", "7",
           "a: [", "- op: remove\n  path: /spec/template/spec/containers/-"]
    cases = [{"o/kustomization.yaml": "resources: [../base]\n" + GEN + b, "o/p.yaml": "- {op: remove, path: /x}\n"}
             for b in bad]
    cases += [{"o/kustomization.yaml": "resources: [../base]\n" + GEN +
               "patches:\n  - {path: p.yaml, target: {kind: Deployment}}\n", "o/p.yaml": o + "\n"} for o in ops]
    for number, files in enumerate(cases):
        (tmp_path / str(number)).mkdir()
        _tree(tmp_path / str(number), files)
        # a JSON patch that copies the whole object somewhere is one kustomize applies too
        assert _audit(tmp_path / str(number)) == (unread if number != 15 else [("vllm", MODEL, "0.11.0", "fits")]), \
            number


SIDECAR = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm}
spec:
  template:
    spec:
      containers:
        - name: proxy
          image: envoyproxy/envoy:v1.31.0
          args: [--config-path, /etc/envoy.yaml]
"""


def test_a_container_a_patch_adds_comes_first(tmp_path) -> None:
    # kustomize merges the patch's containers first (kyaml's MergeOptionsListPrepend): `kubectl kustomize` (5.5.0)
    # builds [proxy, vllm], so the JSON patch of containers/0 after it extends the proxy's args, not the engine's
    len_patch = "- op: add\n  path: /spec/template/spec/containers/0/args/-\n  value: --max-model-len=300000\n"
    _tree(tmp_path, {"o/kustomization.yaml": "resources: [../base]\n" + GEN + "patchesStrategicMerge: [proxy.yaml]\n"
                     "patchesJson6902:\n  - {target: {version: v1, kind: Deployment, name: vllm}, path: len.yaml}\n",
                     "o/proxy.yaml": SIDECAR, "o/len.yaml": len_patch})
    assert _audit(tmp_path) == [("vllm", MODEL, "0.11.0", "fits")]  # the base's $(LEN) = 8192
    assert _findings(tmp_path, "CTX109") == []


def test_a_workload_kustomize_has_no_schema_for_is_not_patched(tmp_path) -> None:
    # an extensions/v1beta1 Deployment is not in kustomize's OpenAPI bundle: kyaml replaces its lists whole
    # (kubectl kustomize drops the containers the patch does not name), not merged here: the overlay is not read
    old = DEPLOY.replace("apps/v1", "extensions/v1beta1")
    _tree(tmp_path, {"base/deployment.yaml": old, "o/kustomization.yaml": "resources: [../base]\n" + GEN +
                     "patches:\n  - path: p.yaml\n", "o/p.yaml": SMP.replace("apps/v1", "extensions/v1beta1")})
    assert _audit(tmp_path) == [("vllm", "(no model id)", "0.11.0", "unknown")]
    # nor one whose kustomization brings its own schema (`openapi: {path: ...}`: its merge keys)
    _tree(tmp_path, {"base/deployment.yaml": DEPLOY, "o/kustomization.yaml": "resources: [../base]\n" + GEN +
                     "openapi: {path: schema.json}\npatches:\n  - path: p.yaml\n", "o/p.yaml": SMP})
    assert _audit(tmp_path) == [("vllm", "(no model id)", "0.11.0", "unknown")]


def test_image_tags_the_old_name_of_images_retag(tmp_path) -> None:
    _tree(tmp_path, {"new/kustomization.yaml": "resources: [../base]\n" + GEN +
                     "imageTags:\n  - name: vllm/vllm-openai\n    newTag: v0.10.1\n"})
    assert _audit(tmp_path) == [("vllm", MODEL, "0.10.1", "fits")]


def test_a_strategic_merge_patch_without_kind_or_name_is_refused(tmp_path) -> None:
    # kustomize reads each as a resource: "missing metadata.name" / "missing kind" (kyaml GetValidatedMetadata)
    unread = [("vllm", "(no model id)", "0.11.0", "unknown")]
    for n, patch in enumerate([SMP.replace("metadata: {name: vllm}\n", ""), SMP.replace("kind: Deployment\n", "")]):
        _tree(tmp_path / str(n), {"o/kustomization.yaml": "resources: [../base]\n" + GEN +
                                  "patches:\n  - {path: p.yaml, target: {kind: Deployment}}\n", "o/p.yaml": patch})
        assert _audit(tmp_path / str(n)) == unread, n


def test_which_workloads_an_image_replacement_targets(tmp_path) -> None:
    # each checked with `kubectl kustomize` (kustomize 5.5.0) on this tree (api/filters/replacement/replacement.go)
    base = {"base/kustomization.yaml": "resources: [deployment.yaml]\nconfigMapGenerator:\n  - name: images\n"
                                       "    literals: [IMAGE=vllm/vllm-openai:v0.9.2]\n"}

    def replacement(select, extra="", field="data.IMAGE"):
        return ("replacements:\n  - source: {kind: ConfigMap, name: images, fieldPath: " + field + "}\n"
                "    targets:\n      - select: " + select + "\n" + extra +
                "        fieldPaths:\n          - spec.template.spec.containers.[name=vllm].image\n")
    cases = {
        # a reject with nothing to match rejects nothing (RejectsAny skips an empty id)
        "empty-reject": ("", replacement("{kind: Deployment}", "        reject: [{}]\n"), ("vllm", "0.9.2")),
        # the name between the prefix and the suffix is a previous id the target selects
        "between": ("namePrefix: p-\nnameSuffix: -s\n", replacement("{name: p-vllm}"), ("p-vllm-s", "0.9.2")),
        "default": ("", replacement("{kind: Deployment, namespace: default}"), ("vllm", "0.9.2")),
        "other": ("", replacement("{kind: Deployment, namespace: other}"), ("vllm", "0.11.0")),
    }
    for name, (rename, text, (deployment, release)) in cases.items():
        _tree(tmp_path / name, {**base, "o/kustomization.yaml": "resources: [../base]\n" + rename + GEN + text})
        assert _audit(tmp_path / name) == [(deployment, MODEL, release, "fits")], name
    # not applied: kubectl kustomize selects an unset namespace by `default` but not by `def.*`; `data.IMAGE.x` is
    # the path data, IMAGE, x (SmarterPathSplitter), which kustomize does not find
    unread = [("vllm", "(no model id)", "0.11.0", "unknown")]
    for name, text in {"regex": replacement("{kind: Deployment, namespace: 'def.*'}"),
                       "dotted": replacement("{kind: Deployment}", field="data.IMAGE.x")}.items():
        _tree(tmp_path / name, {**base, "o/kustomization.yaml": "resources: [../base]\n" + GEN + text})
        assert _audit(tmp_path / name) == unread, name


def test_a_patch_by_the_name_between_a_prefix_and_a_suffix(tmp_path) -> None:
    # the prefix and the suffix transformers each store a previous id: a strategic-merge patch naming p-vllm finds
    # the p-vllm-s Deployment (GetById), as `kubectl kustomize` (5.5.0) applies it
    _tree(tmp_path, {"mid/kustomization.yaml": "resources: [../base]\nnamePrefix: p-\nnameSuffix: -s\n",
                     "top/kustomization.yaml": "resources: [../mid]\n" + GEN + "patches:\n  - path: p.yaml\n",
                     "top/p.yaml": SMP.replace("metadata: {name: vllm}", "metadata: {name: p-vllm}")})
    assert _audit(tmp_path) == [("p-vllm-s", MODEL, "0.11.0", "fits")]
    assert _findings(tmp_path, "CTX109") == [
        ("top/p.yaml", 10, 58, "p.yaml:spec.template.spec.containers[0].args[1]", "p-vllm-s")]


def test_a_patch_allowed_to_change_the_name_renames_the_workload(tmp_path) -> None:
    # `options: {allowNameChange: true}` keeps the patch's metadata.name on the target (resource.ApplySmPatch), as
    # kubernetes-sigs/wg-serving's serving-catalog overlays rename their base's Deployment
    renamed = SMP.replace("metadata: {name: vllm}", "metadata: {name: llama-vllm}")

    def overlay(options, suffix=""):
        return {"o/kustomization.yaml": "resources: [../base]\n" + suffix + GEN + "patches:\n  - path: p.yaml\n"
                "    target: {kind: Deployment}\n" + options, "o/p.yaml": renamed}
    _tree(tmp_path / "rename", overlay("    options: {allowNameChange: true}\n"))
    assert _audit(tmp_path / "rename") == [("llama-vllm", MODEL, "0.11.0", "fits")]
    assert _findings(tmp_path / "rename", "CTX109") == [
        ("o/p.yaml", 10, 58, "p.yaml:spec.template.spec.containers[0].args[1]", "llama-vllm")]
    _tree(tmp_path / "keep", overlay("    options: {allowNameChange: false}\n"))  # the target's name stays
    assert _audit(tmp_path / "keep") == [("vllm", MODEL, "0.11.0", "fits")]
    # not read: a kind change, and a rename after a suffix (the deployment's name is the chain's affixes around it)
    unread = [("vllm", "(no model id)", "0.11.0", "unknown")]
    _tree(tmp_path / "kind", overlay("    options: {allowKindChange: true}\n"))
    assert _audit(tmp_path / "kind") == unread
    _tree(tmp_path / "suffix", {"mid/kustomization.yaml": "resources: [../base]\nnameSuffix: -s\n",
                                "o/kustomization.yaml": "resources: [../mid]\n" + GEN + "patches:\n  - path: p.yaml\n"
                                "    target: {kind: Deployment}\n    options: {allowNameChange: true}\n",
                                "o/p.yaml": renamed})
    assert _audit(tmp_path / "suffix") == unread
