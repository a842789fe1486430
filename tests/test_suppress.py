"""Suppressions: the comment scan, directive forms, required reasons, invalid and unused ones."""
from __future__ import annotations

import pytest

from conftest import REPO
from ctxlint.engine import Settings, lint_text
from ctxlint.loader import parse_text
from ctxlint.suppress import FILE, INVALID, LINE, UNUSED, apply, comments, parse_suppressions

BAD = (REPO / "samples/rules/CTX101-window-exceeds-kv-pool/bad.yaml").read_text()
# The CTX101 finding sits on line 13, at the kv_pool_tokens value.
BASE = BAD.replace("   # [window-exceeds-kv-pool] one 262,144-token request cannot be held", "")
POOL = "        kv_pool_tokens: 76640"


def check(text: str, name: str = "m.yaml", **options):
    """What the engine does, in two steps: lint with suppressions off, then apply the file's."""
    report = lint_text(text, name, Settings(disallow_suppressions=True))
    return apply(report.findings, parse_suppressions(parse_text(text, name)), **options)


def rules(findings):
    return [f.rule for f in findings]


# --- the comment scan -----------------------------------------------------------------------------

def test_hash_inside_strings_and_block_scalars_is_not_a_comment():
    text = ('a: "x # ctxlint: ignore[CTX101] -- no"  # real one\n'
            "b: 'it''s # not'\n"
            "c: plain#text # c\n"
            "d: |  # header comment\n"
            "  # ctxlint: ignore[CTX101] -- inside a block scalar\n"
            "  more\n"
            "e: >\n"
            "  folded # text\n"
            "# own line\n")
    found = [(c.line, c.col, c.text, c.own_line) for c in comments(text)]
    assert found == [(1, 41, "# real one", False), (3, 15, "# c", False), (4, 7, "# header comment", False),
                     (9, 1, "# own line", True)]


def test_line_scan_fallback_for_text_the_scanner_rejects():
    text = 'a: "x # no"  # yes\nb: [unclosed # c\nc: \'q # no\' # z\n\t- tab # t\n'
    found = [(c.line, c.text) for c in comments(text)]
    assert found == [(1, "# yes"), (2, "# c"), (3, "# z"), (4, "# t")]


def test_json_has_no_comments():
    assert comments('{"a": "# ctxlint: ignore[CTX101] -- x"}', is_json=True) == []


def test_directive_in_a_string_does_not_suppress():
    text = BASE.replace("name: chat-long", 'name: "chat # ctxlint: ignore[CTX101] -- x"')
    kept, suppressed, problems = check(text)
    assert rules(kept) == ["CTX101"] and not suppressed and not problems


# --- forms ----------------------------------------------------------------------------------------

def test_same_line_suppression_with_reason():
    kept, suppressed, problems = check(BASE.replace(POOL, POOL + "  # ctxlint: ignore[CTX101] -- capped upstream"))
    assert kept == [] and problems == []
    finding, sup = suppressed[0]
    assert finding.rule == "CTX101" and sup.reason == "capped upstream" and sup.scope == LINE
    assert (sup.source.line, sup.source.col) == (13, 32)


def test_line_above_by_rule_name_and_stacked_directives():
    above = ("        # ctxlint: ignore[window-exceeds-kv-pool] -- capped upstream\n"
             "        # a plain comment between\n\n")
    kept, suppressed, problems = check(BASE.replace(POOL, above + POOL))
    assert kept == [] and problems == [] and rules(f for f, _ in suppressed) == ["CTX101"]


def test_trailing_directive_does_not_cover_the_next_line():
    text = BASE.replace("        context_length: 262144", "        context_length: 262144  # ctxlint: ignore[CTX101] -- x")
    kept, suppressed, problems = check(text)
    assert rules(kept) == ["CTX101"]
    assert [(p.kind, p.source.line) for p in problems] == [(UNUSED, 12)]


def test_several_codes_and_file_level():
    text = BASE + "# ctxlint: file-ignore[CTX101, CTX108] -- legacy deployment, tracked in OPS-12\n"
    kept, suppressed, problems = check(text)
    assert kept == [] and suppressed[0][1].scope == FILE
    assert [p.kind for p in problems] == [UNUSED]  # CTX108 reports nothing in this file
    assert "CTX108 (role-settings-disagree) reports nothing in this file" in problems[0].message


def test_narrowest_suppression_is_the_one_used():
    text = BASE.replace(POOL, POOL + "  # ctxlint: ignore[CTX101] -- here") + "# ctxlint: file-ignore[CTX101] -- all\n"
    kept, suppressed, problems = check(text)
    assert suppressed[0][1].scope == LINE
    assert [(p.kind, p.source.line) for p in problems] == [(UNUSED, 14)]


def test_annotation_covers_its_document_only():
    annotated = BASE.replace("  name: chat-long", "  name: chat-long\n  annotations:\n"
                                                  "    ctxlint.io/ignore.CTX101: \"gateway caps prompts\"")
    text = annotated + "---\n" + BASE.replace("chat-long", "chat-two")
    kept, suppressed, problems = check(text)
    assert [(f.rule, f.deployment) for f in kept] == [("CTX101", "chat-two")]
    assert suppressed[0][1].form == "annotation" and suppressed[0][1].reason == "gateway caps prompts"
    assert problems == []


