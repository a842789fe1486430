"""benchmarks/loading.py: each part runs over the texts every part composes, to the end, so its instruction
counts measure that part's work on those files (speed itself is never asserted here)."""
from __future__ import annotations

import subprocess
from pathlib import Path

from benchmarks.loading import PARTS, _command, _env

SAMPLES = Path(__file__).resolve().parent.parent / "samples"


def _run(part: str, passes: int, tree: Path) -> subprocess.CompletedProcess:
    return subprocess.run(_command(part, passes, tree), env=_env(), capture_output=True, text=True, timeout=300)


def test_every_part_runs_over_the_same_texts():
    counts = set()
    for part in PARTS:
        done = _run(part, 2, SAMPLES)
        assert done.returncode == 0, (part, done.stderr[-2000:])
        counts.add(done.stdout.split()[-1])
    assert len(counts) == 1 and int(counts.pop()) > 50


def test_texts_pyyaml_refuses_are_left_out(tmp_path):
    (tmp_path / "good.yaml").write_text("a: 1\nb: [x, y]\n")
    (tmp_path / "bad.yaml").write_text("a: [1, 2\n")
    (tmp_path / "latin1.yaml").write_bytes(b"a: \xe9\n")
    done = _run("read", 1, tmp_path)
    assert done.returncode == 0 and done.stdout.split() == ["1"]


def test_an_unknown_part_stops():
    done = _run("nothing", 1, SAMPLES)
    assert done.returncode != 0 and "unknown part nothing" in done.stderr
