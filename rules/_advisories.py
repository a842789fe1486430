"""Evaluate the declarative triggers of lint/data/advisories.json against a deployment.

A trigger is {"all": [...]}, {"any": [...]}, {"fact": F, "equals": V},
{"fact": F, "above": G, "offset": N} (F > G + N), {"fact": F, "at_least": G,
"offset": N} (F >= G + N) or {"fact": F, "at_most": G, "offset": N} (F <= G + N). A fact the deployment does not state is unknown, and
an unknown comparison never triggers (CTX101/CTX201 already ask for the pool). A pool enters as
what one request can hold of it (Pool.request: vLLM keeps its null block back), and a derived pool
at the top of its band: an advisory names a failure, so it needs the promise above even the most
the estimate allows (CTX210 covers the promises inside the band).
"""
from __future__ import annotations

from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Tuple, Union

from ctxlint.advisories import Advisory, load_advisories
from ctxlint.model import PREFILL, Deployment, fmt
from ctxlint.rules._common import max_prompt, smallest_pool
from ctxlint.rules._engine import engine_id

Words = Union[str, Callable[[], str]]
_FACT_NAMES = {"reachable_prompt": "the longest prompt that reaches the engine",
               "prefill_pool": "the smallest prefill KV pool", "smallest_pool": "the smallest KV pool"}


def facts(dep: Deployment) -> Dict[str, Tuple[Any, Words]]:
    """Each fact's value and how it was found, for the finding's arithmetic: the words are a string or a
    function that writes them (`words`), since they are read only where a comparison holds, and writing
    the pools' (their estimates' explanations) was most of what the facts of a deployment cost."""
    found: Dict[str, Tuple[Any, Words]] = {"disaggregated": (dep.disaggregated, "")}
    prompt = max_prompt(dep)
    contexts = [r.context_length.value for r in dep.roles if r.context_length is not None]
    largest = max(contexts) if contexts else None
    if prompt is not None and contexts and largest < prompt[0]:
        found["reachable_prompt"] = (largest, lambda: f"the largest engine context length {fmt(largest)}")
    elif prompt is not None:
        found["reachable_prompt"] = (prompt[0], prompt[1])
    elif contexts:
        found["reachable_prompt"] = (largest, lambda: f"the largest engine context length {fmt(largest)}")
    prefill = smallest_pool(dep.roles_of(PREFILL))
    if prefill is not None:
        found["prefill_pool"] = (prefill.pool.request_ceiling,
                                 lambda: f"the {prefill.label} pool {_at_most(prefill.pool)}")
    smallest = smallest_pool(dep.roles)
    if smallest is not None:
        found["smallest_pool"] = (smallest.pool.request_ceiling,
                                  lambda: f"the {smallest.label} pool {_at_most(smallest.pool)}")
        # the pool as the engine logs it, at the least the estimate allows: a context above it is refused at
        # startup (vLLM's check compares the whole pool), so no request of it is ever admitted
        if smallest.arg("num_gpu_blocks_override") is not None:
            # vLLM's startup check compares the profiled memory, not the override (before vllm#41069): a context
            # above an overridden pool starts and hangs (vllm#35541)
            found["smallest_logged_pool"] = (float("inf"), "the memory vLLM profiled (not the overridden pool)")
        elif getattr(smallest.capacity, "startup_longest", None) is not None and smallest.pool.origin == "derived":
            # DeepSeek-V4 on vLLM: the check counts the window and state groups a request of that length holds
            found["smallest_logged_pool"] = (smallest.capacity.startup_longest,
                                             "the longest context vLLM's startup check accepts, its window and "
                                             "compressor-state blocks counted, at the band's low end")
        else:
            found["smallest_logged_pool"] = (smallest.pool.floor, "the whole pool vLLM's startup check counts")
    if contexts:
        found["engine_context"] = (largest, lambda: f"the largest engine context length {fmt(largest)}")
    return found


def words(found: Words) -> str:
    """A fact's words (facts): written now if they are a function."""
    return found if isinstance(found, str) else found()


def _at_most(pool) -> str:
    if pool.holds():  # what one request can hold is the figure compared: say it and why
        return pool.describe() + pool.holds()
    return f"of at most {fmt(pool.ceiling)} tokens ({pool.describe()})" if pool.banded else pool.describe()


def evaluate(condition: Mapping[str, Any], known: Dict[str, Tuple[Any, Words]]) -> Tuple[Optional[bool], List[str]]:
    """(True/False/None for unknown, the arithmetic of the comparisons that held)."""
    if "all" in condition or "any" in condition:
        results = [evaluate(c, known) for c in condition.get("all", condition.get("any"))]
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
    if right[0] == float("inf") or not holds:  # no bound to show (an overridden pool: vLLM checks the memory it
        return holds, []  # profiled); the words of a comparison that does not hold are never read (`all`, `any`)
    return holds, [f"{fmt(left[0])} {sign} {fmt(right[0])}{shift}: {words(left[1])} {verb} {words(right[1])}"]


def triggered(dep: Deployment) -> Iterator[Tuple[Advisory, List[str]]]:
    """Advisories for this deployment's engine whose configuration trigger holds."""
    engine = engine_id(dep)
    if engine is None:
        return
    known = None  # the facts, once an advisory of this engine asks
    for advisory in load_advisories():
        if advisory.engine != engine:
            continue
        if known is None:
            known = facts(dep)
        outcome, why = evaluate(advisory.trigger, known)
        if outcome:
            yield advisory, why


def references(advisory: Advisory) -> str:
    return ", ".join(advisory.references)
