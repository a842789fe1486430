"""Every real deploy file of the shared corpus goes through `ctxlint check` cleanly."""
from __future__ import annotations

import re

import pytest

from conftest import SHARED
from helpers import run

CORPUS = SHARED / "corpus" / "real"
FILES = sorted(p for p in CORPUS.rglob("*") if p.is_file() and p.suffix in (".yaml", ".yml", ".json")) \
    if CORPUS.is_dir() else []


@pytest.mark.skipif(not FILES, reason="shared corpus not available")
def test_every_corpus_file_checks_without_internal_error():
    with_deployments = 0
    for path in FILES:
        result = run(["check", str(path)])
        assert result.code in (0, 1), (path, result.code, result.err)
        assert "internal error" not in result.err and "Traceback" not in result.err, (path, result.err)
        found = re.search(r"(\d+) deployments?\b", result.err)
        with_deployments += bool(found and int(found.group(1)))
    # Kubernetes, compose and SkyPilot files with an engine command line are read.
    assert with_deployments >= 35, with_deployments
