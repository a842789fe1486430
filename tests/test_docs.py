"""docs/ tells the truth: the rules reference is the registry's, and explain prints its pages."""
from __future__ import annotations

import pytest

from conftest import REPO
from ctxlint.registry import all_rules
from ctxlint.reporters.catalog import REGENERATE, page
from helpers import run

RULES_DOC = REPO / "docs" / "rules.md"


def test_rules_reference_is_current(update_golden):
    generated = run(["rules", "--format", "docs"]).out
    if update_golden:
        RULES_DOC.write_text(generated, encoding="utf-8")
    assert generated == RULES_DOC.read_text(encoding="utf-8"), f"docs/rules.md is stale: run `{REGENERATE}`"


@pytest.mark.parametrize("spec", all_rules(), ids=lambda s: s.id)
def test_explain_prints_the_reference_page(spec):
    explained = run(["explain", spec.id]).out
    assert explained == page(spec)
    # The same text, under a "## " title, is in the reference.
    assert f"## {explained}" in RULES_DOC.read_text(encoding="utf-8")


@pytest.mark.parametrize("spec", all_rules(), ids=lambda s: s.id)
def test_page_has_every_part(spec):
    text = page(spec)
    for part in ("- Severity: ", "- Scope: ", "- Tags: ", "### Why\n", "### Example (bad)\n```",
                 "### Example (good)\n", "### Options\n"):
        assert part in text.replace("\n\n", "\n"), (spec.id, part)
    for option, schema in spec.options_schema.get("properties", {}).items():
        row = next(line for line in text.splitlines() if line.startswith(f"| `{option}`"))
        assert row.rstrip(" |").split("|")[-1].strip(), f"{spec.id} option {option} has no description"


CI_DOC = REPO / "README.md"  # its "Use in CI" and "Auditing a fleet" sections
AUDIT_COMMAND = "$ ctxlint audit samples/incident samples/incident-fixed samples/derived-pool\n"


def test_ci_doc_shows_the_real_audit_output(in_repo, update_golden):
    text = CI_DOC.read_text(encoding="utf-8")
    start = text.index(AUDIT_COMMAND) + len(AUDIT_COMMAND)
    end = text.index("```", start)
    actual = run(["audit", *AUDIT_COMMAND.split()[3:]]).out
    if update_golden:
        CI_DOC.write_text(text[:start] + actual + text[end:], encoding="utf-8")
        text = CI_DOC.read_text(encoding="utf-8")
        end = start + len(actual)
    assert text[start:end] == actual, "README audit output is stale: python -m pytest tests/test_docs.py " \
                                      "--update-golden"


def test_ci_doc_commands_use_real_options():
    text = CI_DOC.read_text(encoding="utf-8")
    assert "ctxlint check deploy/ --format sarif --output ctxlint.sarif --format github" in text
    for fmt in ("sarif", "github", "gitlab", "junit", "text"):
        assert f"--format {fmt}" in text
        assert fmt in run(["check", "--help"]).out
    assert "id: ctxlint" in text and "- id: ctxlint" in (REPO / ".pre-commit-hooks.yaml").read_text()
