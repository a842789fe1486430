"""`ctxlint capacity` output: the arithmetic step by step, then what to change."""
from __future__ import annotations

import json
from typing import Any, TextIO

from tabulate import tabulate


# Rows whose values count tokens, blocks or fractions; every other large value is bytes.
_COUNTS = ("token", "request", "concurrency", "cells", "blocks", "fraction", "override")


def _show(value: Any, label: str = "") -> str:
    if isinstance(value, float) and (value.is_integer() or abs(value) >= 1000):
        value = int(round(value))
    counts = any(word in label.lower() for word in _COUNTS)
    if isinstance(value, int) and not counts and abs(value) >= 2**20:
        return f"{value:,} B ({value / 2**30:.2f} GiB)"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def _gib(x: float) -> str:
    return f"{x / 2**30:.2f}"


def _band(result) -> str:
    if not result.banded:
        return ""
    return f"; band {result.pool_low:,}-{result.pool_high:,}"


def write_text(result, stream: TextIO) -> None:
    stream.write(f"model        {result.model}\nengine       {result.engine}\n"
                 f"accelerator  {result.accelerator or 'not given'}\n\n")
    rows = [(label, formula, _show(value, label)) for label, formula, value in result.steps]
    if rows:
        stream.write(tabulate(rows, headers=("step", "arithmetic", "value"), tablefmt="simple") + "\n\n")
    if result.pool_tokens is not None:
        how = "estimated" if result.budget_is_estimate else "from the given KV budget"
        stream.write(f"KV pool per replica: {result.pool_tokens:,} tokens ({how}{_band(result)})\n")
    if result.banded and result.max_context_low is not None and result.max_context_high is not None:
        stream.write(f"longest single request: {result.max_context_at_concurrency_1:,} tokens "
                     f"(band {result.max_context_low:,}-{result.max_context_high:,})\n")
    if result.context_length:
        verdict = {True: "fits", False: "does NOT fit", None: "unknown"}[result.fits]
        if result.fits is not None and result.banded and result.max_context_low is not None:
            if result.fits and result.context_length > result.max_context_low:
                verdict += " at the estimate, not at the low end of its band (confirm with the engine's log)"
            elif not result.fits and result.max_context_high is not None \
                    and result.context_length <= result.max_context_high:
                verdict += " at the estimate; within the band (confirm with the engine's log)"
        stream.write(f"context length {result.context_length:,}: {verdict}")
        if result.max_concurrency_at_context is not None:
            stream.write(f"; max concurrency at that length {result.max_concurrency_at_context:.2f}x")
        stream.write("\n")
    if result.budget_is_estimate and result.terms:
        terms = [(t["label"], _gib(t["point"]), "exact" if t["low"] == t["high"] else f"{_gib(t['low'])}-{_gib(t['high'])}",
                  t.get("source", "")) for t in result.terms]
        stream.write("\nterms (GiB per GPU):\n" + tabulate(terms, headers=("term", "estimate", "band", "source"),
                                                          tablefmt="simple", disable_numparse=True) + "\n")
    if result.rule and result.rule not in "; ".join(result.assumptions):  # said once, among the assumptions
        stream.write(f"\nrule: {result.rule}\n")
    for title, items in (("assumptions", result.assumptions), ("problems", result.errors),
                         ("to make it fit", result.suggestions)):
        if items:
            stream.write(f"\n{title}:\n" + "".join(f"  - {item}\n" for item in items))


def write_json(result, stream: TextIO) -> None:
    json.dump(result.to_dict(), stream, indent=2, default=str)
    stream.write("\n")
