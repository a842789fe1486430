"""`ctxlint.parallel`: several processes, the same Report as one."""
from __future__ import annotations

import os
import sys

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


def test_jobs_and_chunks(monkeypatch):
    monkeypatch.delenv("PRE_COMMIT", raising=False)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2}, raising=False)
    assert resolve_jobs(0) == 3 and resolve_jobs(3) == 3 and resolve_jobs(1, 10_000) == 1
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


def test_the_parent_checks_chunks_too(in_repo, monkeypatch):
    """--jobs 2 is the parent and one worker, not two workers and an idle parent: both check chunks."""
    import ctxlint.parallel as parallel

    here = []  # what this process checked: a worker's calls land in its own copy of the list

    def checked_here(chunk, *args, **kwargs):
        here.append(chunk[0])
        return lint_paths(chunk, *args, **kwargs)

    monkeypatch.setattr(parallel, "lint_paths", checked_here)
    chunks = chunked(parallel.files_to_check(["samples"], parallel.Settings()), 2)
    report = lint_paths_parallel(["samples"], jobs=2)
    assert report == lint_paths(["samples"])
    assert 1 <= len(here) < len(chunks)  # the rest went to the worker


class _NoProcesses:
    """A ProcessPoolExecutor where the sandbox forbids what it needs: raises `error` as it starts, or at the first
    submit (when it starts its processes)."""

    def __init__(self, error, at_submit=False):
        self.error, self.at_submit, self.tries = error, at_submit, 0

    def __call__(self, *args, **kwargs):
        self.tries += 1
        if not self.at_submit:
            raise self.error
        return self

    def submit(self, *args, **kwargs):
        raise self.error

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def shutdown(self, wait=True, cancel_futures=False):
        pass


@pytest.mark.parametrize("error, at_submit", [
    (OSError(38, "Function not implemented"), False),  # no sem_open: /dev/shm missing
    (NotImplementedError("no working sem_open"), False),
    (PermissionError(1, "Operation not permitted"), True),  # a sandbox refusing fork/exec
], ids=["no-semaphores", "no-sem_open", "no-fork"])
def test_no_pool_means_one_process_and_the_same_report(in_repo, monkeypatch, error, at_submit):
    import concurrent.futures

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", _NoProcesses(error, at_submit))
    notes = []
    report = lint_paths_parallel(["samples"], jobs=2, on_fallback=notes.append)
    assert report == lint_paths(["samples"])
    assert len(notes) == 1 and str(error.args[-1]) in notes[0]


def test_check_without_processes_says_so_once_for_an_explicit_jobs_only(in_repo, monkeypatch, tmp_path):
    import concurrent.futures

    monkeypatch.delenv("PRE_COMMIT", raising=False)
    pool = _NoProcesses(PermissionError(1, "denied"))
    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", pool)
    serial = run(["check", "samples", "--format", "json", "--jobs", "1"])
    asked = run(["check", "samples", "--format", "json", "--jobs", "2"])
    assert (asked.code, asked.out) == (serial.code, serial.out)
    assert asked.err.count("cannot start worker processes") == 1 and "checking in one process" in asked.err
    # "auto" with enough files to want a second process falls back without a word
    monkeypatch.setattr("ctxlint.cli_settings.FILES_PER_PROCESS", 10)
    monkeypatch.setattr("ctxlint.cli_settings.available_cpus", lambda: 2)
    auto = run(["check", "samples", "--format", "json"])
    assert (auto.code, auto.out, auto.err) == (serial.code, serial.out, serial.err)
    assert pool.tries == 2  # --jobs 2 and auto tried; --jobs 1 never did


def test_every_format_and_the_audit_are_the_same_in_two_processes(in_repo, tmp_path):
    formats = ("json", "sarif", "github", "text", "gitlab", "junit")

    def outputs(jobs):
        folder = tmp_path / jobs
        folder.mkdir()
        args = [arg for f in formats for arg in ("--format", f, "-o", str(folder / f))]
        done = run(["check", *trees(), *args, "--statistics", "--jobs", jobs])
        return done.code, done.out, done.err, {f: (folder / f).read_text() for f in formats}

    assert outputs("2") == outputs("1")
    serial = run(["audit", *trees(), "--format", "json", "--jobs", "1"])
    parallel = run(["audit", *trees(), "--format", "json", "--jobs", "2"])
    assert (parallel.code, parallel.out, parallel.err) == (serial.code, serial.out, serial.err)


