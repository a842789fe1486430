"""Positions inside scalars: the shortcut for values typed as decoded gives the per-character answer."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from ctxlint.adapters.scalar_alignment import _by_character, _content_start, align
from ctxlint.adapters.scalar_spans import ScalarSpans
from ctxlint.loader import parse_text
from ctxlint.nodes import SCALAR

ROOT = Path(__file__).resolve().parents[2]
ROOTS = [ROOT / "samples", ROOT / "tests", ROOT.parent / "shared" / "corpus"]


def _scalars(text: str, name: str):
    for document in parse_text(text, name).documents:
        for node in document.root.walk():
            for each in (node, *node.keys.values()):
                if each.kind == SCALAR and isinstance(each.value, str):
                    yield each


def _reference(text, begin, end, style, decoded):
    """The alignment one character at a time, as first written: the oracle for both shortcuts."""
    out, i = [], begin
    for ch in decoded:
        while True:
            if i >= end:
                return None
            raw = text[i]
            if style == '"' and raw == "\\":
                nxt = text[i + 1:i + 2]
                if nxt in ("\n", "\r"):
                    i += 2
                    while i < end and text[i] in " \t\r\n":
                        i += 1
                    continue
                out.append(i)
                i += {"x": 4, "u": 6, "U": 10}.get(nxt, 2)
                break
            if style == "'" and raw == "'" and text[i + 1:i + 2] == "'":
                if ch != "'":
                    return None
                out.append(i)
                i += 2
                break
            if raw == ch:
                out.append(i)
                i += 1
                break
            if raw in " \t\r\n":
                i += 1
                continue
            if ch in " \n" and out:
                out.append(i)
                break
            return None
    return out


def _as_list(offsets):
    """Every index an alignment gives (a list of them was what _align returned before runs and ranges)."""
    return None if offsets is None else [offsets[k] for k in range(len(offsets))]


def _slow(text, node, decoded):
    begin = _content_start(text, node)
    if begin is None:
        return None
    end = node.end_index - (1 if node.style in ("'", '"') else 0)
    expected = _reference(text, begin, end, node.style, decoded)
    assert _as_list(_by_character(text, begin, end, node.style, decoded)) == expected
    return expected


def _files():
    for root in ROOTS:
        for dirpath, _, names in os.walk(root):
            for name in sorted(names):
                if name.endswith((".yaml", ".yml", ".json")):
                    yield Path(dirpath) / name


def test_every_scalar_of_every_file_aligns_as_character_by_character():
    checked = shortcut = 0
    for path in _files():
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        if len(text) > 1_000_000:
            continue
        for node in _scalars(text, path.name):
            for decoded in (node.value, node.value[: len(node.value) // 2], node.value + "x"):
                assert _as_list(align(text, node, decoded)) == _slow(text, node, decoded), (path, node)
                checked += 1
            shortcut += text.startswith(node.value, node.start_index)
    assert checked > 10_000 and shortcut > 1_000  # the files reach both paths


QUOTED = r"""
plain: --max-model-len 4096
double: "--max-model-len \x41 \"q\" 4096"
double_plain: "--max-model-len 4096"
single: 'it''s 4096'
single_plain: '--tp 2'
folded: >
  vllm serve m
  --max-model-len 8192
literal: |
  vllm serve m \
    --max-model-len 8192
continued: "a \
  b"
