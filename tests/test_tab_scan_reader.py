"""yaml_problems._PurePythonScan reads its text with peek, prefix and forward of its own and skips spaces and comments
a run at a time: every token (its kind, value and marks) and every error (its words and marks) must be what PyYAML's
own Reader and Scanner give (the class it replaced, kept below), on generated texts of the characters that move
lines and columns (breaks, "\\r\\n", NEL, LS, PS, byte-order marks, tabs), and on every file of the samples and the
corpus, also with tabs written in place of spaces."""
from __future__ import annotations

import random
from pathlib import Path
from typing import Any, List, Tuple

import yaml
from conftest import SHARED
from hypothesis import given, settings, strategies as st

from ctxlint.discover import discover
from ctxlint.yaml_problems import _PurePythonScan

ROOT = Path(__file__).resolve().parents[1]


class _Replaced(yaml.SafeLoader):
    """The class before: PyYAML's Reader and Scanner, with only the printable check left out."""

    def check_printable(self, data: str) -> None:
        return None


def _mark(mark: Any) -> Any:
    return None if mark is None else (mark.index, mark.line, mark.column, mark.pointer)


def _scan(text: str, loader: type) -> Tuple[List[Any], Any]:
    tokens: List[Any] = []
    try:
        for token in yaml.scan(text, Loader=loader):
            tokens.append((type(token).__name__, getattr(token, "value", None), _mark(token.start_mark),
                           _mark(token.end_mark)))
    except yaml.MarkedYAMLError as exc:
        return tokens, (type(exc).__name__, exc.context, _mark(exc.context_mark), exc.problem, _mark(exc.problem_mark))
    except yaml.YAMLError as exc:
        return tokens, (type(exc).__name__, str(exc))
    return tokens, None


_PIECES = [" ", "  ", "    ", "\t", "\n", "\r\n", "\r", "\x85", "\u2028", "\u2029", "\ufeff", "#", "# c ", ":", ": ",
           "- ", "a", "key", "1", "'", '"', "\\", "[", "]", "{", "}", ",", "|", ">", "?", "!", "&x", "*x", "---",
           "...", "%YAML 1.1", "é"]


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=40))
def test_generated_texts_scan_as_pyyaml_scans_them(pieces: List[str]) -> None:
    text = "".join(pieces)
    assert _scan(text, _PurePythonScan) == _scan(text, _Replaced)


def test_real_files_scan_as_pyyaml_scans_them() -> None:
    paths = [str(ROOT / "samples")] + ([str(SHARED / "corpus")] if (SHARED / "corpus").is_dir() else [])
    rng = random.Random(15)
    scanned = 0
    for path in discover(paths):
        if not path.endswith((".yaml", ".yml")):
            continue
        text = Path(path).read_text(encoding="utf-8", errors="replace")
        spaces = [i for i, ch in enumerate(text) if ch == " "]
        tabbed = list(text)
        for i in rng.sample(spaces, min(3, len(spaces))):
            tabbed[i] = "\t"
        for each in (text, "".join(tabbed)):
            assert _scan(each, _PurePythonScan) == _scan(each, _Replaced), path
        scanned += 1
    assert scanned > 100
