"""`ctxlint capacity` output: the arithmetic step by step, then what to change."""
from __future__ import annotations

import json
from typing import Any, TextIO

from tabulate import tabulate


def _show(value: Any) -> str:
    if isinstance(value, float) and (value.is_integer() or abs(value) >= 1000):
        value = int(round(value))
    if isinstance(value, int) and abs(value) >= 2**30:
        return f"{value:,} B ({value / 2**30:.2f} GiB)"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def write_text(result, stream: TextIO) -> None:
    stream.write(f"model        {result.model}\nengine       {result.engine}\n"
                 f"accelerator  {result.accelerator or 'not given'}\n\n")
    rows = [(label, formula, _show(value)) for label, formula, value in result.steps]
    if rows:
        stream.write(tabulate(rows, headers=("step", "arithmetic", "value"), tablefmt="simple") + "\n\n")
    if result.pool_tokens is not None:
        stream.write(f"KV pool per replica: {result.pool_tokens:,} tokens"
                     f" ({'estimated' if result.budget_is_estimate else 'from the given KV budget'})\n")
    if result.context_length:
        verdict = {True: "fits", False: "does NOT fit", None: "unknown"}[result.fits]
        stream.write(f"context length {result.context_length:,}: {verdict}")
        if result.max_concurrency_at_context is not None:
            stream.write(f"; max concurrency at that length {result.max_concurrency_at_context:.2f}x")
        stream.write("\n")
    for title, items in (("assumptions", result.assumptions), ("problems", result.errors),
                         ("to make it fit", result.suggestions)):
        if items:
            stream.write(f"\n{title}:\n" + "".join(f"  - {item}\n" for item in items))


def write_json(result, stream: TextIO) -> None:
    json.dump(result.to_dict(), stream, indent=2, default=str)
    stream.write("\n")
