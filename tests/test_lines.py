"""One definition of a line (ctxlint.lines): "\n", "\r\n" and a lone "\r" end one; NEL, LINE
SEPARATOR and PARAGRAPH SEPARATOR do not. Positions, suppression comments, snippets, fixes and
baselines all count that way, whatever line ends a file uses."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import REPO
from ctxlint.baseline import _slice
from ctxlint.engine import Settings, lint_text
from ctxlint.fixes import apply_to_text
from ctxlint.lines import line_bounds, line_starts, split_lines
from ctxlint.loader import parse_text
from ctxlint.reporters.full import _snippet
from test_fix import WORKLOADS

BREAKS = ("\n", "\r\n", "\r")


def _oracle(text: str):
    """Line starts by walking the text one character at a time."""
    starts, i = [0], 0
    while i < len(text):
        if text[i] == "\r" and text.startswith("\r\n", i):
            i += 1
        if text[i] in "\r\n":
            starts.append(i + 1)
        i += 1
    return starts


@given(st.lists(st.sampled_from(["a", "é", " ", "\n", "\r", "\r\n", "\x85", "\u2028", "\u2029"]), max_size=60).map("".join))
@settings(max_examples=500, deadline=None)
def test_lines_end_at_newline_crlf_and_lone_cr_only(text):
    starts = line_starts(text)
    assert starts == _oracle(text)
    lines = split_lines(text, keepends=True)
    assert "".join(lines) == text
    assert [len(x) for x in lines] == [b - a for a, b in zip(starts, starts[1:] + [len(text)])][:len(lines)]
    if not any(c in text for c in "\x85\u2028\u2029"):
        assert split_lines(text) == text.splitlines()
    for index, char in enumerate(text):
        if char not in "\r\n":
            begin, end = line_bounds(text, index)
            line = max(n for n, start in enumerate(starts) if start <= index)
            assert begin == starts[line] and text[begin:end] == split_lines(text)[line]


BAD = (REPO / "samples/rules/CTX101-window-exceeds-kv-pool/bad.yaml").read_text()
BASE = BAD.replace("   # [window-exceeds-kv-pool] one 262,144-token request cannot be held", "")
POOL = "        kv_pool_tokens: 76640"
# a separator libyaml reads as a line break, in a quoted value above the finding
ODD = BASE.replace("name: chat-long", 'name: "chat\u2028long"')


def _variants(text: str):
    for brk in BREAKS:
        yield brk, text.replace("\n", brk)


@pytest.mark.parametrize("text", [BASE, ODD], ids=["plain", "line-separator"])
def test_findings_and_suppressions_agree_whatever_the_line_ends(text):
    seen = set()
    for brk, variant in _variants(text):
        report = lint_text(variant, "m.yaml")
        seen.add(tuple((f.rule, f.line, f.column, f.end_line, f.end_column) for f in report.findings))
        assert [f.rule for f in report.findings] == ["CTX101"], repr(brk)
        assert (report.findings[0].line, report.findings[0].column) == (13, 25)
        silenced = lint_text(variant.replace(POOL, POOL + "  # ctxlint: ignore[CTX101] -- capped upstream"), "m.yaml")
        assert silenced.findings == [] and [f.rule for f, _ in silenced.suppressed] == ["CTX101"], repr(brk)
        above = lint_text(variant.replace(POOL, "        # ctxlint: ignore[CTX101] -- capped upstream" + brk + POOL),
                          "m.yaml")
        assert above.findings == [] and [f.rule for f, _ in above.suppressed] == ["CTX101"], repr(brk)
    assert len(seen) == 1


def test_nodes_after_a_line_separator_in_a_lone_cr_file_keep_their_lines():
    text = 'a: "x\x85y"\rb: [1, é]\rc:\r  - 3\r'
    root = parse_text(text, "f.yaml").documents[0].root
    assert [(n.line, n.col) for n in root.get("b").value] == [(2, 5), (2, 8)]
    assert (root.keys["c"].line, root.get("c").value[0].line, root.get("c").value[0].col) == (3, 4, 5)


@pytest.mark.parametrize("brk", BREAKS)
def test_parse_error_after_a_line_separator_is_on_the_editors_line(brk):
    text = brk.join(['a: "x\u2028y"', "b: 1", "c: [1, }", "d: 2", ""])
    (diagnostic,) = parse_text(text, "f.yaml").diagnostics
    plain = parse_text(text.replace("\u2028", " "), "f.yaml").diagnostics[0]
    assert (diagnostic.source.line, diagnostic.source.col) == (plain.source.line, plain.source.col) == (3, 8)


def test_snippet_shows_the_findings_own_line():
    finding = lint_text(ODD, "m.yaml").findings[0]
    lines = _snippet(finding, ODD, color=False)
    assert lines[1] == f" 13 | {POOL}" and lines[2].endswith(" " * 24 + "^" * 5)


def test_baseline_reads_the_value_at_the_findings_own_line():
    plain, odd = lint_text(BASE, "m.yaml").findings[0], lint_text(ODD, "m.yaml").findings[0]
    assert _slice(ODD, odd) == _slice(BASE, plain) == "76640"


def test_fix_lands_on_its_line_below_a_line_separator():
    text = WORKLOADS.replace("metadata: {name: sgl}", 'metadata: {name: sgl, annotations: {note: "a\u2028b"}}')
    fixable = [f for f in lint_text(text, "deploy.yaml", Settings()).findings if f.fix is not None]
    fixed, applied = apply_to_text(text, fixable)
    assert applied == len(fixable) >= 1 and '"128Ki"' in fixed and "\u2028" in fixed
