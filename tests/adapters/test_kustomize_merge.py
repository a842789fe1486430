"""kustomize's patch semantics as adapters/kustomize_merge.py and kustomize_patches.py apply them, against the
behaviour kustomize documents and tests (kubernetes-sigs/kustomize@12f9e6391464b3ad9dd3fe8182049dc1b1772990):
kyaml/yaml/merge2/merge2.go and its map_test.go / list_test.go / smpdirective_test.go, api/filters/patchjson6902,
api/internal/image/image.go and api/filters/imagetag/updater.go; the merge keys are the `x-kubernetes-patch-merge-key`
of kyaml/openapi/kubernetesapi/data/kubernetes-openapi-union-v1.21.2.bundle-v1.json.gz (k8s.io/api's
`patchMergeKey` tags)."""
from __future__ import annotations

import pytest

from ctxlint.adapters.kustomize_merge import NotApplied, copy_tree, json6902, merge, pointer
from ctxlint.adapters.kustomize_patch_inputs import image_matched as _matched, retag as _retag, selects as _selects
from ctxlint.loader import parse_text
from ctxlint.nodes import ForeignNode


def _node(text: str):
    return parse_text(text, "x.yaml").documents[0].root


def _place(node, path):
    node = copy_tree(node)
    node.path = f"p.yaml:{path}"
    return node


def _smp(base: str, patch: str):
    merged = merge(_node(base), _node(patch), "", "", _place)
    return None if merged is None else merged.plain()


POD = """\
spec:
  containers:
    - name: a
      image: a:1
      args: [--x, "1"]
      env: [{name: A, value: "1"}, {name: B, value: "2"}]
      volumeMounts: [{name: v, mountPath: /m}]
    - name: b
      image: b:1
"""


def test_maps_merge_recursively_and_lists_with_a_merge_key_by_it() -> None:
    patch = """\
spec:
  containers:
    - name: a
      env: [{name: B, value: "3"}, {name: C, value: "4"}]
      volumeMounts: [{name: w, mountPath: /m}]
    - name: c
      image: c:1
"""
    # the patch's elements first in its order, then the workload's others: what `kubectl kustomize` (kustomize
    # 5.5.0) builds from this patch over this Pod (kyaml's MergeOptionsListPrepend)
    assert _smp(POD, patch) == {"spec": {"containers": [
        {"name": "a", "image": "a:1", "args": ["--x", "1"],
         "env": [{"name": "B", "value": "3"}, {"name": "C", "value": "4"}, {"name": "A", "value": "1"}],
         "volumeMounts": [{"name": "w", "mountPath": "/m"}]},  # merged by mountPath, not name
        {"name": "c", "image": "c:1"},  # a new element comes before the workload's the patch does not name
        {"name": "b", "image": "b:1"}]}}


def test_a_merged_list_takes_the_patch_order() -> None:
    # containers [a, b], a patch naming b then a new one: kustomize builds [b, new, a], so a JSON patch of
    # /spec/containers/0 after it changes b
    patch = "spec:\n  containers:\n    - {name: b, image: b:2}\n    - {name: n, image: n:1}\n"
    merged = merge(_node(POD), _node(patch), "", "", _place)
    containers = merged.value["spec"].value["containers"].value
    assert [c.value["name"].value for c in containers] == ["b", "n", "a"]
    assert containers[0].value["image"].path == "p.yaml:spec.containers[0].image"
    assert containers[1].path == "p.yaml:spec.containers[1]"
    assert containers[2].value["image"].path == "spec.containers[0].image"  # the base's own, now at [2]


def test_a_list_delete_directive_clears_the_list() -> None:
    # `- $patch: delete` as an element of its own (its only key) deletes the list: kubectl kustomize drops `env`
    patch = "spec:\n  containers:\n    - name: a\n      env:\n        - $patch: delete\n"
    assert "env" not in _smp(POD, patch)["spec"]["containers"][0]
    assert _smp(POD, "spec:\n  containers:\n    - whatever\n    - $patch: delete\n") == {"spec": {}}
    # a `$patch: merge` element is dropped and the rest merged
    patch = "spec:\n  containers:\n    - {name: b, image: b:2}\n    - $patch: merge\n"
    assert [c["image"] for c in _smp(POD, patch)["spec"]["containers"]] == ["b:2", "a:1"]


