"""physics.pool._longest where window layers share the request's blocks: halving, not stepping a block at a time.

The step loops it replaced are the oracle (same answers wherever they finish); with a float budget past float
precision (1e23 tokens) the step-down loop walked millions of blocks (a hypothesis example of
test_capacity.test_never_raises hung there).
"""
from __future__ import annotations

import random

from ctxlint.physics.pool import _longest, window_cost


def _stepped(avail, block, bpt, bounded):
    """The loops _longest ran before, for a span longer than the answer."""
    span = bounded[1]
    longest = (avail - window_cost(bounded, block, bpt, span)) // block * block
    if longest >= span:
        return longest
    ratio = bounded[0] / bpt
    length = max(0, int((avail - ratio * bounded[2] * block) / (1 + ratio)) // block * block)
    while length > 0 and length + window_cost(bounded, block, bpt, length) > avail:
        length -= block
    while length + block < span and length + block + window_cost(bounded, block, bpt, length + block) <= avail:
        length += block
    return length


def test_the_same_answers_as_the_step_loops():
    rng = random.Random(27)
    for _ in range(3000):
        block = rng.choice([1, 2, 16, 64, 256])
        bpt = rng.choice([1.0, 1024.0, 98304.0, 131072.0])
        bounded = (bpt * rng.choice([0.01, 0.1, 0.5, 1.0, 3.0, 20.0]), rng.randint(0, 20000), rng.randint(0, 3))
        avail = rng.randint(-10, 60000)
        assert _longest(avail, block, bpt, bounded) == _stepped(avail, block, bpt, bounded), (avail, block, bounded)


def test_a_float_budget_past_float_precision_asks_few_lengths(monkeypatch):
    # avail a float of 1e23 tokens (a hypothesis example: a budget in bytes over a tiny KV a token): float steps
    # of ~1.6e7 there, so the step-down loop walked millions of two-token blocks (it hung a test's example)
    from ctxlint.physics import pool

    asked = []
    monkeypatch.setattr(pool, "window_cost", lambda *a: asked.append(a) or window_cost(*a))
    bounded = (4.520478355134792, 317982345411954586157056, 5)
    got = pool._longest(1.0826719647298128e+23, 2, 19070.653357946772, bounded)
    assert len(asked) < 200
    assert got % 2 == 0 and got + window_cost(bounded, 2, 19070.653357946772, got) <= 1.0826719647298128e+23
