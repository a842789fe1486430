"""A CI-sized run of tests/fuzz/fuzz.py: fixed seed, a few hundred mutated inputs, no crash."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from conftest import SHARED

FUZZ = Path(__file__).parent / "fuzz" / "fuzz.py"


def _fuzz_module():
    spec = importlib.util.spec_from_file_location("ctxlint_fuzz", FUZZ)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_fuzz_300_cases_fixed_seed(tmp_path):
    fuzz = _fuzz_module()
    corpus = SHARED / "corpus" / "real"
    summary = fuzz.run(300, seed=20260, corpus=corpus if corpus.is_dir() else None,
                       crashes=tmp_path / "crashes", log=lambda line: None)
    assert summary.cases == 300
    assert summary.crashes == [], "\n".join(summary.lines())
    assert summary.findings["CTX001"] > 0 and sum(summary.findings.values()) > summary.findings["CTX001"]


def test_mutations_are_deterministic():
    fuzz = _fuzz_module()
    import random

    pool = [("a.yaml", b"a: 1\nb: [2, 3]\n")]
    first = [fuzz.mutate(random.Random(7), pool[0][1], pool) for _ in range(3)]
    again = [fuzz.mutate(random.Random(7), pool[0][1], pool) for _ in range(3)]
    assert first == again


def test_fuzz_gateway_configs_fixed_seed(tmp_path):
    # Stacks (issue 12): mutated LiteLLM, Kong, Envoy AI Gateway, InferencePool, llama-swap and router files.
    fuzz = _fuzz_module()
    corpus = SHARED / "corpus" / "gateways"
    if not corpus.is_dir():
        import pytest
        pytest.skip("../shared/corpus/gateways is not beside the repo")
    summary = fuzz.run(200, seed=7, corpus=corpus, crashes=tmp_path / "crashes", log=lambda line: None)
    assert summary.crashes == [], "\n".join(summary.lines())
    assert any(rule.startswith("CTX6") for rule in summary.findings)
