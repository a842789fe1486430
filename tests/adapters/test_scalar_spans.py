"""Positions inside scalars: the shortcut for values typed as decoded gives the per-character answer."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from ctxlint.adapters.scalar_spans import ScalarSpans, _align, _by_character, _content_start
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


def _slow(text, node, decoded):
    begin = _content_start(text, node)
    if begin is None:
        return None
    return _by_character(text, begin, node.end_index - (1 if node.style in ("'", '"') else 0), node.style, decoded)


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
                assert _align(text, node, decoded) == _slow(text, node, decoded), (path, node)
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
    assert _align(QUOTED, node, node.value) == _slow(QUOTED, node, node.value)
    spans = ScalarSpans("q.yaml", QUOTED)
    where = node.value.find("4096") if "4096" in node.value else node.value.find("8192")
    if where >= 0:  # the number points at the digits typed in the file
        src = spans.source(node, where, where + 4)
        line_text = QUOTED.splitlines()[src.line - 1]
        assert line_text[src.col - 1:src.end_col - 1] in ("4096", "8192")
