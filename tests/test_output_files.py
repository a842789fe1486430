"""Report, audit and baseline files: a missing directory is a usage error, and files get
the mode `open()` would give (umask, or the existing file's), though written atomically."""
from __future__ import annotations

import os
import stat

import pytest

from helpers import run

INCIDENT = "samples/incident/deployment.yaml"


@pytest.fixture
def umask():
    """Set the process umask for one test and restore it after."""
    old = os.umask(0o022)
    os.umask(old)

    def set_mask(mask: int) -> None:
        os.umask(mask)

    yield set_mask
    os.umask(old)


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.mark.parametrize("args, message", [
    (["check", INCIDENT, "--format", "json", "--output", "{dir}/missing/report.json"],
     "Error: --output {dir}/missing/report.json: directory {dir}/missing does not exist\n"),
    (["audit", INCIDENT, "--output", "{dir}/missing/audit.txt"],
     "Error: --output {dir}/missing/audit.txt: directory {dir}/missing does not exist\n"),
    (["check", INCIDENT, "--format", "json", "--output", "{dir}"],
     "Error: --output {dir}: is a directory\n"),
])
def test_output_into_a_missing_directory_is_a_usage_error(in_repo, tmp_path, args, message):
    # Issue 13 item 3: a traceback and exit 1 (the "findings" code) before.
    result = run([arg.format(dir=tmp_path) for arg in args])
    assert result.code == 2
    assert result.err.endswith(message.format(dir=tmp_path))
    assert os.listdir(tmp_path) == []


def test_baseline_into_a_missing_directory_is_a_usage_error(in_repo, tmp_path):
    result = run(["baseline", "create", INCIDENT, "--baseline", str(tmp_path / "no" / "b.json")])
    assert (result.code, result.err) == (
        2, f"ctxlint: cannot write {tmp_path}/no/b.json: directory {tmp_path}/no does not exist\n")


@pytest.mark.parametrize("mask, expected", [(0o022, 0o644), (0o027, 0o640), (0o077, 0o600)])
def test_new_files_honour_the_umask(in_repo, tmp_path, umask, mask, expected):
    # Issue 13 item 4: every file was 0600, unreadable to artifact uploaders.
    umask(mask)
    run(["check", INCIDENT, "--format", "sarif", "--output", str(tmp_path / "r.sarif")])
    run(["audit", INCIDENT, "--output", str(tmp_path / "audit.txt")])
    run(["baseline", "create", INCIDENT, "--baseline", str(tmp_path / "b.json")])
    assert {p: oct(mode(tmp_path / p)) for p in sorted(os.listdir(tmp_path))} == {
        "audit.txt": oct(expected), "b.json": oct(expected), "r.sarif": oct(expected)}


def test_an_existing_files_mode_is_kept(in_repo, tmp_path, umask):
    umask(0o077)
    report, baseline = tmp_path / "r.json", tmp_path / "b.json"
    run(["baseline", "create", INCIDENT, "--baseline", str(baseline)])
    report.write_text("old\n")
    report.chmod(0o644)
    baseline.chmod(0o664)
    run(["check", INCIDENT, "--format", "json", "--output", str(report)])
    run(["baseline", "update", INCIDENT, "--baseline", str(baseline)])
    assert (oct(mode(report)), oct(mode(baseline))) == (oct(0o644), oct(0o664))
    assert report.read_text().startswith("{")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
@pytest.mark.parametrize("args", [["check", INCIDENT, "--format", "json", "--output"],
                                  ["audit", INCIDENT, "--format", "csv", "-o"]])
def test_a_pipe_or_device_is_written_in_place_not_replaced(in_repo, tmp_path, args):
    # `-o /dev/null` renamed a file over the device (as root, /dev/null became a regular file); a named pipe
    # stands for any such target here, since the old code would have replaced a real /dev/null
    import threading

    pipe = tmp_path / "out.pipe"
    os.mkfifo(pipe)
    got = []
    reader = threading.Thread(target=lambda: got.append(pipe.read_bytes()))
    reader.start()
    result = run([*args, str(pipe)])
    reader.join(timeout=60)
    assert stat.S_ISFIFO(os.lstat(pipe).st_mode)
    assert sorted(os.listdir(tmp_path)) == ["out.pipe"]  # no temporary file left beside it
    assert got and got[0].startswith(b"{" if "json" in args else b"model,")
    assert result.code in (0, 1), result.err
