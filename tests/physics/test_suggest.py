"""The memory-fraction suggestion bisects; it must name the step a scan of every step names."""
from __future__ import annotations

import dataclasses
from pathlib import Path

from ctxlint.engine import Settings, lint_paths
from ctxlint.physics import capacity, suggest

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO.parent / "shared" / "corpus" / "real"


def _scan(inp, settings, knob, low, high):
    """The scan the bisection replaced: the first step that fits."""
    for step in range(low, high + 1):
        if suggest._fits(dataclasses.replace(inp, settings={**settings, knob: step / 100}))[0]:
            return step / 100
    return None


def _inputs(monkeypatch):
    from ctxlint import capacity as deployments  # the caller: its names are bound on first use

    deployments._physics()
    seen = []
    real = deployments.estimate
    monkeypatch.setattr(deployments, "estimate", lambda inp: (seen.append(inp), real(inp))[1])
    roots = [str(REPO / "samples")] + ([str(CORPUS)] if CORPUS.is_dir() else [])
    lint_paths(roots, Settings())
    return [inp for inp in seen if inp.engine in suggest._KNOB]


def test_bisection_finds_the_scans_step_over_real_deployments_and_windows(monkeypatch):
    inputs = _inputs(monkeypatch)
    assert len(inputs) >= 10
    checked = found = 0
    for inp in inputs[:60]:
        knob, hi = suggest._KNOB[inp.engine]
        settings = dict(inp.settings or {})
        if inp.available_kv_bytes is not None or any(settings.get(k) for k in suggest._EXPLICIT_POOL):
            continue
        base = capacity.compute(inp).max_context_at_concurrency_1 or 4096
        for scale in (0.3, 0.9, 1.0, 1.1, 1.5, 3.0):  # windows below, at and above what fits
            probe = dataclasses.replace(inp, context_length=max(1, int(base * scale)))
            expected = _scan(probe, settings, knob, 50, int(hi * 100))
            assert suggest._least_fraction(probe, settings, knob, 50, int(hi * 100)) == expected, probe
            checked += 1
            found += expected is not None
    assert checked >= 30 and 0 < found < checked  # both outcomes were exercised


def test_suggestions_from_lean_remembered_estimates_are_those_of_whole_ones(monkeypatch):
    """Suggestions read lean estimates, remembered by their exact input (suggest._LEAN): over the real deployments'
    inputs and windows below, at and above what fits, they are the suggestions whole estimates (capacity.compute)
    give, asked with the memo fresh, asked again from it, and without it."""
    from ctxlint.physics import memo

    inputs = [inp for inp in _inputs(monkeypatch) if capacity.compute(inp).context_length]
    assert len(inputs) >= 10
    probes = []
    for inp in inputs[:40]:
        base = capacity.compute(inp).max_context_at_concurrency_1 or 4096
        probes += [dataclasses.replace(inp, context_length=max(1, int(base * scale))) for scale in (0.5, 1.0, 1.2, 4.0)]
        probes.append(dataclasses.replace(inp, kv_cache_dtype="auto", tp=1, context_length=base * 2 + 1))
    fresh = memo.Memo(capacity.compute_lean, 2048)
    monkeypatch.setattr(suggest, "_LEAN", fresh)
    cached = [suggest.suggestions(p, capacity.compute(p)) for p in probes]
    again = [suggest.suggestions(p, capacity.compute(p)) for p in probes]
    monkeypatch.setattr(suggest, "_LEAN", memo.Memo(capacity.compute_lean, 0))  # computes every time
    uncached = [suggest.suggestions(p, capacity.compute(p)) for p in probes]
    monkeypatch.setattr(suggest, "_LEAN", memo.Memo(capacity.compute, 0))  # whole estimates, as before
    whole = [suggest.suggestions(p, capacity.compute(p)) for p in probes]
    assert cached == again == uncached == whole
    assert len(fresh.results) > 100 and sum("raise" in " ".join(s) for s in whole) > 5
