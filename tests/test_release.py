"""One version everywhere: pyproject.toml, `ctxlint --version`, the changelog's latest release and
every tag the README tells users to pin (pre-commit `rev:`, `pip install ...@v<version>`, the Action).
"""
from __future__ import annotations

import re
import sys

from conftest import REPO
from ctxlint import __version__
from helpers import run

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - 3.9/3.10
    import tomli as tomllib

PIN = re.compile(r"(?:ctxlint(?:\.git)?[@/#]|/tags/|--branch )(v\d+\.\d+\.\d+)")  # ...ctxlint@v0.1.0, .../tags/v0.1.0.tar.gz
RELEASE = re.compile(r"^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$", re.M)


def released(changelog: str):
    return RELEASE.findall(changelog)


def test_changelog_follows_keep_a_changelog():
    text = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## .*$", text, re.M)
    assert headings[0] == "## [Unreleased]", "the first section collects unreleased changes"
    assert len(headings) == 1 + len(released(text)), f"a release heading is malformed: {headings}"
    versions = [tuple(map(int, v.split("."))) for v, _ in released(text)]
    dates = [d for _, d in released(text)]
    assert versions == sorted(versions, reverse=True) and dates == sorted(dates, reverse=True), "newest first"
    for section in re.findall(r"^### (.*)$", text, re.M):
        assert section in ("Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"), section


def test_one_version_everywhere():
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    latest = released((REPO / "CHANGELOG.md").read_text(encoding="utf-8"))[0][0]
    assert pyproject == __version__ == latest
    assert run(["--version"]).out == f"ctxlint, version {latest}\n"
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    pins = re.findall(r"rev: (\S+)", readme) + PIN.findall(readme)
    assert pins and set(pins) == {f"v{latest}"}, pins


def test_the_version_check_sees_a_stale_pin():
    assert PIN.findall("pip install git+https://x/ctxlint.git@v0.0.9, apiVersion: ctxlint/v1") == ["v0.0.9"]
    assert released("## [Unreleased]\n\n## [1.2.0] - 2026-01-02\n## [1.10.0] - 2026-01-01\n") == [
        ("1.2.0", "2026-01-02"), ("1.10.0", "2026-01-01")]


def test_no_changelog_entry_is_written_twice():
    # a later commit that widens an entry replaces it rather than adding a second copy beside it
    text = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    openings = [line[:120] for line in text.split("\n") if line.startswith("- ")]
    assert not [o for o in set(openings) if openings.count(o) > 1]
