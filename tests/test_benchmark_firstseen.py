"""benchmarks/firstseen.py measures ctxlint's own command line: its unstubbed run prints what `ctxlint check`
prints, and a stubbed part still runs to the end (its counts are measurements of a changed output)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from benchmarks.firstseen import _STUB

SAMPLES = Path(__file__).resolve().parent.parent / "samples"


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=300)


def test_the_unstubbed_run_is_ctxlints_own():
    check = ["check", "--isolated", "--fail-on", "never", str(SAMPLES)]
    plain = _run("-m", "ctxlint", *check)
    measured = _run("-c", _STUB, "none", *check)
    assert plain.returncode == measured.returncode == 0
    assert measured.stdout == plain.stdout and plain.stdout


def test_the_fresh_part_prints_what_ctxlint_prints():
    # nothing reused by split_seen: every command split and parsed anew gives the same findings (its count is F's
    # share of a copy's reuse, not a changed output)
    check = ["check", "--isolated", "--fail-on", "never", "--format", "json", str(SAMPLES)]
    plain = _run("-m", "ctxlint", *check)
    fresh = _run("-c", _STUB, "fresh", *check)
    assert fresh.returncode == plain.returncode == 0
    assert fresh.stdout == plain.stdout and plain.stdout


def test_a_stubbed_part_runs_to_the_end():
    for part in ("search", "spanned", "compute"):
        done = _run("-c", _STUB, part, "check", "--isolated", "--fail-on", "never", "-q", str(SAMPLES))
        assert done.returncode == 0, (part, done.stderr[-2000:])