def test_auto_uses_the_cpus_for_a_big_run_only(monkeypatch):
    from ctxlint import cli_settings

    monkeypatch.delenv("PRE_COMMIT", raising=False)
    monkeypatch.setattr(cli_settings, "available_cpus", lambda: 8)
    per = cli_settings.FILES_PER_PROCESS
    assert [cli_settings.processes_for("auto", n) for n in (0, 1, 2 * per - 1, 2 * per, 3 * per, 100 * per)] == \
        [1, 1, 1, 2, 3, 8]
    assert cli_settings.processes_for(0, 1) == 8 and cli_settings.processes_for(3, 1) == 3
    monkeypatch.setenv("PRE_COMMIT", "1")  # pre-commit may run several of us at once: auto stays serial
    assert cli_settings.processes_for("auto", 100 * per) == 1
    assert cli_settings.processes_for(4, 1) == 4 and cli_settings.processes_for(0, 1) == 8  # as asked


def test_what_is_serial_before_discovery(monkeypatch, in_repo):
    from ctxlint.cli_settings import FILES_PER_PROCESS, serial_for_sure

    monkeypatch.delenv("PRE_COMMIT", raising=False)
    few = ["samples/incident/deployment.yaml", "-"]
    assert serial_for_sure("auto", few) and serial_for_sure(1, ["samples"])
    assert not serial_for_sure("auto", ["samples"])  # a directory may hold any number of files
    assert not serial_for_sure("auto", few * FILES_PER_PROCESS)
    assert not serial_for_sure(2, few) and serial_for_sure(0, few) == (cpus() == 1)
    monkeypatch.setenv("PRE_COMMIT", "1")
    assert serial_for_sure("auto", ["samples"]) and not serial_for_sure(2, ["samples"])


def cpus():
    from ctxlint.cli_settings import available_cpus

    return available_cpus()


def test_cpus_are_the_affinity_mask(monkeypatch):
    from ctxlint.cli_settings import available_cpus

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {3, 5}, raising=False)
    assert available_cpus() == 2  # a container limited to two CPUs of a larger machine
    monkeypatch.delattr(os, "sched_getaffinity", raising=False)  # macOS, Windows
    monkeypatch.setattr(os, "cpu_count", lambda: 6)
    assert available_cpus() == 6


def _two_directories(tmp_path, config):
    for name in ("incident", "derived-pool"):
        (tmp_path / name).mkdir()
        for source in (ROOT / "samples" / name).glob("*.yaml"):
            (tmp_path / name / source.name).write_bytes(source.read_bytes())
    (tmp_path / ".ctxlint.yaml").write_text(config)
    (tmp_path / ".git").mkdir()  # the config search stops here
    return str(tmp_path)


ROOT = __import__("pathlib").Path(__file__).resolve().parents[1]


def test_the_configs_jobs_and_pre_commit(tmp_path, monkeypatch):
    import concurrent.futures

    monkeypatch.delenv("PRE_COMMIT", raising=False)
    tree = _two_directories(tmp_path, "jobs: 2\n")
    pool = _NoProcesses(PermissionError(1, "denied"))
    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", pool)
    from_config = run(["check", tree, "--format", "json"])
    assert pool.tries == 1 and "cannot start worker processes" in from_config.err  # asked for by the config
    serial = run(["check", tree, "--format", "json", "--jobs", "1"])  # the flag wins over the config
    assert pool.tries == 1 and (serial.code, serial.out) == (from_config.code, from_config.out)
    (tmp_path / ".ctxlint.yaml").write_text("jobs: auto\n")
    monkeypatch.setattr("ctxlint.cli_settings.FILES_PER_PROCESS", 1)
    monkeypatch.setattr("ctxlint.cli_settings.available_cpus", lambda: 2)
    monkeypatch.setenv("PRE_COMMIT", "1")
    assert run(["check", tree, "--format", "json"]).out == serial.out and pool.tries == 1  # serial under pre-commit
    run(["check", tree, "--format", "json", "-j", "2"])
    assert pool.tries == 2  # unless --jobs says otherwise
    monkeypatch.delenv("PRE_COMMIT")
    run(["check", tree, "--format", "json"])
    assert pool.tries == 3  # auto: 2 CPUs, enough files


@pytest.mark.parametrize("value", ["-1", "many", "true", "1.5"])
def test_a_bad_jobs_in_the_config_is_a_located_error(tmp_path, value):
    tree = _two_directories(tmp_path, f"fail-on: error\njobs: {value}\n")
    done = run(["check", tree])
    assert done.code == 2 and ".ctxlint.yaml:2:7" in done.err
    assert "is neither a number of processes (0 or more) nor 'auto'" in done.err


