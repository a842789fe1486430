"""yaml_problems.check_portability starts PyYAML's pure-Python scan at the last column-0 key of a block mapping
before the text's first tab (yaml_problems._resume_point): what it reports (the line, column and words of the
first error, or nothing) must be what a scan of the whole text reports, on every YAML file of the samples and the
corpus with tabs written in place of spaces, and on generated documents of keys, lists, comments and tabs."""
from __future__ import annotations

import random
from pathlib import Path
from typing import List, Optional, Tuple

import yaml
from conftest import SHARED
from hypothesis import given, settings, strategies as st

from ctxlint.discover import discover
from ctxlint.lines import mark_line_col
from ctxlint.loader import HELM_TEMPLATE, parse_text
from ctxlint.yaml_problems import NONPORTABLE, PARSE_ERROR, _PurePythonScan, _resume_point

ROOT = Path(__file__).resolve().parents[1]


def _whole_scan(text: str) -> Optional[Tuple[int, int, str]]:
    """The check before: the whole text scanned, the first error's place and words."""
    try:
        for _ in yaml.scan(text, Loader=_PurePythonScan):
            pass
    except yaml.MarkedYAMLError as exc:
        line, col = mark_line_col(text, exc.problem_mark or exc.context_mark)
        return line, col, exc.problem or "invalid syntax"
    except yaml.YAMLError:
        return None
    return None


def _reported(text: str) -> Tuple[bool, Optional[Tuple[int, int, str]]]:
    """Whether the check ran (libyaml read every document, and the file is no chart template), and what it said."""
    loaded = parse_text(text, "deploy.yaml")
    said = [d for d in loaded.diagnostics if d.kind == NONPORTABLE]
    if not said:
        return not any(d.kind in (PARSE_ERROR, HELM_TEMPLATE) for d in loaded.diagnostics), None
    message = said[0].message
    problem = message[message.index("stops here: ") + len("stops here: "):message.rindex("; replace the tab")]
    return True, (said[0].source.line, said[0].source.col, problem)


def test_a_tab_in_a_later_document_is_found_from_its_last_key():
    text = "a: 1\nb:\n  c: 2\n---\nd: 3\ne:\n  f: x\t\n"
    loaded = parse_text(text, "deploy.yaml")
    assert _resume_point(text, loaded) == (text.index("e:"), 5)
    assert [(d.source.line, d.source.col, d.message) for d in loaded.diagnostics] == [(
        7, 7, "libyaml (like Kubernetes' parser) reads this file, but PyYAML's pure-Python reader stops here: "
              "found character '\\t' that cannot start any token; replace the tab with spaces")]


def test_texts_the_scan_cannot_start_late_are_scanned_whole():
    for text in ("\ufeffa: 1\nb: x\t\n", "a: \"x\x85y\"\nb: x\t\n", "a: 1\r\rb: x\t\n", "{a: 1,\nb: x}\t\n",
                 "!!map\na: 1\nb: x\t\n", "a: x\t\nb: 1\n", "- a\n- b\t\n", "a: |\n  x\t\nb: 1\n"):
        loaded = parse_text(text, "deploy.yaml")
        assert _resume_point(text, loaded) == (0, 0), text
        assert _reported(text)[1] == _whole_scan(text), text


def test_real_files_with_tabs_report_what_a_whole_scan_reports():
    corpus = (SHARED / "corpus").is_dir()  # absent from a clone without ../shared: the samples alone
    paths = [str(ROOT / "samples")] + ([str(SHARED / "corpus")] if corpus else [])
    rng = random.Random(15)
    checked = resumed = 0
    for path in discover(paths):
        if not path.endswith((".yaml", ".yml")):
            continue
        text = Path(path).read_text(encoding="utf-8", errors="replace")
        spaces = [i for i, ch in enumerate(text) if ch == " "]
        # one tab late in the file (where a late start skips most of it), and three anywhere
        late = [i for i in spaces if i > len(text) // 2][:1]
        for chosen in (late, rng.sample(spaces, min(3, len(spaces)))):
            if not chosen:
                continue
            tabbed = list(text)
            for i in chosen:
                tabbed[i] = "\t"
            each = "".join(tabbed)
            read, said = _reported(each)
            if read:
                assert said == _whole_scan(each), (path, chosen)
                checked += 1
                resumed += _resume_point(each, parse_text(each, "deploy.yaml"))[0] > 0
    # the samples alone give 59 and 52 (a clone without ../shared); with the corpus several hundred
    low_checked, low_resumed = (100, 50) if corpus else (40, 30)
    assert checked > low_checked and resumed > low_resumed, (checked, resumed)


_LINES = ["a: 1", "key: value", "b:", "  c: 2", "  - x", "- y", "  d: [1, 2]", "# note", "e: 'q r'", "f: |",
          "  text", "g: \"s\"", "---", "h: {i: 1}", "", "  j:", "    k: v"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_LINES), min_size=1, max_size=14),
       st.lists(st.integers(min_value=0, max_value=10_000), min_size=1, max_size=2))
def test_generated_documents_report_what_a_whole_scan_reports(lines: List[str], at: List[int]) -> None:
    text = "\n".join(lines) + "\n"
    tabbed = list(text)
    for k in at:
        tabbed.insert(k % (len(tabbed) + 1), "\t")
    each = "".join(tabbed)
    read, said = _reported(each)
    if read:
        assert said == _whole_scan(each)


def test_a_key_merged_in_or_written_as_an_alias_is_no_place_to_start():
    # the merged `x` and the aliased `&k x` are nodes inside a flow mapping that start a line: a scan started
    # there closes a flow level never opened, and took the later block scalar's `|` for a token it cannot start
    for text in ('base: &b {\nx: "a\tb"}\n<<: *b\nc: |\n  text\n',
                 'a: {\n&k x: "a\tb"}\n*k : 2\nc: |\n  text\n'):
        loaded = parse_text(text, "deploy.yaml")
        assert _resume_point(text, loaded) == (0, 0), text
        assert _reported(text) == (True, None), text
