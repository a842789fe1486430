"""versions._parse_text reads a bare release and a text that is no version without its pattern: the same
Version (or None) the pattern gives, and a run of such tags never compiles the pattern."""
from __future__ import annotations

import subprocess
import sys

from hypothesis import given
from hypothesis import strategies as st

from ctxlint import versions
from ctxlint.versions import _PRE, _VERSION, Version


def _by_pattern(text: str):
    """The reading before the shortcuts: every text through _VERSION."""
    m = _VERSION.match(text)
    if not m:
        return None
    release = tuple(int(p) for p in m.group("release").split("."))
    pre = (_PRE[m.group("pre").lower()], int(m.group("pre_n") or 0)) if m.group("pre") else None
    post = None
    if m.group("post") is not None or m.group("post_implicit") is not None:
        post = int(m.group("post") or m.group("post_implicit") or 0)
    dev = int(m.group("dev") or 0) if m.group("dev") is not None else None
    return Version(text.strip(), release, pre, post, dev)


def _same(text: str) -> None:
    got, expected = versions._parse_text.__wrapped__(text), _by_pattern(text)
    if expected is None:
        assert got is None, text
    else:
        assert got is not None, text
        assert (got.text, got.release, got.pre, got.post, got.dev, got._sort_key) == (
            expected.text, expected.release, expected.pre, expected.post, expected.dev, expected._sort_key), text


KNOWN = ["0.8.5", "v0.11.0", "V1", "0.19.1rc1.dev301+g60995c05b", "0.4.5.post2", "3.3.6-dev0", "latest", "nightly",
         "main", "", " ", "v", "vv1", "1.", ".1", "1..2", " 0.5.21", "0.5.21 ", "0.5.21\n", "\u00a00.5", "\u0661.\u0662",
         "\u00b2", "v\u0663", "1_2", "1-2", "1.2a", "1.2.3.4.5", "007", "0", "1.2+local", "\u2003v2.0\u2003", "x1"]
# the characters the pattern and the shortcuts read: ASCII and other digits, whitespace, the letters of tags
ALPHABET = st.sampled_from(list("0123456789.vV-_+ \t\nrcpostdevabl") + ["\u00a0", "\u2003", "\u0661", "\u00b2",
                                                                           "\u0966", "\u212a"])


def test_known_tags_read_as_the_pattern_reads_them():
    for text in KNOWN:
        _same(text)


@given(st.lists(ALPHABET, max_size=14).map("".join))
def test_generated_texts_read_as_the_pattern_reads_them(text):
    _same(text)


@given(st.lists(st.integers(0, 10**6), min_size=1, max_size=5), st.sampled_from(["", "v", "V"]))
def test_bare_releases_read_as_the_pattern_reads_them(parts, prefix):
    _same(prefix + ".".join(map(str, parts)))


def test_bare_releases_and_non_versions_compile_no_pattern():
    code = ("from ctxlint import versions\n"
            "for t in ('0.8.5', 'v0.11.0', 'latest', 'nightly', '', 'main'): versions.parse_version(t)\n"
            "assert 'match' not in vars(versions._VERSION), 'compiled'\n"
            "assert str(versions.parse_version('v0.11.0')) == 'v0.11.0'\n"
            "versions.parse_version('0.19.1rc1')\n"
            "assert 'match' in vars(versions._VERSION)\n")
    subprocess.run([sys.executable, "-c", code], check=True)
