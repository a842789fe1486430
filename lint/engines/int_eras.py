"""Integer flags whose reading changed between releases of the engine (FlagSpec.int_eras).

The parser reads a value with the flag's newest rule (suffixes.read_int), since the release deployed is known only
later (the image tag, adapters.workload). When an earlier rule refuses the same text, or reads it otherwise (vLLM's
`--max-model-len -1`: auto-fit from 0.14.0, the length -1 before), `era_problem` gives the refusal for the releases
before the change (Problem.until), and `at_release` drops the value at a release known to refuse it, so the
newest reading is never taken for that release's context.
"""
from __future__ import annotations

from typing import Optional

from ..records import replace
from .flagspec import FlagSpec
from .result import Invocation, Problem, Span
from .suffixes import read_int

_AUTO_RULES = ("vllm_auto",)  # rules that read -1 / `auto` as "fit the length to memory", not as a number


def era_problem(f: FlagSpec, name: str, text: str, at: Optional[int] = None, span: Optional[Span] = None,
                item: Optional[int] = None) -> Optional[Problem]:
    """The refusal, before the release that first reads `text` as the newest rule does, of a value the newest rule
    reads; None when every release in f.int_eras reads it alike, or when the newest rule refuses it too (that
    refusal is every release's, reported by the parser)."""
    if not f.int_eras or not isinstance(text, str):
        return None
    rule = f.int_rule or "argparse"
    newest = read_int(rule, text)
    if not newest.ok:
        return None
    auto = rule in _AUTO_RULES and newest.value == -1
    for until, old in reversed(f.int_eras):  # the latest era that reads it otherwise: every earlier one does too
        reading = read_int(old, text)
        if not reading.ok:
            # a number an earlier parser refuses as well (LMDeploy's `--quant-policy fp8` and `16` before 0.14.0,
            # whose choices have no FP8) has no spelling there: the release is what to change
            same = text.strip() == str(newest.value)
            write = "write the length, or leave the flag out for the model's own" if auto \
                else f"write {newest.value}" if not same and all(read_int(r, str(newest.value)).ok
                                                                 for _, r in f.int_eras) \
                else f"run {until} or later, or choose a value this release takes"
            return Problem(f"{name}: {reading.error} ({until} and later read {text.strip()!r}"
                           f"{' as auto-fit' if auto else '' if same else f' as {newest.value:,}'}: {write})",
                           at, span, item, f.name, until=until)
        if auto and old not in _AUTO_RULES:
            return Problem(f"{name}: -1 auto-fits the length to the KV cache only from {until} on; write "
                           "the length, or leave the flag out for the model's own", at, span, item, f.name,
                           until=until, effect="take -1 as the length itself, not auto-fit")
    return None


def at_release(inv: Invocation, release: Optional[str]) -> Invocation:
    """`inv` with the values this release of the engine refuses or reads otherwise dropped (value None, as a value
    every release refuses): their newest reading is not this release's setting. Unchanged when the release is not
    known (the newest reading stands, and the refusal names the releases)."""
    if not release or not any(p.until for p in inv.errors):
        return inv
    settings = dict(inv.settings)
    for p in inv.errors:
        s = settings.get(p.flag) if p.until and p.flag else None
        if s is not None and s.token_index == p.token_index and s.value is not None and p.refused_by(release):
            settings[p.flag] = replace(s, value=None, note=f"refused by {inv.engine} {release}")
    return replace(inv, settings=settings)
