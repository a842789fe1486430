"""The README tells the truth: its rule table is the registry's, its commands are CI's."""
from __future__ import annotations

from conftest import REPO
from helpers import run


def test_readme_rule_table_is_current():
    table = run(["rules", "--format", "markdown"]).out.strip()
    assert table in (REPO / "README.md").read_text(encoding="utf-8"), \
        "README rule table is stale: paste `ctxlint rules --format markdown`"


def test_ci_runs_the_readme_test_command():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    command = 'python3 -m pip install ".[test]" && python3 -m pytest'
    assert command in readme
    assert command in ci