empty: ""
backslashes: "\\\\"
quote_pair: ''''''
"""


@pytest.mark.parametrize("key", ["plain", "double", "double_plain", "single", "single_plain", "folded",
                                 "literal", "continued", "empty", "backslashes", "quote_pair"])
def test_quoting_styles(key):
    node = parse_text(QUOTED, "q.yaml").documents[0].root.get(key)
    assert _as_list(align(QUOTED, node, node.value)) == _slow(QUOTED, node, node.value)
    spans = ScalarSpans("q.yaml", QUOTED)
    where = node.value.find("4096") if "4096" in node.value else node.value.find("8192")
    if where >= 0:  # the number points at the digits typed in the file
        src = spans.source(node, where, where + 4)
        line_text = QUOTED.splitlines()[src.line - 1]
        assert line_text[src.col - 1:src.end_col - 1] in ("4096", "8192")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet=" ab-=\t'\"\\\\x", max_size=50), min_size=1, max_size=8),
       st.sampled_from(["|", "|-", ">", ">-"]), st.integers(0, 4),
       st.text(alphabet=" abx\n", max_size=80))
def test_block_scalars_and_odd_values_align_as_the_reference(lines, header, extra, decoded):
    body = "".join("  " + " " * (extra if k % 2 else 0) + line.rstrip() + "\n" for k, line in enumerate(lines))
    text = f"k: {header}\n{body}"
    try:
        node = parse_text(text, "b.yaml").documents[0].root.get("k")
    except (AttributeError, IndexError):
        return
    if node is None or node.kind != SCALAR or not isinstance(node.value, str):
        return
    for value in (node.value, node.value[1:], decoded):
        assert _as_list(align(text, node, value)) == _slow(text, node, value)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.text(alphabet="ab -#\t", max_size=12)), min_size=1, max_size=8),
       st.sampled_from(["|", "|-", "|+", "|2", "|1-"]), st.integers(0, 3), st.sampled_from(["\n", "\r\n"]),
       st.booleans())
def test_literal_blocks_a_line_at_a_time_align_as_the_reference(lines, header, indent, newline, blanks):
    # lines: (extra spaces, text); an empty text is an empty line, typed empty or with blanks (`blanks`)
    pad = " " * (indent + 1)
    body = "".join((pad + " " * extra + line if line.strip() else (pad if blanks else "")) + newline
                   for extra, line in lines)
    text = f"k: {header}{newline}{body}after: 1{newline}"
    try:
        node = parse_text(text, "b.yaml").documents[0].root.get("k")
    except (AttributeError, IndexError):
        return
    if node is None or node.kind != SCALAR or not isinstance(node.value, str) or node.style != "|":
        return
    for value in (node.value, node.value[:-1], node.value + "\n", " " + node.value):
        assert _as_list(align(text, node, value)) == _slow(text, node, value), (text, value)


def test_literal_blocks_typed_as_decoded_take_the_line_at_a_time_path():
    from ctxlint.adapters.scalar_alignment import _literal_lines

    text = "k: |\n  vllm serve m \\\n    --max-model-len 8192\n\n  echo done\n"
    node = parse_text(text, "b.yaml").documents[0].root.get("k")
    begin = _content_start(text, node)
    found = _literal_lines(text, begin, node.end_index, node.value)
    # a run for each line, the continuation line's two spaces matched at its first two columns
    assert (found.starts, found.raws) == ([0, 15, 17, 38, 39], [7, 22, 26, 47, 50])
    assert _as_list(found) == _slow(text, node, node.value)
    blank = text.replace("\n\n", "\n  \n")  # blanks on the empty line: typed otherwise, left to _by_character
    node = parse_text(blank, "b.yaml").documents[0].root.get("k")
    assert _literal_lines(blank, _content_start(blank, node), node.end_index, node.value) is None


def test_offsets_index_as_the_list_they_stand_for():
    from ctxlint.adapters.scalar_alignment import Offsets

    offsets = Offsets([0, 3, 4], [10, 20, 30], 6)  # runs of 3, 1 and 2 characters
    every = [10, 11, 12, 20, 30, 31]
    assert len(offsets) == 6 and [offsets[k] for k in range(6)] == every
    assert [offsets[k] for k in range(-6, 0)] == every[-6:]
    assert offsets[1:5] == every[1:5] and offsets[::-2] == every[::-2] and list(offsets) == every
    for k in (6, -7):
        with pytest.raises(IndexError):
            offsets[k]


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="ab \n", min_size=1, max_size=60), st.text(alphabet="ab \n", max_size=60),
       st.integers(0, 5), st.integers(0, 70))
def test_equal_run_is_the_common_prefix(shared, tail, lead, cut):
    from ctxlint.adapters.scalar_alignment import _equal_run

    text, decoded = " " * lead + shared + "x" + tail, shared + "y" + tail[::-1]
    end = min(len(text), lead + cut + 1)
    if end <= lead:
        return
    limit = min(end - lead, len(decoded))
    expected = next((k for k in range(limit) if text[lead + k] != decoded[k]), limit)
    assert _equal_run(text, lead, end, decoded, 0) == expected


def test_offsets_are_remembered_per_node_and_decoded_text():
    text = 'a: "x\\ty"\n'
    node = parse_text(text, "o.yaml").documents[0].root.get("a")
    spans = ScalarSpans("o.yaml", text)
    own, other = spans.offsets(node), spans.offsets(node, "x")
    assert _as_list(own) == [4, 5, 7] and _as_list(other) == [4]
    assert spans.offsets(node) is own and spans.offsets(node, "x") is other
    assert set(spans._cache) == {id(node), (id(node), "x")}  # the pair itself: no hash of it to collide


@settings(max_examples=400, deadline=None)
@given(st.lists(st.text(alphabet=" ab-=\t'\\\\xn", max_size=30), min_size=1, max_size=6),
       st.sampled_from(['"', "'"]), st.integers(0, 6), st.text(alphabet=" abx\n'\\\\", max_size=60))
def test_quoted_scalars_over_lines_align_as_the_reference(lines, quote, indent, decoded):
    # runs of equal characters stop before an escape's first character; indentation is skipped a run at a
    # time only where the decoded character cannot match it: both as one character at a time did
    if quote == "'":
        lines = [line.replace("'", "''") for line in lines]
    else:
        lines = [line.replace("\\", "\\\\") if k % 2 else line.replace("\\", "\\\\").replace("x", "\\x41")
                 for k, line in enumerate(lines)]
    text = "k: " + quote + ("\n" + " " * indent).join(lines) + quote + "\n"
    try:
        node = parse_text(text, "q.yaml").documents[0].root.get("k")
    except (AttributeError, IndexError):
        return
    if node is None or node.kind != SCALAR or not isinstance(node.value, str):
        return
    for value in (node.value, node.value[1:], node.value.replace(" ", "\n"), decoded):
        assert _as_list(align(text, node, value)) == _slow(text, node, value)


def test_source_gives_the_positions_of_both_ends_as_position_does():
    # source() finds both ends' lines itself (the end's from the start's when they share a line)
    from ctxlint.model import Source

    checked = 0
    for path in list(_files())[::3]:
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        if len(text) > 200_000:
            continue
        spans = ScalarSpans(path.name, text)
        for node in _scalars(text, path.name):
            offsets, n = spans.offsets(node), len(node.value)
            if offsets is None or n == 0:
                continue
            for start, end in {(0, n), (0, 1), (n - 1, n), (n // 2, n), (n // 3, max(n // 3 + 1, 2 * n // 3))}:
                (line, col), (end_line, end_col) = spans.position(offsets[start]), spans.position(offsets[end - 1])
                assert spans.source(node, start, end) == Source(path.name, line, col, node.path, end_line,
                                                                end_col + 1), (path, node)
                checked += 1
    assert checked > 5_000
