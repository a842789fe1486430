"""Positions inside a document held in a string scalar (scalar_spans.EmbeddedSpans: a llama-swap config in a
ConfigMap's `config.yaml: |`), and llama-swap findings in a file that starts with a UTF-8 byte order mark: each
line:col is where the value is typed, as an editor counts it (the BOM is no column)."""
from __future__ import annotations

import pytest

from ctxlint.adapters.scalar_spans import EmbeddedSpans, ScalarSpans
from ctxlint.loader import parse_text
from tests.adapters.test_engine_files import SWAP_CONFIG_MAP
from tests.helpers import run


def _embedded(text: str):
    [doc] = parse_text(text, "cm.yaml").documents
    holder = doc.root.dig("data", "config.yaml")
    return EmbeddedSpans(ScalarSpans("cm.yaml", text), holder, holder.value), holder


def _typed(text: str, word: str):
    """1-based (line, column) of the first `word` typed in the text."""
    index = text.index(word)
    return text.count("\n", 0, index) + 1, index - (text.rfind("\n", 0, index) + 1) + 1


@pytest.mark.parametrize("word", ["49152", "macros", "/usr/local/bin/llama-server", "ttl"])
def test_an_index_of_the_held_document_is_its_place_in_the_file(word):
    spans, holder = _embedded(SWAP_CONFIG_MAP)
    assert spans.position(holder.value.index(word)) == _typed(SWAP_CONFIG_MAP, word)


def test_a_line_break_of_the_held_document_is_its_place_in_the_file():
    spans, holder = _embedded(SWAP_CONFIG_MAP)
    end = holder.value.index("\n")  # the end of `macros:`: the block's indentation is not the document's
    line, column = _typed(SWAP_CONFIG_MAP, "macros:")
    assert spans.position(end) == (line, column + len("macros:"))


@pytest.mark.parametrize("index", [-1, 10 ** 6])
def test_an_index_outside_the_held_document_is_the_holders_own_place(index):
    spans, holder = _embedded(SWAP_CONFIG_MAP)
    assert spans.position(index) == _typed(SWAP_CONFIG_MAP, "|\n    macros")


SWAP = """\
models:
  qwen:
    cmd: |
      llama-server --port ${PORT} -m /models/Qwen2.5-7B-Instruct-Q4_K_M.gguf --ctx-size 200000 --parallel 1
"""
ONE_LINE = 'models: {qwen: {cmd: "llama-server -m /models/Qwen2.5-7B-Instruct-Q4_K_M.gguf --ctx-size 200000"}}\n'
CONFIG_MAP = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: llama-swap}\ndata:\n  config.yaml: |\n" + \
    "".join("    " + line + "\n" for line in SWAP.splitlines())


@pytest.mark.parametrize("name, text", [("config.yaml", SWAP), ("config.yaml", ONE_LINE), ("cm.yaml", CONFIG_MAP)])
@pytest.mark.parametrize("bom", [b"", b"\xef\xbb\xbf"])
def test_llama_swap_findings_point_at_the_value_with_or_without_a_bom(tmp_path, name, text, bom):
    path = tmp_path / name
    path.write_bytes(bom + text.encode())
    line, column = _typed(text, "200000")
    out = run(["check", "--isolated", "--select", "CTX109", str(path)]).out
    assert f"{name}:{line}:{column}: CTX109 [error] 200,000 > 32,768" in out, out
