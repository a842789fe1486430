"""Prefix searches of a flag table by bisection give what the scans they replaced gave: an abbreviating parser's
unknown spelling (EngineSpec.find) and a dropped flag's longer spellings (flag_values.removed_flags)."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from ctxlint.engines.flag_values import _kept_spellings
from ctxlint.engines.flagspec import EngineSpec, F, starting_with
from ctxlint.engines.specs import ENGINES, ROUTER_LAUNCHER, TGIS_ADAPTER, spec_for

SPECS = list({id(s): s for s in [spec_for(e, launcher, sub) for e in ENGINES
                                 for launcher in (None, "dynamo.vllm", ROUTER_LAUNCHER, TGIS_ADAPTER)
                                 for sub in (None, "disaggregated")]}.values())


def _scanned_find(spec: EngineSpec, spelling: str):
    """EngineSpec.find as it scanned every spelling: the oracle."""
    if spelling in spec.lookup:
        return spec.lookup[spelling], None
    if spec.underscore_equals_dash and spelling.startswith("--"):
        spelling = "--" + spelling[2:].replace("_", "-")
        if spelling in spec.lookup:
            return spec.lookup[spelling], None
    if spec.allow_abbrev and spelling.startswith("--") and len(spelling) > 3:
        hits = {spec.lookup[s].name: s for s in spec.lookup if s.startswith(spelling) and s not in spec.late_words}
        if len(hits) == 1:
            return spec.lookup[next(iter(hits.values()))], None
        if len(hits) > 1:
            return None, f"ambiguous option: {spelling} could match {', '.join(sorted(hits.values()))}"
    return None, None


def _scanned_kept(spec: EngineSpec, prefix: str):
    return sorted(x for g in spec.flags if all(g is not r for r in spec.removed) for x in g.spellings
                  if x.startswith(prefix))


def _prefixes(spec: EngineSpec):
    words = set()
    for s in spec.lookup:
        words.update(s[:k] for k in range(1, len(s) + 1))
        words.update((s + "x", s.replace("-", "_"), s[:-1] + "~"))
    return sorted(words)


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: f"{s.engine}-{len(s.flags)}")
def test_every_prefix_of_every_spelling_finds_what_the_scan_found(spec):
    assert len(SPECS) >= 10
    asked = 0
    for word in _prefixes(spec):
        assert starting_with(spec, word) == [s for s in spec.lookup if s.startswith(word)]
        assert spec.find(word) == _scanned_find(spec, word), word
        assert _kept_spellings(spec, word) == _scanned_kept(spec, word)
        asked += 1
    assert asked > 50


def test_an_ambiguous_prefix_names_the_same_spellings_in_order():
    spec = EngineSpec("x", (F("max_a", "--max-a", "--zz-a"), F("max_b", "--max-b"), F("other", "--max-a2")),
                      allow_abbrev=True)
    assert spec.find("--max") == (None, "ambiguous option: --max could match --max-a, --max-a2, --max-b")
    assert spec.find("--max-a") == (spec.flags[0], None) and spec.find("--zz") == (spec.flags[0], None)
    assert starting_with(spec, "--") == ["--max-a", "--zz-a", "--max-b", "--max-a2"]  # the table's order


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet="-ab_", min_size=1, max_size=6), min_size=1, max_size=12), st.text(alphabet="-ab_",
                                                                                                    max_size=5))
def test_made_up_tables_find_what_the_scan_found(spellings, word):
    spec = EngineSpec("x", tuple(F(f"f{k}", "--" + s) for k, s in enumerate(spellings)), allow_abbrev=True)
    assert spec.find("--" + word) == _scanned_find(spec, "--" + word)
    assert starting_with(spec, "--" + word) == [s for s in spec.lookup if s.startswith("--" + word)]
