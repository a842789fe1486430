"""pathparts gives what pathlib gives, without importing it; and the display paths built on it
(reporters.common) are the ones the pathlib versions give."""
from __future__ import annotations

import os
from pathlib import PurePosixPath

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from ctxlint import pathparts
from ctxlint.reporters import common

SEGMENTS = st.sampled_from(["a", "b", "deploy", ".", "..", "", "x.yaml", "a b"])
PATHS = st.builds(lambda lead, segs: lead + "/".join(segs), st.sampled_from(["", "/", "//", "///", "./"]),
                  st.lists(SEGMENTS, max_size=5))


@settings(max_examples=500, deadline=None)
@given(PATHS, PATHS)
def test_parts_relative_to_and_as_posix_match_pathlib(path, base):
    assert pathparts.parts(path) == PurePosixPath(path).parts
    assert pathparts.as_posix(pathparts.parts(path)) == PurePosixPath(path).as_posix()
    try:
        expected = PurePosixPath(path).relative_to(PurePosixPath(base)).parts
    except ValueError:
        expected = None
    assert pathparts.relative_to(pathparts.parts(path), pathparts.parts(base)) == expected


@pytest.mark.skipif(os.name == "nt", reason="Windows uses pathlib itself")
@settings(max_examples=300, deadline=None)
@given(PATHS, st.sampled_from(["", "sub", "sub/deeper", "..", "/", "/tmp"]))
def test_display_paths_match_the_pathlib_versions(file, where):
    assume(file)  # "" and "-" return unchanged before either version runs
    cwd = os.path.join(os.getcwd(), where) if not where.startswith("/") else where
    assert common.relative_path(file, cwd) == common._relative_path_windows(file, cwd)
    assert common.root_relative(file, cwd, os.getcwd()) == common._root_relative_windows(file, cwd, os.getcwd())