@pytest.mark.parametrize("patch", [
    "spec:\n  containers:\n    - image: x:2\n",                                # no name: kustomize empties the list
    "spec:\n  containers:\n    - name: a\n      env: [{value: '3'}]\n",        # an env entry without a name
    "spec:\n  containers:\n    - {name: a, args: [--1]}\n    - {name: a, args: [--2]}\n",  # one name twice
    "spec:\n  containers:\n    - {name: a, $patch: replace, image: z:9}\n",   # kustomize keeps the element
    "spec:\n  containers:\n    - x\n",
    # a value of another kind than the workload's: `kubectl kustomize` refuses each
    "spec:\n  containers: {name: a}\n", "spec:\n  containers: abc\n",
    "spec:\n  containers:\n    - {name: a, args: {x: 1}}\n", "spec:\n  containers:\n    - {name: a, image: [x]}\n",
])
def test_list_elements_kustomize_mishandles_are_not_applied(patch) -> None:
    with pytest.raises(NotApplied):
        _smp(POD, patch)


def test_args_and_command_are_replaced_whole() -> None:
    patch = "spec:\n  containers:\n    - name: a\n      args: [--y]\n"
    assert _smp(POD, patch)["spec"]["containers"][0]["args"] == ["--y"]


def test_null_clears_a_key_and_patch_delete_removes_an_element() -> None:
    patch = "spec:\n  containers:\n    - name: a\n      args: null\n    - {name: b, $patch: delete}\n"
    merged = _smp(POD, patch)
    assert [c["name"] for c in merged["spec"]["containers"]] == ["a"]
    assert "args" not in merged["spec"]["containers"][0]


def test_patch_replace_puts_the_patch_map_in_place() -> None:
    # on a mapping that is no list element (on an element kyaml puts the workload's back: not applied, above)
    patch = "spec:\n  $patch: replace\n  containers:\n    - name: n\n"
    assert _smp(POD, patch) == {"spec": {"containers": [{"name": "n"}]}}
    patch = "spec:\n  containers:\n    - name: a\n      securityContext: {$patch: replace, runAsUser: 1}\n"
    assert _smp("spec: {containers: [{name: a, securityContext: {privileged: true}}]}\n", patch) == \
        {"spec": {"containers": [{"name": "a", "securityContext": {"runAsUser": 1}}]}}


def test_a_replace_element_replaces_the_list() -> None:
    patch = "spec:\n  containers:\n    - $patch: replace\n    - {name: z, image: z:1}\n"
    assert _smp(POD, patch)["spec"]["containers"] == [{"name": "z", "image": "z:1"}]


def _ports(base: str, patch: str):
    merged = _smp(f"spec: {{containers: [{{name: a, ports: {base}}}]}}", f"spec: {{containers: [{{name: a, ports: {patch}}}]}}")
    return merged["spec"]["containers"][0]["ports"]


def test_ports_without_protocol_merge_by_container_port_alone() -> None:
    # no element sets `protocol`: kyaml merges by containerPort alone (validateKeys), the patch's first; what
    # `kubectl kustomize` 5.5.0 builds
    assert _ports("[{containerPort: 8000, name: a}, {containerPort: 9000, name: b}]",
                  "[{containerPort: 7000, name: n}, {containerPort: 9000, name: B}]") == [
        {"containerPort": 7000, "name": "n"}, {"containerPort": 9000, "name": "B"}, {"containerPort": 8000, "name": "a"}]
    assert _ports("[{containerPort: 8000, name: a}]", '[{containerPort: "8000", name: A}]') == [
        {"containerPort": "8000", "name": "A"}]  # matched by the scalar's text, as kyaml's FieldMatcher


def test_ports_with_protocol_merge_by_both_keys_new_ones_first_then_the_workloads() -> None:
    # kubectl kustomize 5.5.0: [5, 4/UDP, 1+, 2, 3+] (appendListNode removes a matched element and appends it again)
    tcp = "protocol: TCP"
    assert _ports(f"[{{containerPort: 1, {tcp}, name: a}}, {{containerPort: 2, {tcp}, name: b}}, "
                  f"{{containerPort: 3, {tcp}, name: c}}]",
                  f"[{{containerPort: 3, {tcp}, hostPort: 33}}, {{containerPort: 5, {tcp}, name: e}}, "
                  f"{{containerPort: 1, {tcp}, hostPort: 11}}, {{containerPort: 4, protocol: UDP, name: d}}]") == [
        {"containerPort": 5, "protocol": "TCP", "name": "e"}, {"containerPort": 4, "protocol": "UDP", "name": "d"},
        {"containerPort": 1, "protocol": "TCP", "name": "a", "hostPort": 11},
        {"containerPort": 2, "protocol": "TCP", "name": "b"},
        {"containerPort": 3, "protocol": "TCP", "name": "c", "hostPort": 33}]
    # one port on two protocols stays two; a delete removes only its own
    assert _ports(f"[{{containerPort: 1, {tcp}, name: a}}, {{containerPort: 2, {tcp}, name: b}}]",
                  f"[{{containerPort: 2, {tcp}, $patch: delete}}, {{containerPort: 2, protocol: UDP, name: u}}]") == [
        {"containerPort": 2, "protocol": "UDP", "name": "u"}, {"containerPort": 1, "protocol": "TCP", "name": "a"}]


