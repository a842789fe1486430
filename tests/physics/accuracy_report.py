"""Print the per-case error table (not a test): python tests/physics/accuracy_report.py"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from tabulate import tabulate  # noqa: E402

from test_accuracy import CASES, settings_alone_error, with_budget_error  # noqa: E402


def pct(x: float | None) -> str:
    return "n/a" if x is None else f"{x:+.2%}"


def main() -> None:
    rows = [(c.name, c.engine, c.logged_tokens if c.logged_tokens else "-",
             pct(with_budget_error(c)), pct(settings_alone_error(c)), c.source) for c in CASES]
    print(tabulate(rows, headers=["case", "engine", "logged tokens", "err (logged budget)",
                                  "err (settings alone)", "source"]))


if __name__ == "__main__":
    main()
