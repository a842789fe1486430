"""Golden tests: every sample folder's exact `ctxlint check` output is in expected.txt.

Regenerate with `python -m pytest tests/test_samples.py --update-golden` and
review the diff: the files hold message text, so wording changes show up.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from conftest import REPO
from helpers import run

FOLDERS = sorted(p for p in (REPO / "samples").rglob("*")
                 if p.is_dir() and any(any(p.glob(f"*.{ext}")) for ext in ("yaml", "yml", "sh", "service", "properties")))


def golden_output(folder: Path) -> str:
    rel = folder.relative_to(REPO).as_posix()
    result = run(["check", rel, "--fail-on", "never"])
    assert result.code == 0, result.err
    return result.out


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: p.relative_to(REPO / "samples").as_posix())
def test_sample_output_is_golden(folder: Path, in_repo, update_golden):
    expected_file = folder / "expected.txt"
    actual = golden_output(folder)
    if update_golden:
        expected_file.write_text(actual, encoding="utf-8")
    assert expected_file.exists(), f"{expected_file} missing: run with --update-golden"
    assert actual == expected_file.read_text(encoding="utf-8")


def test_incident_is_refused_at_the_offending_values(in_repo):
    result = run(["check", "samples/incident"])
    assert result.code == 1
    lines = result.out.splitlines()
    assert [line.split(" ")[1] for line in lines] == ["CTX102", "CTX401", "CTX101"]
    # CTX102 at the advertised window (line 13), CTX401 at the engine version (line 17, the known
    # SGLang PD defect), CTX101 at the prefill pool (line 24, the 681280).
    assert lines[0].startswith("samples/incident/deployment.yaml:13:21: CTX102 [error] security:")
    assert lines[1].startswith("samples/incident/deployment.yaml:17:14: CTX401 [error] CTXA-2026-001: ")
    assert "SGLang 0.5.21 is affected" in lines[1] and "pull/36988" in lines[1]
    assert lines[2].startswith("samples/incident/deployment.yaml:24:25: CTX101 [error] 1,048,576 > 681,280")
    assert "by 367,296 tokens" in lines[2]
    source = (REPO / "samples/incident/deployment.yaml").read_text().splitlines()
    assert source[23][24:].startswith("681280") and source[12][20:].startswith("1048576")


def test_incident_fixed_passes(in_repo):
    result = run(["check", "samples/incident-fixed"])
    assert result.code == 0, result.out
    assert result.out == ""
    assert "no findings in 1 file, 1 deployment" in result.err
