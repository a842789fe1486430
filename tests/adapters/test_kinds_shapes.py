"""kinds.selected leaves a file of Kubernetes objects alone untested for the shapes of UNLABELLED_SHAPES: none of
them matches a document with both `apiVersion` and `kind`, and no shape matches a document that is no mapping."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ctxlint.adapters.kinds import SHAPES, UNLABELLED_SHAPES
from ctxlint.loader import parse_text

# every top-level key a shape reads, with values of the kinds the shapes test for
_VALUES = {"version": ['"2.0"', "2.1"], "services": ["{}", "{a: {image: x}}"], "profiles": ["{}"],
           "deployment": ["{}"], "docker_server": ["{}"], "trt_llm": ["{}"], "model_name": ["m"],
           "resources": ["{}"], "type": ["service", "task"], "commands": ["[vllm serve m]"], "groups": ["[]"],
           "replicas": ["[]"], "run": ["vllm serve m"], "envs": ["{}"], "setup": ["pip install x"], "name": ["n"],
           "num_nodes": ["2"], "applications": ["[{name: a}]"], "model_loading_config": ["{model_id: m}"],
           "base_image": ["{}"], "runtime": ["{}"], "model": ["{path: m, container: c}", "{path: m}"],
           "roles": ["{}", "{agg: {workers: 1}}"],
           "Resources": ["{}", "{M: {Type: 'AWS::SageMaker::Model'}}"]}


@st.composite
def _document(draw, labelled: bool) -> str:
    keys = draw(st.lists(st.sampled_from(sorted(_VALUES)), unique=True, max_size=8))
    lines = [f"{k}: {draw(st.sampled_from(_VALUES[k]))}" for k in keys]
    if labelled:
        lines += ["apiVersion: " + draw(st.sampled_from(["v1", "apps/v1", "x.io/v1"])),
                  "kind: " + draw(st.sampled_from(["Deployment", "Pod", "Service"]))]
    return "\n".join(draw(st.permutations(lines))) + "\n"


@settings(max_examples=400, deadline=None)
@given(_document(True), _document(False))
def test_no_unlabelled_shape_matches_a_document_with_api_version_and_kind(labelled, other):
    root = parse_text(labelled, "l.yaml").documents[0].root
    assert not any(shape(root) for shape in UNLABELLED_SHAPES)
    assert set(UNLABELLED_SHAPES) <= set(SHAPES.values())
    # the generator reaches the shapes without the two keys (so the test above is no empty claim)
    root = parse_text(other, "o.yaml").documents[0].root if other.strip() else None
    if root is not None:
        [shape(root) for shape in SHAPES.values()]


def test_the_generator_reaches_every_shape_without_the_labels():
    reached = set()
    for text in ("version: '2.0'\nservices: {}\nprofiles: {}\n", "docker_server: {}\nmodel_name: m\n",
                 "type: service\ncommands: [x]\n", "services: {a: {}}\n", "run: x\nname: n\n", "x: 1\n",
                 "applications: [{name: a}]\n", "model: {path: m, container: c}\nresources: {gpu_type: h100}\n",
                 "Resources: {M: {Type: 'AWS::SageMaker::Model'}}\n"):
        root = parse_text(text, "s.yaml").documents[0].root
        reached |= {name for name, shape in SHAPES.items() if shape(root)}
        labelled = parse_text(text + "apiVersion: v1\nkind: Pod\n", "s.yaml").documents[0].root
        assert not any(shape(labelled) for shape in UNLABELLED_SHAPES)
    assert reached == set(SHAPES)


@given(st.sampled_from(["- a\n- b\n", "just text\n", "42\n", "[1, {services: {}}]\n"]))
def test_no_shape_matches_a_document_that_is_no_mapping(text):
    root = parse_text(text, "n.yaml").documents[0].root
    assert not any(shape(root) for shape in SHAPES.values())