def test_annotation_in_json():
    text = ('{"apiVersion": "ctxlint/v1", "kind": "ModelDeployment", "metadata": {"name": "j", "annotations": '
            '{"ctxlint.io/ignore.window-exceeds-kv-pool": "capped"}}, "spec": {"advertised": {"context_window": '
            '262144}, "serving": {"roles": [{"role": "unified", "context_length": 262144, "kv_pool_tokens": 1000}]}}}')
    kept, suppressed, problems = check(text, "m.json")
    assert kept == [] and len(suppressed) == 1 and problems == []


# --- reasons, malformed, unused, switches ---------------------------------------------------------

def test_missing_reason_is_reported_and_does_not_suppress():
    kept, suppressed, problems = check(BASE.replace(POOL, POOL + "  # ctxlint: ignore[CTX101]"))
    assert rules(kept) == ["CTX101"] and suppressed == []
    assert [p.kind for p in problems] == [INVALID]
    assert problems[0].message.startswith("suppression of CTX101 has no reason: write `# ctxlint: ignore[CTX101] --")
    kept, suppressed, problems = check(BASE.replace(POOL, POOL + "  # ctxlint: ignore[CTX101] --  "))
    assert rules(kept) == ["CTX101"] and [p.kind for p in problems] == [INVALID]


def test_reason_optional_when_not_required():
    kept, suppressed, problems = check(BASE.replace(POOL, POOL + "  # ctxlint: ignore[CTX101]"), require_reason=False)
    assert kept == [] and problems == [] and suppressed[0][1].reason is None


def test_empty_annotation_value_is_a_missing_reason():
    text = BASE.replace("  name: chat-long", "  name: chat-long\n  annotations: {ctxlint.io/ignore.CTX101: ''}")
    kept, _, problems = check(text)
    assert rules(kept) == ["CTX101"] and [(p.kind, p.source.line) for p in problems] == [(INVALID, 5)]


@pytest.mark.parametrize("directive, expected", [
    ("# ctxlint: ignor[CTX101] -- x", "malformed suppression '# ctxlint: ignor[CTX101] -- x' (did you mean 'ignore'?)"),
    ("# ctxlint: ignore CTX101 -- x", "malformed suppression"),
    ("# ctxlint: ignore[CTX101] because", "malformed suppression"),
    ("# ctxlint ignore[CTX101] -- x", "malformed suppression"),
    ("# ctxlint: ignore[] -- x", "suppression names no rule"),
    ("# ctxlint: ignore[CTX999] -- x", "unknown rule 'CTX999' in suppression"),
    ("# ctxlint: ignore[CTX1] -- x", "unknown rule 'CTX1' in suppression"),
])
def test_malformed_directives_are_reported(directive, expected):
    kept, suppressed, problems = check(BASE.replace(POOL, POOL + "  " + directive))
    assert rules(kept) == ["CTX101"] and suppressed == []
    assert problems[0].kind == INVALID and problems[0].message.startswith(expected), problems[0].message
    assert problems[0].source.line == 13


def test_unknown_code_next_to_a_known_one_still_suppresses_the_known_one():
    kept, suppressed, problems = check(BASE.replace(POOL, POOL + "  # ctxlint: ignore[CTX101,CTX999] -- x"))
    assert kept == [] and [p.kind for p in problems] == [INVALID]


def test_plain_comments_mentioning_ctxlint_are_not_directives():
    kept, _, problems = check(BASE.replace(POOL, POOL + "  # checked by ctxlint in CI"))
    assert rules(kept) == ["CTX101"] and problems == []


def test_unused_suppression_and_active_rules():
    good = (REPO / "samples/rules/CTX101-window-exceeds-kv-pool/good.yaml").read_text()
    text = good.replace("apiVersion", "# ctxlint: file-ignore[CTX105] -- x\napiVersion", 1)
    _, _, problems = check(text)
    assert [(p.kind, p.source.line, p.source.col) for p in problems] == [(UNUSED, 1, 1)]
    _, _, problems = check(text, active_rules={"CTX101"})  # CTX105 did not run: unknown, not unused
    assert problems == []


def test_disallowed_suppressions_keep_every_finding():
    kept, suppressed, problems = check(BASE.replace(POOL, POOL + "  # ctxlint: ignore[CTX101] -- x"), disabled=True)
    assert rules(kept) == ["CTX101"] and suppressed == [] and problems == []


def test_suppressions_only_apply_to_their_own_file():
    text = BASE.replace(POOL, POOL + "  # ctxlint: ignore[CTX101] -- x")
    other = lint_text(BASE, "other.yaml").findings
    kept, _, problems = apply(other, parse_suppressions(parse_text(text, "m.yaml")))
    assert rules(kept) == ["CTX101"] and [p.kind for p in problems] == [UNUSED]
