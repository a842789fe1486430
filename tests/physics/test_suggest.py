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
