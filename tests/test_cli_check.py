"""`ctxlint check` with plain arguments runs without click (cli_check.py): its parser must give
exactly what click gives, and leave to click everything it does not read the same way."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxlint.cli import check, main
from ctxlint.cli_check import _FLAGS, _VALUED, DEFAULTS, parse_plain_check

REPO = Path(__file__).resolve().parents[1]
INCIDENT = str(REPO / "samples" / "incident")


def click_params(args):
    with check.make_context("check", list(args)) as ctx:
        return dict(ctx.params)


def test_every_click_option_is_known_with_clicks_default():
    """A new option on the click command must be taught to the plain parser (or made to fall back)."""
    declared = {param.name: param for param in check.params}
    assert set(declared) == set(DEFAULTS)
    assert click_params([]) == DEFAULTS
    spellings = {opt for param in check.params if isinstance(param, click.Option)
                 for opt in param.opts + param.secondary_opts}
    assert spellings == set(_FLAGS) | set(_VALUED)


CASES = [
    [],
    ["a.yaml", "b.yaml"],
    ["--force-exclude", "deploy/x.yaml", "deploy/y.json"],
    ["--format", "json", "--format=sarif", "-o", "out.sarif", "x.yaml"],
    ["--fail-on", "warning", "--fail-on=info", "-q", "--exit-zero", "--statistics"],
    ["--select", "CTX1,CTX2", "--select=CTX3", "--ignore", "CTX208", "--extend-select", "CTX4"],
    ["--extend-exclude", "vendor/*", "--config", "c.yaml", "--isolated", "--no-suppressions"],
    ["--jobs", "2", "-j", "0", "--max-file-size", "1000", "--baseline", "b.json", "--stdin-filename", "n.yaml"],
    ["--fail-if-empty", "--no-fail-if-empty", "--fix", "--diff", "--sarif-root", "somewhere", "."],
    ["x.yaml", "--quiet", "y.yaml"],  # options between paths
    ["--jobs", "auto", "x.yaml"], ["-j", "3", "--jobs=auto"],
]


@pytest.mark.parametrize("args", CASES, ids=lambda a: " ".join(a) or "(none)")
def test_plain_arguments_parse_as_click_parses_them(args):
    assert parse_plain_check(args) == click_params(args)


@pytest.mark.parametrize("args", [
    ["-"], ["--"], ["--help"], ["-h"], ["-qj2"], ["-j2"], ["-ojson"], ["--format", "nope"], ["--format=JSON"],
    ["--jobs", "-1"], ["--jobs", "two"], ["--jobs", "²"], ["--jobs", "AUTO"], ["--max-file-size", "0"], ["--fail-on"],
    ["--select", "-x"], ["--quiet=1"], ["--form", "json"], ["--format", ""], ["--sarif-root", __file__],
])
def test_what_the_plain_parser_leaves_to_click(args):
    assert parse_plain_check(args) is None


_TOKENS = st.one_of(
    st.sampled_from(sorted(_FLAGS) + sorted(_VALUED) + ["-", "--", "json", "text", "error", "never", "3", "0",
                                                         "CTX1", "x.yaml", "", "-x", "--nope", "--format=json", "auto",
                                                         "--jobs=2", "--fail-on=info", "--select=CTX2"]),
    st.text(st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)), max_size=6))  # as argv


@settings(max_examples=300, deadline=None)
@given(st.lists(_TOKENS, max_size=8))
def test_whatever_the_plain_parser_accepts_click_reads_the_same(args):
    parsed = parse_plain_check(args)
    if parsed is not None:
        assert parsed == click_params(args)


def _run_plain(args):
    """The console script's path, in a fresh interpreter: exit code, stdout, stderr, click imported?"""
    code = ("import os, sys\n"
            "def report():\n    sys.stderr.write('click imported: %s\\n' % ('click' in sys.modules)); sys.stderr.flush()\n"
            "real_exit = os._exit\n"
            "os._exit = lambda code: (report(), real_exit(code))\n"
            "from ctxlint.cli_check import main\n"
            "sys.argv = ['ctxlint'] + sys.argv[1:]\n"
            "try:\n    main()\nexcept SystemExit:\n    report(); raise\n")
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=REPO)
    return done.returncode, done.stdout, done.stderr


@pytest.mark.parametrize("args", [
    ["check", INCIDENT],
    ["check", "--format", "json", "--fail-on", "never", INCIDENT],
    ["check", "-q", "--statistics", INCIDENT],
])
def test_plain_run_prints_what_the_click_command_prints_without_importing_click(args):
    code, out, err = _run_plain(args)
    assert err.endswith("click imported: False\n")
    result = CliRunner().invoke(main, args)
    assert (code, out, err[:-len("click imported: False\n")]) == (result.exit_code, result.stdout, result.stderr)


@pytest.mark.parametrize("args", [
    ["check", "--format", "nope", INCIDENT],              # click judges the value
    ["check", INCIDENT, "-o", "/nonexistent/dir/x.json"],  # a usage error of the run: click says it
    ["check", str(REPO / "no-such-file.yaml")],
])
def test_usage_errors_are_clicks(args):
    code, out, err = _run_plain(args)
    assert code == 2 and err.startswith("Usage: ctxlint check [OPTIONS] [PATHS]...")
    assert err.endswith("click imported: True\n")
