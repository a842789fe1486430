"""adapters/gates.py: `kinds.selected` calls eight adapters only where their gate holds on the file's outline. A
gate may only leave out an adapter that would find nothing: every gated adapter is called (with the file's own
ConfigMaps and with a group's, as the engine does) on every sample, test and corpus file and on generated files
where its gate refuses, and must find nothing; the tables the gates read are the adapters' own."""
from __future__ import annotations

import os
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from ctxlint.adapters import ADAPTERS, READS_MAPS, adapter
from ctxlint.adapters import gates
from ctxlint.adapters.config_map_refs import Maps
from ctxlint.adapters.gates import GATES, Outline
from ctxlint.adapters.kinds import selected
from ctxlint.loader import parse_text
from ctxlint.file_reader import read_path

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared" / "corpus"


def _files():
    for root in (REPO / "samples", REPO / "tests", SHARED):
        for dirpath, _, names in os.walk(root):
            for name in sorted(names):
                if name.endswith((".yaml", ".yml", ".json")):
                    yield os.path.join(dirpath, name)


def _found(result) -> bool:
    return bool(result.deployments or result.diagnostics or result.routes or result.services or result.body_limits
                or result.scripts)


def _refused_find_nothing(loaded, maps=None) -> int:
    """Calls every gated adapter whose gate refuses the file; the number of refusals."""
    if loaded.shell:
        return 0
    outline, refused = Outline(loaded), 0
    for name, gate in GATES.items():
        if gate(outline):
            assert name in selected(ADAPTERS, loaded), (name, loaded.path)
            continue
        refused += 1
        assert name not in selected(ADAPTERS, loaded), (name, loaded.path)
        module = adapter(name)
        found = module.adapt(loaded, maps) if maps is not None and name in READS_MAPS else module.adapt(loaded)
        assert not _found(found), (name, loaded.path)
    return refused


def _outline_reads_as_kinds_does(loaded) -> None:
    """What kinds.selected takes from the outline: the pairs kinds.present finds, and whether every document is
    labelled as kinds._labelled says."""
    from ctxlint.adapters.kinds import _labelled, present

    outline = Outline(loaded)
    assert outline.pairs == present(loaded), loaded.path
    assert outline.labelled == all(_labelled(doc.root) for doc in loaded.documents), loaded.path


def test_a_refused_adapter_finds_nothing_in_any_file():
    files = [read_path(p) for p in _files()]
    assert len(files) > (300 if SHARED.is_dir() else 100)  # the corpus, when ../shared is beside the repo
    refused = sum(_refused_find_nothing(loaded) for loaded in files)
    for loaded in files:
        if not loaded.shell:
            _outline_reads_as_kinds_does(loaded)
    assert refused > (1000 if SHARED.is_dir() else 500)  # the gates leave out most calls
    maps = Maps(files)  # the ConfigMaps of every file at once, as a group's
    for loaded in files[::5]:
        _refused_find_nothing(loaded, maps)


def test_the_gates_read_the_adapters_own_tables():
    from ctxlint.adapters import gw_routers, kubernetes, native, pod_templates

    assert gates.K8S_KINDS == frozenset(kubernetes.POD_SPEC_PATHS) | {kubernetes.LWS}
    assert gates.ROUTER_KINDS == frozenset(gw_routers.WORKLOADS)
    assert (gates.NATIVE_KIND, gates.NATIVE_API) == (native.KIND, native.API_GROUP)
    assert set(GATES) <= set(ADAPTERS)
    outline = Outline(parse_text("apiVersion: example.org/v1\nkind: Thing\nspec: {}\n", "t.yaml"))
    # the gate's table is pod_templates' own (both made by kinds.handled_kinds), once a foreign object was seen
    assert outline.foreign and gates._HANDLED == [pod_templates.HANDLED] and pod_templates.HANDLED


_KINDS = sorted(gates.K8S_KINDS | gates.GATEWAY_KINDS | gates.CATALOG_KINDS | {
    "ConfigMap", "Model", "ModelDeployment", "Thing", "InferenceService", "HelmRelease", "List"})
_APIS = ["v1", "apps/v1", "example.org/v1", "ctxlint/v1", "ctxlint.io/v1", "serving.kserve.io/v1beta1",
         "inference.networking.k8s.io/v1", "aigateway.envoyproxy.io/v1alpha1", "gateway.envoyproxy.io/v1alpha1",
         "configuration.konghq.com/v1", None]
_CONTAINER = "{name: e, image: vllm/vllm-openai, args: [--model, m, --max-model-len, '4096']}"
_BODIES = [
    "spec: {}\n",
    f"spec: {{template: {{spec: {{containers: [{_CONTAINER}]}}}}}}\n",
    f"spec: {{containers: [{_CONTAINER}]}}\n",
    "spec: {selector: {app: a}, ports: [{port: 80}]}\n",
    "metadata: {name: n, annotations: {konghq.com/plugins: p}}\nspec: {selector: {app: a}}\n",
    "plugin: ai-proxy\nconfig: {model: {name: m}}\n",
    "data: {config.yaml: 'model_list: [{model_name: m, litellm_params: {model: openai/m}}]'}\n",
    "model_list: [{model_name: m, litellm_params: {model: openai/m, api_base: 'http://e:8000'}}]\n",
    "routing: {modelCards: [{name: m}]}\n",
    "services: {r: {image: x, command: [python, -m, sglang_router.launch_router, --worker-urls, 'http://e']}}\n",
    "proxy_config: {model_list: [{model_name: m, litellm_params: {model: openai/m}}]}\n",
    "spec: {model: {name: m}, engine: {kind: vllm}}\n",
]


@st.composite
def _text(draw):
    docs = []
    for _ in range(draw(st.integers(0, 3))):
        kind, api, body = draw(st.sampled_from(_KINDS + [None])), draw(st.sampled_from(_APIS)), \
            draw(st.sampled_from(_BODIES))
        head = (f"apiVersion: {api}\n" if api else "") + (f"kind: {kind}\n" if kind else "")
        head += "metadata: {name: n}\n" if "metadata:" not in body else ""
        if draw(st.integers(0, 5)) == 0:  # a list of such objects
            inner = "  " + (head + body).replace("\n", "\n  ").rstrip()
            docs.append(f"apiVersion: v1\nkind: List\nitems:\n- {inner[2:]}\n")
        else:
            docs.append(head + body)
    return "---\n".join(docs)


@settings(max_examples=300, deadline=None)
@given(_text())
def test_generated_files_a_refused_adapter_finds_nothing_in(text):
    loaded = parse_text(text, "gen.yaml")
    _refused_find_nothing(loaded)
    _outline_reads_as_kinds_does(loaded)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["apiVersion: v1\n", "kind: X\n", "applications: []\n", "a: 1\n"]), max_size=3),
       st.integers(0, 2))
def test_half_labelled_documents_read_as_kinds_does(keys, docs):
    """A document with `apiVersion` or `kind` alone is no labelled one (a Ray Serve config may have the first)."""
    text = "---\n".join(["".join(dict.fromkeys(keys)) or "{}\n"] * docs + ["- a\n"])
    _outline_reads_as_kinds_does(parse_text(text, "gen.yaml"))
