"""`ctxlint.parallel`: several processes, the same Report as one."""
from __future__ import annotations

import os

import pytest

from conftest import SHARED
from ctxlint.discover import PAIRING_BLOCK, PathError, by_directory
from ctxlint.engine import Report, lint_paths
from ctxlint.findings import Finding
from ctxlint.parallel import chunked, lint_paths_parallel, merge_reports, resolve_jobs
from ctxlint.registry import SelectorError
from helpers import run

CORPUS = SHARED / "corpus" / "real"


def trees():
    return ["samples"] + ([str(CORPUS)] if CORPUS.is_dir() else [])


def test_two_processes_give_the_report_of_one(in_repo):
    serial = lint_paths(trees())
    parallel = lint_paths_parallel(trees(), jobs=2)
    assert parallel == serial  # findings, files and deployments, in the same order
    assert len(parallel.files) > 40


def test_progress_counts_every_file_once(in_repo):
    done = []
    report = lint_paths_parallel(["samples"], jobs=2, progress=done.append)
    assert sum(done) == len(report.files) and len(done) > 1


def test_stdin_is_checked_in_the_parent_in_its_place(in_repo):
    text = (in_repo / "samples/incident/deployment.yaml").read_bytes()
    paths = ["samples/rules", "-", "samples/derived-pool"]
    serial = lint_paths(paths, stdin=text, stdin_filename="piped.yaml")
    parallel = lint_paths_parallel(paths, jobs=2, stdin=text, stdin_filename="piped.yaml")
    assert parallel == serial and "piped.yaml" in parallel.files


def test_usage_errors_are_raised_before_any_worker(in_repo):
    with pytest.raises(PathError):
        lint_paths_parallel(["samples", "no/such/file.yaml"], jobs=2)
    with pytest.raises(SelectorError):
        lint_paths_parallel(["samples"], jobs=2, settings=__import__("ctxlint.engine").engine.Settings(
            select=("CTX9",)))


def test_jobs_and_chunks():
    assert resolve_jobs(0) == (os.cpu_count() or 1) and resolve_jobs(3) == 3
    files = [f"f{i}.yaml" for i in range(100)]
    chunks = chunked(files, 2)
    assert [f for c in chunks for f in c] == files and max(map(len, chunks)) <= PAIRING_BLOCK
    # A directory's block is never cut: the engine pairs prefill and decode files within it.
    blocks = by_directory(files)
    assert all(any(block == chunk[i:i + len(block)] for chunk in chunks for i in range(len(chunk)))
               for block in blocks)
    assert chunked([], 4) == [] and chunked(["a"], 8) == [["a"]]


def test_merge_keeps_every_list_field_in_order():
    a = Finding("b.yaml", 1, 1, "CTX101", "n", "error", "m")
    b = Finding("a.yaml", 1, 1, "CTX101", "n", "error", "m")
    merged = merge_reports([Report(findings=[a], files=["b.yaml"]), Report(findings=[b], files=["a.yaml"])])
    assert merged.findings == [b, a] and merged.files == ["b.yaml", "a.yaml"]


def test_check_jobs_output_is_identical(in_repo):
    serial = run(["check", *trees(), "--format", "json", "--jobs", "1"])
    parallel = run(["check", *trees(), "--format", "json", "-j", "2"])
    assert (parallel.code, parallel.out, parallel.err) == (serial.code, serial.out, serial.err)


def test_a_dying_worker_is_an_internal_error_not_a_traceback(in_repo, monkeypatch):
    import ctxlint.parallel as parallel
    from ctxlint.engine import InternalError

    monkeypatch.setattr(parallel, "_check_chunk", _die)  # spawned workers import it by name: patch the pickle
    with pytest.raises(InternalError, match="a worker process died while checking samples/"):
        lint_paths_parallel(["samples"], jobs=2)


def _die(files, settings, *rest):
    os._exit(3)
