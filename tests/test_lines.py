"""One definition of a line (ctxlint.lines): "\n", "\r\n" and a lone "\r" end one; NEL, LINE
SEPARATOR and PARAGRAPH SEPARATOR do not. Positions, suppression comments, snippets, fixes and
baselines all count that way, whatever line ends a file uses."""
from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import REPO, SHARED
from ctxlint.adapters.scalar_spans import ScalarSpans
from ctxlint.baseline import _slice
from ctxlint.engine import Settings, lint_paths, lint_text
from ctxlint.fixes import FileFix, apply_to_text
from ctxlint.lines import line_bounds, line_starts, split_lines
from ctxlint.findings import Finding, Fix
from ctxlint.loader import parse_text
from ctxlint.file_reader import parse_bytes
from ctxlint.reporters.context import read_sources
from ctxlint.reporters.full import _snippet
from ctxlint.templates import looks_like_go_template
from test_fix import WORKLOADS

BREAKS = ("\n", "\r\n", "\r")
CORPUS = SHARED / "corpus" / "real"


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
    diff = FileFix("deploy.yaml", text, fixed, applied).diff()  # hunks numbered as editors number lines
    assert "@@ -8,7 +8,7 @@" in diff and '-metadata: {name: sgl, annotations: {note: "a\u2028b"}}' not in diff


def _findings_by_line_ends(trees, tmp_path):
    """{line end: every finding of the trees copied with that line end}, each by its path inside its tree."""
    out = {}
    for name, brk in (("lf", "\n"), ("cr", "\r"), ("crlf", "\r\n")):
        for tree in trees:
            for path in sorted(tree.rglob("*")):
                if path.suffix in (".yaml", ".yml", ".json"):
                    copy = tmp_path / name / tree.name / path.relative_to(tree)
                    copy.parent.mkdir(parents=True, exist_ok=True)
                    text = path.read_bytes().decode("utf-8").replace("\r\n", "\n")
                    copy.write_bytes(text.replace("\n", brk).encode("utf-8"))
        root = tmp_path / name
        report = lint_paths([str(root)])
        out[name] = [(os.path.relpath(f.file, root), f.rule, f.line, f.column, f.end_line, f.end_column,
                      f.message.replace(str(root), "")) for f in report.findings]
    return out


def test_every_sample_and_real_config_reads_the_same_with_any_line_ends(tmp_path):
    # positions inside block scalars, suppressions, Helm template detection, pairing: all by line
    trees = [REPO / "samples"] + ([CORPUS] if CORPUS.is_dir() else [])
    found = _findings_by_line_ends(trees, tmp_path)
    assert len(found["lf"]) > (150 if CORPUS.is_dir() else 30)
    assert found["cr"] == found["lf"] and found["crlf"] == found["lf"]


@pytest.mark.parametrize("brk", BREAKS)
def test_tokens_in_a_block_scalar_and_template_actions_keep_their_place(brk):
    text = brk.join(["args:", "  - |", "    vllm serve m", "    --max-model-len 8k", ""])
    loaded = parse_text(text, "f.yaml")
    block = loaded.documents[0].root.get("args").value[0]
    spans = ScalarSpans("f.yaml", text)
    at = block.value.index("8k")
    source = spans.source(block, at, at + 2)
    assert (source.line, source.col, source.end_line, source.end_col) == (4, 21, 4, 23)
    template = brk.join(["# {{ .Values.note }}", "a: {{ .Values.x }}", ""])
    assert looks_like_go_template(template) == (2, 4)


# -- positions libyaml gives before or beside the nodes: renumbered the same way --------------------------

SGLANG = ('apiVersion: ctxlint/v1\nkind: ModelDeployment\nmetadata: {name: "a\u2028b"}\nspec:\n'
          '  model: {id: meta-llama/Llama-3.1-8B-Instruct}\n  engine: {name: sglang, version: "0.5.17"}\n'
          '  serving:\n    roles:\n      - role: unified\n        engine_args:\n          context_length: 128K\n')


@pytest.mark.parametrize("after", ["---\n[\n", "---\n" + "[" * 3000 + "\n"], ids=["parse-error", "too-deep"])
def test_documents_before_a_bad_one_are_renumbered_too(after):
    text = SGLANG + after
    report = lint_text(text, "m.yaml")
    (refused,) = [f for f in report.findings if f.rule == "CTX301"]
    assert (refused.line, refused.column) == (11, 27) and split_lines(text)[10][26:30] == "128K"
    fixed, applied = apply_to_text(text, [refused])
    assert applied == 1 and "context_length: 128Ki" in fixed


def test_a_duplicate_key_below_a_line_separator_is_on_its_own_line_and_can_be_silenced():
    text = 'a: "x\u2028y"\nb: 1\nb: 2\n'
    (duplicate,) = lint_text(text, "d.yaml").findings
    assert (duplicate.rule, duplicate.line, duplicate.column) == ("CTX003", 3, 1) and "first at line 2" in duplicate.message
    silenced = lint_text(text.replace("b: 2", "b: 2  # ctxlint: ignore[CTX003] -- dup"), "d.yaml")
    assert silenced.findings == [] and [f.rule for f, _ in silenced.suppressed] == ["CTX003"]


@pytest.mark.parametrize("brk", BREAKS)
def test_json_and_encoding_errors_count_lines_as_editors_do(brk):
    (bad_json,) = parse_text(brk.join(["{", '"a": 1,', '"b": [1, 2,],', '"c": 3', "}", ""]), "f.json").diagnostics
    assert (bad_json.source.line, bad_json.source.col) == (3, 12)
    bad_byte = parse_bytes(brk.join(["a: 1", "b: é", 'c: "\udcff"', ""]).encode("utf-8", "surrogateescape"), "f.yaml")
    (diagnostic,) = bad_byte.diagnostics
    assert (diagnostic.source.line, diagnostic.source.col) == (3, 5) and "line 3, column 5" in diagnostic.message


def test_a_byte_order_mark_is_not_a_column(tmp_path):
    path = tmp_path / "bom.yaml"
    path.write_bytes(b"\xef\xbb\xbf{a: 1, a: 2}\n")
    (duplicate,) = lint_paths([str(path)]).findings
    assert (duplicate.line, duplicate.column) == (1, 8)
    source = read_sources([str(path)])[str(path)]
    assert _snippet(duplicate, source, color=False)[1:] == [" 1 | {a: 1, a: 2}", "   |        ^"]
    edit = Finding(str(path), 1, 2, "CTX301", "engine-rejects-value", "error", "m", end_line=1, end_column=3,
                   fix=Fix("a", "b"))
    assert apply_to_text("\ufeff{a: 1, a: 2}\n", [edit]) == ("\ufeff{b: 1, a: 2}\n", 1)
