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


def test_readme_usage_example_matches_the_cli():
    """The `$ ctxlint check ...` console block under Usage, with `...` standing for elided text."""
    import os
    import re

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    block = readme.split("## Usage", 1)[1].split("```console\n", 1)[1].split("```", 1)[0]
    sessions = re.split(r"^\$ ", block, flags=re.M)[1:]
    assert len(sessions) == 2
    cwd = os.getcwd()
    os.chdir(REPO)
    try:
        for session in sessions:
            command, *expected = session.rstrip("\n").split("\n")
            result = run(command.split()[1:])
            lines = result.out.splitlines() + result.err.splitlines()
            assert len(lines) == len(expected), (command, lines)
            for want, got in zip(expected, lines):
                pattern = ".*".join(re.escape(part) for part in want.split("..."))
                assert re.fullmatch(pattern, got), (want, got)
    finally:
        os.chdir(cwd)
