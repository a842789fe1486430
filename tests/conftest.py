"""Shared test fixtures: the repo root, the shared corpus, and --update-golden."""
from __future__ import annotations

import itertools
import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


def _separate_stderr_on_old_click() -> None:
    """click < 8.2 (the newest for Python 3.9) mixes stderr into CliRunner's output unless told
    not to; the tests read `result.stderr` as click 8.2 gives it."""
    import inspect

    from click.testing import CliRunner

    if "mix_stderr" not in inspect.signature(CliRunner.__init__).parameters:
        return
    original = CliRunner.__init__

    def __init__(self, *args, mix_stderr=False, **kwargs):
        original(self, *args, mix_stderr=mix_stderr, **kwargs)
    CliRunner.__init__ = __init__


_separate_stderr_on_old_click()


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite the samples' expected.txt files from the current output")


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """After a whole-suite run, the benchmark's ratios in short (benchmarks/ci.py): CI logs show
    the speed next to the targets without a test asserting it. CTXLINT_NO_BENCH=1 skips it."""
    if os.environ.get("CTXLINT_NO_BENCH") or config.option.keyword or config.option.markexpr \
            or len(terminalreporter.stats.get("passed", [])) < 1000:
        return
    from benchmarks.ci import report

    terminalreporter.section("ctxlint speed (not asserted; targets in benchmarks/README.md)")
    try:
        lines = report()
    except Exception as exc:  # a benchmark that cannot run must not fail the suite
        lines = [f"  benchmark not run: {exc}"]
    for line in lines:
        terminalreporter.write_line(line)


@pytest.fixture
def update_golden(request) -> bool:
    return bool(request.config.getoption("--update-golden"))


@pytest.fixture
def in_repo(monkeypatch):
    """Run with the repo root as the working directory, as the README's commands do."""
    monkeypatch.chdir(REPO)
    return REPO


@pytest.fixture(scope="session")
def _hub_caches(tmp_path_factory):
    """One folder holding every test's empty Hugging Face cache, and a counter naming them."""
    return tmp_path_factory.mktemp("hf-hub-caches"), itertools.count()


@pytest.fixture(autouse=True)
def _no_hub_cache(monkeypatch, _hub_caches):
    # Model resolution reads the local Hugging Face cache: a developer's cache must not change results.
    # Each test gets a fresh empty one, numbered here: tmp_path_factory.mktemp lists the whole base
    # temp folder to find the next number, once per test, so its cost grows with the square of the
    # test count (4,667 calls on their own: 13 s CPU on a loaded 2-core VM; a counter: 0.6 s).
    root, numbers = _hub_caches
    cache = root / str(next(numbers))
    cache.mkdir()
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


@pytest.fixture(autouse=True)
def _no_ci_env(monkeypatch):
    # Output formats that react to CI variables must not change golden output.
    for name in ("GITHUB_ACTIONS", "NO_COLOR", "FORCE_COLOR"):
        monkeypatch.delenv(name, raising=False)
    # The concise format cuts lines to the terminal's width ($COLUMNS first): one width for every test,
    # whatever terminal, CI runner or xdist worker runs the suite (a test may still set its own).
    monkeypatch.setenv("COLUMNS", "200")


# Property tests: explore freely on developer machines, but replay a fixed sequence in CI so
# that a submission's CI run is reproducible (`CI=true` is set there).
try:
    from hypothesis import settings as _hypothesis_settings

    _hypothesis_settings.register_profile("ci", derandomize=True, deadline=None)
    _hypothesis_settings.register_profile("dev", deadline=None)
    _hypothesis_settings.load_profile("ci" if os.environ.get("CI") else "dev")
except ImportError:  # pragma: no cover - hypothesis is a test extra
    pass


@pytest.fixture(scope="session")
def server():
    """tests/probe_server.py as a real process on loopback, for the `ctxlint probe` tests."""
    from probe_helpers import running_server

    with running_server() as started:
        yield started
