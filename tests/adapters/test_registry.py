"""Every adapter module is registered: a new input format is one module plus one line.
Custom-resource adapters are imported only for files that hold their kinds; reading a file
that way gives exactly what running every adapter on it gives."""
from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

import pytest

import ctxlint.adapters as adapters
from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.kinds import CRD_KINDS, READS_VALUES, SHAPES, TEXT_MARKERS
from ctxlint.file_reader import read_path

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared" / "corpus"


def test_every_module_with_adapt_is_in_ADAPTERS():
    found = set()
    for info in pkgutil.iter_modules(adapters.__path__):
        module = importlib.import_module(f"ctxlint.adapters.{info.name}")
        if callable(getattr(module, "adapt", None)):
            found.add(module.__name__)
    registered = {m.__name__ for m in adapters.all_adapters()}
    assert found == registered, f"not registered: {sorted(found - registered)}"
    assert all(isinstance(getattr(m, "NAME", None), str) and m.NAME for m in adapters.all_adapters())
    assert adapters.ADAPTERS[0] == "native"  # the native manifest is read first


def test_dispatch_tables_name_registered_adapters_and_their_own_markers():
    assert set(CRD_KINDS) | READS_VALUES | set(TEXT_MARKERS) | set(SHAPES) <= set(adapters.ADAPTERS)
    for name, marker in TEXT_MARKERS.items():
        assert marker == adapters.adapter(name).LAUNCH


def _inputs():
    roots = [REPO / "samples", REPO / "tests", SHARED / "real", SHARED / "gateways"]
    return sorted(p for root in roots if root.is_dir() for p in root.rglob("*")
                  if p.suffix in (".yaml", ".yml", ".json") and p.is_file())


def test_lazy_dispatch_reads_what_every_adapter_reads():
    """Over every sample, test fixture and corpus file: skipping the adapters whose kinds a file
    lacks loses nothing, and a file with one of their kinds reaches them."""
    files = _inputs()
    assert len(files) > (300 if SHARED.is_dir() else 100)  # the corpus is beside the repo, or not
    reached = set()
    for path in files:
        loaded = read_path(str(path))
        if loaded is None or not getattr(loaded, "documents", None):
            continue
        eager = AdaptResult()
        for module in adapters.all_adapters():
            part = module.adapt(loaded)
            if part.deployments or part.routes:
                reached.add(module.__name__.rsplit(".", 1)[1])
            eager.extend(part)
        assert adapters.adapt_file(loaded) == eager, path
    # The corpus holds files for most custom-resource adapters; every adapter's own tests adapt
    # inline texts through adapt_file (tests/adapters/kit.py), so a kind missing from the table
    # fails them even without the corpus.
    if SHARED.is_dir():
        assert len(set(CRD_KINDS) & reached) >= 8


@pytest.mark.parametrize("name", sorted(CRD_KINDS) + sorted(SHAPES))
def test_each_custom_resource_adapter_is_skipped_for_a_plain_deployment(name, tmp_path, monkeypatch):
    path = tmp_path / "d.yaml"
    path.write_text("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\nspec: {}\n")
    calls = []
    module = adapters.adapter(name)
    monkeypatch.setattr(module, "adapt", lambda loaded: calls.append(loaded) or AdaptResult())
    adapters.adapt_file(read_path(str(path)))
    assert calls == []


# compose reads it, and engine_files every document with neither apiVersion nor kind (it finds nothing here)
@pytest.mark.parametrize("name", sorted(set(SHAPES) - {"compose", "engine_files"}))
def test_each_shape_adapter_is_skipped_for_a_compose_file(name, tmp_path, monkeypatch):
    path = tmp_path / "docker-compose.yml"  # an old Compose file version is not an Akash SDL's
    path.write_text('version: "2.1"\nservices: {llm: {image: vllm/vllm-openai:v0.8.4}}\n')
    calls = []
    monkeypatch.setattr(adapters.adapter(name), "adapt", lambda loaded: calls.append(loaded) or AdaptResult())
    adapters.adapt_file(read_path(str(path)))
    assert calls == []
