"""ctxlint imports PyYAML without compiling the pure-Python reader's character class
(ctxlint/pyyaml.py), and that reader still works when it is used."""
from __future__ import annotations

import re
import subprocess
import sys

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxlint.pyyaml import _NON_PRINTABLE, LazyPattern

PROBE = """\
import re, sys
compile_before = re.compile
import ctxlint
import yaml.reader
print(type(yaml.reader.Reader.NON_PRINTABLE).__name__, re.compile is compile_before)
"""


def test_importing_ctxlint_defers_the_pattern_and_restores_re_compile():
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["LazyPattern", "True"]


def test_a_host_that_imported_yaml_first_keeps_its_pattern_which_is_the_one_deferred():
    probe = "import yaml.reader\n" + PROBE + (
        "from ctxlint.pyyaml import _NON_PRINTABLE\nprint(yaml.reader.Reader.NON_PRINTABLE.pattern == _NON_PRINTABLE)\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["Pattern", "True", "True"]


@pytest.mark.parametrize("text", ["plain", "tab\there", "bell\x07", "\ufffe", "nul\x00", "emoji \U0001F600", ""])
def test_the_deferred_pattern_finds_what_the_compiled_one_finds(text):
    lazy, real = LazyPattern(_NON_PRINTABLE, 0), re.compile(_NON_PRINTABLE)
    found, expected = lazy.search(text), real.search(text)
    assert (found and found.group()) == (expected and expected.group())


def test_the_pure_python_reader_still_refuses_non_printable_characters():
    assert yaml.load("a: b", Loader=yaml.SafeLoader) == {"a": "b"}
    with pytest.raises(yaml.reader.ReaderError):
        yaml.load("a: \x07", Loader=yaml.SafeLoader)


def test_timestamps_are_deferred_and_still_read_as_timestamps():
    import datetime

    from ctxlint.loader import parse_text

    # in a fresh interpreter: in this one, a test module that imports yaml before ctxlint may run first
    probe = ("import ctxlint, yaml.constructor, yaml.resolver\n"
             "print(type(yaml.constructor.SafeConstructor.timestamp_regexp).__name__)\n"
             "print(sorted((tag.rsplit(':', 1)[-1], type(regexp).__name__)\n"
             "             for tag, regexp in yaml.resolver.Resolver.yaml_implicit_resolvers['2']))\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == ["LazyPattern", "[('float', 'Pattern'), ('int', 'Pattern'), ('timestamp', 'LazyPattern')]"]
    root = parse_text("a: 2002-12-14\nb: 2001-12-14t21:59:43.10-05:00\nc: 2002\n", "t.yaml").documents[0].root
    assert isinstance(root.value["a"].value, datetime.date) and isinstance(root.value["b"].value, datetime.datetime)
    assert root.value["c"].value == 2002


def test_the_tab_check_reports_without_compiling_the_pattern():
    # yaml_problems.check_portability scans with PyYAML's pure-Python scanner minus its printable check
    probe = ("import ctxlint, yaml.reader\nfrom ctxlint.loader import parse_text\n"
             "loaded = parse_text('a: b\\t\\nc:\\t\\td\\n', 't.yaml')\n"
             "print([d.kind for d in loaded.diagnostics], 'search' in vars(yaml.reader.Reader.NON_PRINTABLE))\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["['nonportable-yaml']", "False"]


_TABBED = st.text(alphabet=st.sampled_from(list("ab:- \t\n\"'#[]{},|>\x85\u2028é\x07")), max_size=40)


@settings(max_examples=300, deadline=None)
@given(_TABBED)
def test_the_tab_check_stops_where_the_full_pure_python_reader_stops(text):
    from ctxlint.yaml_problems import _PurePythonScan
    from ctxlint.yaml_loaders import BaseLoader

    try:  # the check runs only on text libyaml accepted
        list(yaml.compose_all(text, Loader=BaseLoader))
    except yaml.YAMLError:
        return

    def outcome(loader):
        try:
            return len(list(yaml.scan(text, Loader=loader)))
        except yaml.YAMLError as exc:
            return str(exc)

    assert outcome(_PurePythonScan) == outcome(yaml.SafeLoader)
