"""Reach on ../shared/corpus/real: how many real deployments that name a model get a capacity verdict.

The README states these figures; this test keeps them from falling. A verdict is a pool compared
with what the deployment promises (fits, within the band, exceeds, or the engine cannot start);
"needs" is the memory per GPU one request needs when the file does not say which device it runs on.
"""
from __future__ import annotations

import json
import os

import pytest

from conftest import SHARED
from helpers import run

CORPUS = SHARED / "corpus" / "real"
pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus/real is not beside the repo")


def test_reach_on_the_real_corpus_does_not_fall():
    cwd = os.getcwd()
    os.chdir(CORPUS)
    try:
        totals = json.loads(run(["audit", ".", "--format", "json"]).out)["totals"]
    finally:
        os.chdir(cwd)
    named = totals["naming_a_model"]
    assert named >= 170
    verdict, need = totals["with_verdict"], totals["with_memory_need"]
    assert verdict / named >= 0.49, f"{verdict} of {named} with a verdict"
    # 0.93, not 0.94: two KAITO presets lost the verdict their files never settled (the node count KAITO runs
    # depends on a release the file does not name, or on a size KAITO reads from the Hub: CTX008 says which)
    assert (verdict + need) / named >= 0.93, f"{verdict} + {need} of {named} with a verdict or a memory need"