def test_topology_spread_constraints_merge_by_topology_key_and_when_unsatisfiable() -> None:
    base = ("spec: {topologySpreadConstraints: [{topologyKey: zone, whenUnsatisfiable: DoNotSchedule, maxSkew: 1}, "
            "{topologyKey: host, whenUnsatisfiable: ScheduleAnyway, maxSkew: 1}]}")
    patch = ("spec: {topologySpreadConstraints: [{topologyKey: host, whenUnsatisfiable: ScheduleAnyway, maxSkew: 3}, "
             "{topologyKey: zone, whenUnsatisfiable: ScheduleAnyway, maxSkew: 2}]}")
    assert _smp(base, patch)["spec"]["topologySpreadConstraints"] == [
        {"topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway", "maxSkew": 2},
        {"topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule", "maxSkew": 1},
        {"topologyKey": "host", "whenUnsatisfiable": "ScheduleAnyway", "maxSkew": 3}]


def test_two_key_lists_kustomize_mangles_and_unknown_directives_are_not_applied() -> None:
    # a second key set by some elements only: kubectl kustomize 5.5.0 keeps {8000, TCP, a} and drops the patch's
    # name A (kyaml's mergeValues pairs the two and the workload's element wins): not applied
    with pytest.raises(NotApplied, match="some elements of spec.containers\\[0\\].ports set `protocol` and others not"):
        _ports("[{containerPort: 8000, protocol: TCP, name: a}]", "[{containerPort: 8000, name: A}]")
    with pytest.raises(NotApplied, match="whenUnsatisfiable"):
        _smp("spec: {topologySpreadConstraints: [{topologyKey: zone, whenUnsatisfiable: DoNotSchedule}]}",
             "spec: {topologySpreadConstraints: [{topologyKey: zone, maxSkew: 5}]}")
    with pytest.raises(NotApplied, match="ephemeral"):
        _smp("spec: {ephemeralContainers: [{name: a, ports: [{containerPort: 80}]}]}",
             "spec: {ephemeralContainers: [{name: a, ports: [{containerPort: 81}]}]}")
    with pytest.raises(NotApplied, match="two elements of spec.containers\\[0\\].ports have one `containerPort`"):
        _ports("[{containerPort: 80, name: a}, {containerPort: 80, name: b}]", "[{containerPort: 80, name: c}]")
    with pytest.raises(NotApplied, match=r"\$retainKeys"):
        _smp(POD, "spec:\n  $retainKeys: [containers]\n")
    with pytest.raises(NotApplied, match="directive"):
        _smp(POD, "spec: {$patch: merge-all}\n")


def test_values_from_the_patch_are_placed_and_the_base_keeps_its_own() -> None:
    merged = merge(_node(POD), _node("spec:\n  containers:\n    - name: a\n      image: a:2\n"), "", "", _place)
    container = merged.value["spec"].value["containers"].value[0]
    assert container.value["image"].path == "p.yaml:spec.containers[0].image"
    assert container.value["args"].path == "spec.containers[0].args"  # the base's, untouched


def _ops(base: str, ops: str):
    return json6902(copy_tree(_node(base)), _node(ops), "", _place).plain()


def test_json6902_ops() -> None:
    base = "a: {b: [1, 2], 'c/d': x, 'e~f': y}\n"
    assert _ops(base, "- {op: add, path: /a/b/-, value: 3}\n- {op: add, path: /a/b/0, value: 0}\n") == \
        {"a": {"b": [0, 1, 2, 3], "c/d": "x", "e~f": "y"}}
    assert _ops(base, "- {op: replace, path: /a/c~1d, value: z}\n- {op: remove, path: /a/e~0f}\n") == \
        {"a": {"b": [1, 2], "c/d": "z"}}
    assert _ops(base, "- {op: move, from: /a/b/0, path: /a/n}\n- {op: copy, from: /a/n, path: /a/m}\n") == \
        {"a": {"b": [2], "c/d": "x", "e~f": "y", "n": 1, "m": 1}}
    assert _ops(base, "- {op: test, path: /a/b/1, value: 2}\n") == {"a": {"b": [1, 2], "c/d": "x", "e~f": "y"}}
    # json-patch v4 replaces a key its object lacks by setting it (kubectl kustomize 5.5.0 does)
    assert _ops(base, "- {op: replace, path: /a/n, value: 1}\n") == {"a": {"b": [1, 2], "c/d": "x", "e~f": "y", "n": 1}}