ORPHAN_RUN = """
import os, sys, time
from ctxlint import parallel
from ctxlint.engine import Settings

def _hang(*args, **kwargs):  # a worker busy with a chunk when the parent is killed
    sys.stdout.write(f"{os.getpid()}\\n")
    sys.stdout.flush()
    time.sleep(60)

parallel._check_chunk = _hang  # forked workers inherit the patch
parallel.lint_paths_parallel(["samples"], Settings(), jobs=2)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forked workers (start_method) on Linux only")
def test_workers_end_with_a_killed_parent(in_repo):
    """`kill PID`, a wrapper's subprocess timeout or the OOM killer end the parent only: its workers must not live on
    (they held on to a chunk, or waited for one forever)."""
    import signal
    import subprocess
    import time

    parent = subprocess.Popen([sys.executable, "-c", ORPHAN_RUN], stdout=subprocess.PIPE, text=True)
    try:
        worker = int(parent.stdout.readline())
    finally:
        parent.send_signal(signal.SIGKILL)
        parent.wait()
    deadline = time.monotonic() + 10
    while _alive(worker) and time.monotonic() < deadline:
        time.sleep(0.1)
    alive = _alive(worker)
    if alive:
        os.kill(worker, signal.SIGKILL)
    assert not alive, "a worker outlived its parent"


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie nobody reaps has ended
    except OSError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forked workers (start_method) on Linux only")
def test_workers_leave_ctrl_c_to_the_parent():
    """Ctrl-C reaches every process of the terminal's group: a worker waiting for a chunk printed a traceback of its
    own before the parent's "Aborted!". The parent stops the run; a worker ignores it."""
    import multiprocessing
    import signal
    from concurrent.futures import ProcessPoolExecutor

    from ctxlint import parallel

    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork"), initializer=parallel._adopt_classes,
                             initargs=(None, os.getpid())) as pool:
        assert pool.submit(signal.getsignal, signal.SIGINT).result() == signal.SIG_IGN


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="workers fork on Linux only")
def test_workers_fork_only_from_a_pool_that_starts_them_all_first(monkeypatch):
    """A ProcessPoolExecutor from before CPython's fix for gh-90622 (python/cpython#91598; the 3.10 backport is
    #92497) forks each worker on demand at a submit, after its manager thread has started: a fork from a process
    with a thread, which may deadlock the child. Such a pool has no `_launch_processes`; its workers are spawned."""
    from concurrent.futures.process import ProcessPoolExecutor

    from ctxlint.parallel import start_method

    assert start_method() == "fork"
    monkeypatch.delattr(ProcessPoolExecutor, "_launch_processes")
    assert start_method() == "spawn"


def test_windows_pools_stay_within_its_limit(tmp_path, monkeypatch):
    """ProcessPoolExecutor refuses more than 61 workers on Windows (ValueError, concurrent/futures/process.py's
    _MAX_WINDOWS_WORKERS): a run on a machine with more CPUs uses 61 workers, not a traceback."""
    import concurrent.futures

    for index in range(80):
        (tmp_path / f"d{index:02d}").mkdir()
        (tmp_path / f"d{index:02d}" / "deployment.yaml").write_bytes((ROOT / "samples" / "incident" /
                                                                      "deployment.yaml").read_bytes())
    asked = []

    def pool(max_workers, **kwargs):
        asked.append(max_workers)
        raise PermissionError(1, "denied")  # then the parent checks everything

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", pool)
    monkeypatch.setattr(sys, "platform", "win32")
    lint_paths_parallel([str(tmp_path)], jobs=100)
    assert asked == [61]


def test_a_number_in_the_config_applies_under_pre_commit_too_as_the_docs_say(tmp_path, monkeypatch):
    import concurrent.futures

    monkeypatch.setenv("PRE_COMMIT", "1")
    tree = _two_directories(tmp_path, "jobs: 2\n")
    pool = _NoProcesses(PermissionError(1, "denied"))
    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", pool)
    run(["check", tree, "--format", "json"])
    assert pool.tries == 1  # only "auto" stays serial under pre-commit
    readme, changelog = (" ".join((ROOT / name).read_text(encoding="utf-8").split())
                         for name in ("README.md", "CHANGELOG.md"))
    said = "unless `--jobs` or the config's `jobs`"
    assert readme.count(said) == 2 and said in changelog and "(`PRE_COMMIT=1`) unless `--jobs` is given" not in readme
