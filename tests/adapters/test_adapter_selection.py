"""`kinds.selected` (which adapters adapt_file runs) picks exactly the adapters `reads_file`
accepts, in the same order: over every sample, test and corpus file, and over generated files
of made-up, near-miss and real (API group, kind) pairs."""
from __future__ import annotations

import os
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from ctxlint.adapters import ADAPTERS
from ctxlint.adapters.kinds import CRD_KINDS, present, reads_file, selected
from ctxlint.loader import parse_text
from ctxlint.file_reader import read_path

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared" / "corpus"


def _general(loaded):
    kinds = present(loaded)
    return tuple(name for name in ADAPTERS if reads_file(name, loaded, kinds))


def _files():
    for root in (REPO / "samples", REPO / "tests", SHARED):
        for dirpath, _, names in os.walk(root):
            for name in sorted(names):
                if name.endswith((".yaml", ".yml", ".json")):
                    yield os.path.join(dirpath, name)


def test_every_file_selects_what_reads_file_accepts():
    seen = set()
    for path in _files():
        loaded = read_path(path)
        chosen = selected(ADAPTERS, loaded)
        assert chosen == _general(loaded), path
        seen.update(chosen)
    # most custom-resource adapters with the corpus beside the repo (the generated files reach all)
    assert len(seen & set(CRD_KINDS)) >= (8 if SHARED.is_dir() else 1)


_GROUPS = sorted({g for reads in CRD_KINDS.values() for g, _ in reads}) + [
    "x.nvidia.com", "nvidia.co", "apps", "kserve.io", "example.org", "", "v1"]
_KINDS = sorted({k for reads in CRD_KINDS.values() for _, kinds in reads for k in kinds}) + [
    "Deployment", "ConfigMap", "List", "model", "ServingRuntimes"]


@st.composite
def _text(draw):
    docs = []
    for _ in range(draw(st.integers(0, 3))):
        shape = draw(st.sampled_from(["object", "values", "list", "scalar", "version-only", "sdl", "truss",
                                           "dstack"]))
        group, kind = draw(st.sampled_from(_GROUPS)), draw(st.sampled_from(_KINDS))
        api = f"{group}/v1" if group else "v1"
        if shape == "object":
            docs.append(f"apiVersion: {api}\nkind: {kind}\nspec: {{}}\n")
        elif shape == "values":
            docs.append("image: {repository: nvcr.io/nim/x}\nmodel: {name: m}\n")
        elif shape == "list":
            docs.append(f"apiVersion: v1\nkind: List\nitems:\n- apiVersion: {api}\n  kind: {kind}\n")
        elif shape == "scalar":
            docs.append("just text\n")
        elif shape == "sdl":  # Akash SDL, or a near miss (another version, no profiles/deployment: Compose)
            version = draw(st.sampled_from(['"2.0"', "2.1", '"3.8"', "2"]))
            rest = draw(st.sampled_from(["profiles: {}\n", "deployment: {}\n", "networks: {}\n"]))
            docs.append(f"version: {version}\nservices: {{}}\n{rest}")
        elif shape == "truss":  # a Truss config, or a near miss (no engine section, no companion, a Compose key)
            engine = draw(st.sampled_from(["docker_server: {}\n", "trt_llm: {}\n", ""]))
            rest = draw(st.sampled_from(["resources: {}\n", "model_name: m\n", "services: {}\n", ""]))
            docs.append(f"{engine}{rest}" or "x: 1\n")
        elif shape == "dstack":  # a dstack service or task, or a near miss (a dev-environment, commands as a string)
            kind_ = draw(st.sampled_from(["service", "task", "dev-environment", "[service]"]))
            rest = draw(st.sampled_from(["commands: [vllm serve m]\n", "commands: vllm serve m\n", "groups: []\n",
                                         "image: x\n", f"apiVersion: {api}\ncommands: []\n"]))
            docs.append(f"type: {kind_}\n{rest}")
        else:
            docs.append(f"apiVersion: {api}\n")
    if draw(st.booleans()):
        docs.append("command: [python3, launch_triton_server.py]\n")
    return "---\n".join(docs)


@settings(max_examples=300, deadline=None)
@given(_text())
def test_generated_files_select_what_reads_file_accepts(text):
    loaded = parse_text(text, "gen.yaml")
    assert selected(ADAPTERS, loaded) == _general(loaded)


def test_any_selection_of_adapters_in_any_order_selects_what_reads_file_accepts():
    """selected() tests each name as its plan (kinds._plan, made once per tuple of names) says: any subset of the
    adapters, in any order, as a tuple or a list, picks the names reads_file accepts, in the order given."""
    import random

    rng = random.Random(15)
    files = [read_path(p) for p in list(_files())[::7]]
    for _ in range(60):
        names = rng.sample(ADAPTERS, rng.randint(0, len(ADAPTERS)))
        for loaded in rng.sample(files, min(20, len(files))):
            expected = tuple(n for n in names if reads_file(n, loaded, present(loaded)))
            assert selected(tuple(names), loaded) == expected == selected(list(names), loaded), loaded.path
        twice = names + names[:2]  # a name given twice is chosen twice, as reads_file accepts it
        for loaded in rng.sample(files, min(5, len(files))):
            expected = tuple(n for n in twice if reads_file(n, loaded, present(loaded)))
            assert selected(tuple(twice), loaded) == expected, loaded.path


def _found(result) -> bool:
    return bool(result.deployments or result.diagnostics or result.routes or result.services or result.body_limits
                or result.scripts)


_SHAPED = ("compose", "skypilot", "engine_files", "ray_serve")  # adapters selected by a shape (kinds.SHAPES)


def _none_without_their_shape(loaded) -> None:
    from ctxlint.adapters import adapter
    from ctxlint.adapters.kinds import SHAPES

    for name in _SHAPED:
        if not any(SHAPES[name](doc.root) for doc in loaded.documents):
            assert not _found(adapter(name).adapt(loaded)), (name, loaded.path)


def test_shaped_adapters_find_nothing_in_a_file_without_their_shape():
    """selected() calls compose, skypilot, engine_files and ray_serve only for a file with a document of their
    shape: called anyway (as before) on any other file, each must find nothing."""
    for path in _files():
        _none_without_their_shape(read_path(path))


_SHAPED_DOCS = ["services: {a: {image: vllm/vllm-openai, command: [vllm, serve, m]}}\n",
                "services: {a: {image: x}}\napiVersion: v1\n", "version: '2.0'\nservices: {}\nprofiles: {}\n",
                "run: vllm serve m\nresources: {accelerators: A100:1}\n", "run: vllm serve m\n",
                "run: [vllm]\nname: x\n", "model: m\nmax_model_len: 4096\n", "kind: X\nmodel: m\n",
                "llm:\n  model: m\n", "applications: [{name: a, import_path: ray.serve.llm:build_openai_app}]\n",
                "applications: {}\n", "model_loading_config: {model_id: m}\n", "kind: Y\nmodel_loading_config: {}\n",
                "context_servers: {num_instances: 1}\ngeneration_servers: {num_instances: 1}\n", "- a\n- b\n",
                "apiVersion: v1\nkind: ConfigMap\ndata: {a: b}\n", "just text\n"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(_SHAPED_DOCS), max_size=3))
def test_generated_files_find_nothing_without_the_shape(docs):
    _none_without_their_shape(parse_text("---\n".join(docs), "gen.yaml"))