@pytest.mark.parametrize("ops", [
    "- {op: test, path: /a/b/1, value: 3}\n",        # a failed test: kustomize refuses the build
    "- {op: replace, path: /a/b/2, value: 1}\n",     # replace needs the index
    "- {op: replace, path: /x/nope, value: 1}\n",    # and the parent
    "- {op: remove, path: /a/b/5}\n",
    "- {op: add, path: /a/b/7, value: 1}\n",         # past the end
    "- {op: add, path: /x/y, value: 1}\n",           # no parent
    "- {op: append, path: /a, value: 1}\n",          # no such op
    "- {op: add, path: a/b, value: 1}\n",            # not a pointer
])
def test_json6902_that_kustomize_refuses_is_not_applied(ops) -> None:
    with pytest.raises(NotApplied):
        _ops("a: {b: [1, 2]}\n", ops)


def test_pointer_unescapes_in_order() -> None:
    assert pointer("/a~01/b~1c") == ["a~1", "b/c"]  # ~01 is "~1", not "/"


@pytest.mark.parametrize("image,entry,expected", [
    # api/filters/imagetag/imagetag_test.go cases
    ("nginx:1.7.9", {"newName": None, "newTag": "1.8.0", "digest": None, "tagSuffix": None}, "nginx:1.8.0"),
    ("nginx", {"newName": "my/nginx", "newTag": None, "digest": None, "tagSuffix": None}, "my/nginx"),
    ("nginx:1.7.9", {"newName": None, "newTag": None, "digest": "sha256:24a0", "tagSuffix": None},
     "nginx@sha256:24a0"),
    ("localhost:5000/vllm:v1@sha256:ab", {"newName": None, "newTag": "v2", "digest": None, "tagSuffix": None},
     "localhost:5000/vllm:v2"),
])
def test_images_retag_as_kustomize(image, entry, expected) -> None:
    assert _retag(image, entry) == expected


def test_image_names_match_whole() -> None:
    assert _matched("vllm/vllm-openai:v0.10.1", "vllm/vllm-openai")
    assert _matched("vllm/vllm-openai@sha256:ab12cd", "vllm/vllm-openai")
    assert not _matched("vllm/vllm-openai-rocm:v1", "vllm/vllm-openai")
    assert not _matched("docker.io/vllm/vllm-openai:v1", "vllm/vllm-openai")


def test_label_selectors() -> None:
    labels = _node("app: vllm\ntier: gpu\n")
    assert _selects("app=vllm,tier in (gpu, tpu)", labels)
    assert _selects("app==vllm,!canary,tier", labels)
    assert not _selects("app!=vllm", labels)
    assert not _selects("tier notin (gpu)", labels)
    with pytest.raises(NotApplied):
        _selects("app=vllm=x", labels)


def test_inline_patches_are_placed_in_their_kustomization() -> None:
    from ctxlint.adapters.kustomize_patch_inputs import inline_patch as _inline_patch
    from ctxlint.adapters.scalar_spans import ScalarSpans

    text = "patches:\n  - patch: |-\n      spec:\n        replicas: 3\n"
    kust = _node(text)
    item = kust.value["patches"].value[0].value["patch"]
    patch = _inline_patch(item, ScalarSpans("k.yaml", text), "k.yaml:patches[0].patch")
    replicas = patch.docs[0].value["spec"].value["replicas"]
    assert isinstance(replicas, ForeignNode)
    found = replicas.source("elsewhere.yaml")
    assert (found.file, found.line, found.col, found.end_line, found.end_col) == ("k.yaml", 4, 19, 4, 20)


def test_paths_of_merged_elements_are_where_they_end() -> None:
    # a is deleted: b's merged image is at containers[0], c (new, after b in the patch) at [1]
    patch = "spec:\n  containers:\n    - {name: a, $patch: delete}\n    - {name: b, image: b:2}\n    - {name: c}\n"
    merged = merge(_node(POD), _node(patch), "", "", _place)
    containers = merged.value["spec"].value["containers"].value
    assert [c.value["name"].value for c in containers] == ["b", "c"]
    assert containers[0].value["image"].path == "p.yaml:spec.containers[0].image"
    assert containers[1].path == "p.yaml:spec.containers[1]"
