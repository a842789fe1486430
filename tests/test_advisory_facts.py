"""rules._advisories words a fact only where a comparison that holds reads it, and gathers a deployment's
facts only when an advisory of its engine asks: every advisory, its verdict and its arithmetic must be what
the eager code it replaced (kept below) gives, on every deployment of the samples and the corpus, and on
the same deployments with their pools moved so that more and other comparisons hold."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Tuple

import pytest
from conftest import SHARED

from ctxlint.advisories import load_advisories
from ctxlint.engine import Settings, lint_paths
from ctxlint.model import PREFILL, fmt
from ctxlint.records import replace
from ctxlint.rules import _advisories
from ctxlint.rules._common import max_prompt, smallest_pool
from ctxlint.rules._engine import engine_id

ROOT = Path(__file__).resolve().parents[1]


def _facts(dep) -> Dict[str, Tuple[Any, str]]:
    """The replaced facts(): every fact worded at once."""
    found: Dict[str, Tuple[Any, str]] = {"disaggregated": (dep.disaggregated, "")}
    prompt = max_prompt(dep)
    contexts = [r.context_length.value for r in dep.roles if r.context_length is not None]
    if prompt is not None and contexts and max(contexts) < prompt[0]:
        found["reachable_prompt"] = (max(contexts), f"the largest engine context length {fmt(max(contexts))}")
    elif prompt is not None:
        found["reachable_prompt"] = (prompt[0], prompt[1])
    elif contexts:
        found["reachable_prompt"] = (max(contexts), f"the largest engine context length {fmt(max(contexts))}")
    prefill = smallest_pool(dep.roles_of(PREFILL))
    if prefill is not None:
        found["prefill_pool"] = (prefill.pool.request_ceiling,
                                 f"the {prefill.label} pool {_advisories._at_most(prefill.pool)}")
    smallest = smallest_pool(dep.roles)
    if smallest is not None:
        found["smallest_pool"] = (smallest.pool.request_ceiling,
                                  f"the {smallest.label} pool {_advisories._at_most(smallest.pool)}")
        if smallest.arg("num_gpu_blocks_override") is not None:
            found["smallest_logged_pool"] = (float("inf"), "the memory vLLM profiled (not the overridden pool)")
        else:
            found["smallest_logged_pool"] = (smallest.pool.floor, "the whole pool vLLM's startup check counts")
    if contexts:
        found["engine_context"] = (max(contexts), f"the largest engine context length {fmt(max(contexts))}")
    return found


def _evaluate(condition: Mapping[str, Any], known) -> Tuple[Optional[bool], List[str]]:
    """The replaced evaluate(): the arithmetic worded for every comparison."""
    if "all" in condition or "any" in condition:
        results = [_evaluate(c, known) for c in condition.get("all", condition.get("any"))]
        values = [r[0] for r in results]
        why = [w for r in results if r[0] for w in r[1]]
        if "all" in condition:
            outcome = False if False in values else (None if None in values else True)
        else:
            outcome = True if True in values else (None if None in values else False)
        return outcome, why
    left = known.get(condition["fact"])
    if "equals" in condition:
        return (None, []) if left is None else (left[0] == condition["equals"], [])
    op = next(o for o in ("above", "at_least", "at_most") if o in condition)
    right = known.get(condition[op])
    if left is None or right is None:
        return None, []
    offset = condition.get("offset", 0)
    bound = right[0] + offset
    holds = left[0] > bound if op == "above" else left[0] >= bound if op == "at_least" else left[0] <= bound
    shift = f" {'+' if offset > 0 else '-'} {abs(offset)}" if offset else ""
    sign = {"above": ">", "at_least": ">=", "at_most": "<="}[op]
    verb = "is within" if op == "at_most" else "reaches"
    if right[0] == float("inf"):
        return holds, []
    return holds, [f"{fmt(left[0])} {sign} {fmt(right[0])}{shift}: {left[1]} {verb} {right[1]}"]


def _triggered(dep) -> List[Tuple[str, List[str]]]:
    engine = engine_id(dep)
    if engine is None:
        return []
    known = _facts(dep)
    out = []
    for advisory in load_advisories():
        if advisory.engine == engine:
            outcome, why = _evaluate(advisory.trigger, known)
            if outcome:
                out.append((advisory.id, why))
    return out


def _moved(dep, scale: float):
    """The deployment with every pool scaled: other advisories' comparisons hold."""
    roles = tuple(r if r.pool is None else replace(r, pool=replace(
        r.pool, tokens=int(r.pool.tokens * scale), held=None if r.pool.held is None else int(r.pool.held * scale)))
        for r in dep.roles)
    return replace(dep, roles=roles)


@pytest.fixture(scope="module")
def deployments():
    paths = [str(ROOT / "samples")] + ([str(SHARED / "corpus")] if (SHARED / "corpus").is_dir() else [])
    return lint_paths(paths, Settings(keep_deployments=True)).deployments


def test_advisories_and_their_arithmetic_as_the_eager_words(deployments) -> None:
    fired = 0
    for dep in deployments:
        for variant in (dep, _moved(dep, 0.25), _moved(dep, 4.0)):
            expected = _triggered(variant)
            assert [(a.id, why) for a, why in _advisories.triggered(variant)] == expected
            fired += len(expected)
    # the comparisons with words were reached: 20 triggers on the samples alone, many more with the corpus beside
    # the repo (a clone without ../shared, as CI may run, has only the samples)
    assert fired >= 20


def test_every_comparison_as_the_eager_words(deployments) -> None:
    """Comparison by comparison, not only whole triggers: a comparison that holds has the same words."""
    conditions = []

    def walk(condition):
        conditions.append(condition)
        for inner in condition.get("all", condition.get("any", ())):
            walk(inner)

    for advisory in load_advisories():
        walk(advisory.trigger)
    for dep in deployments:
        for variant in (dep, _moved(dep, 0.25)):
            eager, lazy = _facts(variant), _advisories.facts(variant)
            assert {k: v[0] for k, v in lazy.items()} == {k: v[0] for k, v in eager.items()}
            assert {k: _advisories.words(v[1]) for k, v in lazy.items()} == {k: v[1] for k, v in eager.items()}
            for condition in conditions:
                outcome, why = _evaluate(condition, eager)
                if "all" not in condition and "any" not in condition and not outcome:
                    why = []  # a comparison that does not hold: its words were never read (`all`/`any` drop them)
                assert _advisories.evaluate(condition, lazy) == (outcome, why)
