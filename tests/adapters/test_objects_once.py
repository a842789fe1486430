"""crd_common.objects keeps the last file's objects (the adapters ask ~17 times a file) and adapt_file merges only
the adapters' results that hold something: both must give what they replaced (kept below), for every file of the
samples and the corpus, asked in any order across files."""
from __future__ import annotations

import random
from pathlib import Path
from typing import Iterator, List

from conftest import SHARED

from ctxlint.adapters import READS_MAPS, READS_REFS, ADAPTERS, adapt_file, adapter
from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.crd_common import _objects_in, objects
from ctxlint.adapters.kinds import selected
from ctxlint.discover import discover
from ctxlint.loader import Document, LoadedFile, parse_text
from ctxlint.file_reader import read_path
from ctxlint.nodes import Node
from ctxlint.records import fields

ROOT = Path(__file__).resolve().parents[2]


def _reference_objects(loaded: LoadedFile) -> Iterator[Node]:
    """The replaced generator: the file's objects found again at every call."""
    for doc in loaded.documents:
        yield from _objects_in(doc.root)


def _reference_adapt(loaded: LoadedFile) -> AdaptResult:
    """The replaced loop: every selected adapter's result merged, empty or not."""
    result = AdaptResult()
    for name in selected(ADAPTERS, loaded):
        module = adapter(name)
        result.extend(module.adapt(loaded))
    return result


def _files() -> List[LoadedFile]:
    paths = [str(ROOT / "samples")] + ([str(SHARED / "corpus")] if (SHARED / "corpus").is_dir() else [])
    return [read_path(p) for p in discover(paths)]


def test_objects_are_those_the_generator_finds_in_any_order() -> None:
    files = _files()
    assert len(files) > 100
    rng = random.Random(15)
    asked = files + [rng.choice(files) for _ in range(3 * len(files))]
    for loaded in asked:
        assert [id(o) for o in objects(loaded)] == [id(o) for o in _reference_objects(loaded)], loaded.path
        assert [id(o) for o in objects(loaded)] == [id(o) for o in _reference_objects(loaded)], loaded.path


def test_a_document_added_after_a_file_was_asked_is_seen() -> None:
    loaded = parse_text("apiVersion: v1\nkind: Service\nmetadata: {name: a}\n", "a.yaml")
    assert len(list(objects(loaded))) == 1
    more = parse_text("apiVersion: v1\nkind: List\nitems: [{kind: Pod}, {kind: Service}]\n", "b.yaml")
    loaded.documents.append(Document(1, more.documents[0].root))
    assert [id(o) for o in objects(loaded)] == [id(o) for o in _reference_objects(loaded)]
    assert len(list(objects(loaded))) == 3


def test_adapt_file_merges_what_every_adapter_found() -> None:
    files = _files()
    nonempty = 0
    for loaded in files:
        got, expected = adapt_file(loaded), _reference_adapt(loaded)
        assert got == expected, loaded.path
        nonempty += bool(got.deployments)
    assert nonempty > 50
    assert READS_MAPS and READS_REFS


def test_adapt_result_fields_are_those_adapt_file_tests() -> None:
    """adapt_file skips a result whose seven lists are empty: a new list on AdaptResult must be tested there too."""
    assert [f.name for f in fields(AdaptResult)] == [
        "deployments", "diagnostics", "routes", "services", "body_limits", "scripts", "dockerfiles"]
