"""Check many files in several processes, with the same Report as one process.

Files are discovered once in the parent and cut into contiguous chunks in discovery order. With
N processes, N - 1 workers and the parent itself check the chunks: the parent has its imports and
memos warm, checks the chunks nobody has been handed yet from the back of the queue, and hands
the workers more from the front between its own. Each chunk is checked by
`ctxlint.engine.lint_paths` wherever it runs; results are put back in chunk order and the findings
sorted exactly as `lint_paths` sorts them, so the output does not depend on `jobs`, on chunk size
or on who checked which chunk.

On Linux the workers are forked from the parent after it has checked its first chunk, so they start
with its imports and first-seen work done (start_method). Elsewhere they are spawned (macOS, where
fork is unsafe; Windows), and the worker entry point is a module-level function with picklable
arguments, as spawn requires. multiprocessing is imported only when a worker is to start: a run
that stays in one process never loads it. Where no process can start (no POSIX semaphores, a
sandbox that forbids them), the parent checks every chunk.
"""
from __future__ import annotations

import os
import sys
from collections import deque
from typing import Any, Callable, Collection, Dict, List, Optional, Sequence, Tuple, Union

from .records import fields
from ctxlint.adapters.run_classes import RunClasses
from ctxlint.cli_settings import processes_for
from ctxlint.discover import by_directory, directory_of, files_to_check, size_limits
from ctxlint.engine import InternalError, Report, Settings, SettingsFor, lint_paths
from ctxlint.registry import selected

Progress = Callable[[int], None]  # called with the number of files just finished
Jobs = Union[int, str]  # a process count, 0 (one per CPU) or "auto" (cli_settings.processes_for)
# Small enough to spread uneven files over the processes and to move a progress bar; each chunk is a lint_paths
# call of its own, and on a tree of 4-file directories 16-file chunks cost ~20% more CPU than 64-file ones (median
# of 5 in-process runs over 2,000 files: 3.88 s against 3.15 s; one chunk for the whole run: 3.14 s)
MAX_CHUNK = 64
# What stops a pool from starting: no POSIX semaphores (/dev/shm), a sandbox that forbids new processes
# (PermissionError is an OSError), a platform without multiprocessing's C parts
_NO_POOL = (OSError, NotImplementedError, ImportError)
MAX_WINDOWS_WORKERS = 61  # concurrent.futures.process._MAX_WINDOWS_WORKERS (63 - 2), Python 3.9 to 3.13


def resolve_jobs(jobs: Jobs, files: int = 0) -> int:
    """The processes a run of `files` files uses (cli_settings.processes_for)."""
    return processes_for(jobs, files)


def chunked(files: Sequence[str], jobs: int) -> List[List[str]]:
    """Contiguous chunks, about four per process so a slow chunk does not hold the rest up.

    A directory's files stay in one chunk: the engine pairs prefill and decode halves
    across sibling files, so splitting a directory would change the findings.
    """
    size = max(1, min(MAX_CHUNK, -(-len(files) // (jobs * 4))))
    chunks: List[List[str]] = []
    for group in by_directory(files):
        if chunks and len(chunks[-1]) + len(group) <= size:
            chunks[-1].extend(group)
        else:
            chunks.append(list(group))
    return chunks


def lint_paths_parallel(paths: Sequence[str], settings: Settings = Settings(), jobs: Jobs = 1,
                        stdin: Optional[bytes] = None, stdin_filename: str = "-",
                        progress: Optional[Progress] = None, settings_for: Optional[SettingsFor] = None,
                        on_fallback: Optional[Callable[[str], None]] = None) -> Report:
    """`lint_paths` over up to `jobs` processes (the parent included; 0 = one per CPU, "auto" as
    cli_settings.processes_for rules); the same Report for any `jobs`.

    Raises what `lint_paths` raises (PathError, SelectorError, InternalError) in the
    parent: paths and selectors are checked before any worker starts, and so is every
    file's config (`settings_for`, as in lint_paths): a broken one is the parent's error.
    `on_fallback` is told why when no worker could start (the parent then checks every chunk).
    """
    selected(settings.select, settings.ignore)  # a bad selector is a usage error, before forking
    skipped = Report()
    files = files_to_check(paths, settings, skipped, settings_for)
    processes = resolve_jobs(jobs, len(files))
    chunks = chunked(files, processes)
    # Files named one by one get sibling context (engine.lint_paths); a chunk's files are all
    # passed as paths, so say which of them were named.
    named = {p for p in paths if p != "-" and not os.path.isdir(p)}
    piped = None if stdin is None else (stdin, stdin_filename)
    limits = size_limits(files, settings_for, stdin_filename)
    # The run's files, where a pod's GKE compute class is looked for: given to each worker once as it starts
    # (not pickled and filtered again for each chunk), and read at most once a process
    classes = RunClasses(files, settings.max_file_size, piped, limits)
    reports: List[Optional[Report]] = [None] * len(chunks)

    def here(index: int) -> None:
        reports[index] = lint_paths(chunks[index], settings, stdin=stdin, stdin_filename=stdin_filename,
                                    named=named & set(chunks[index]), settings_for=settings_for, run_files=classes)
        if progress:
            progress(len(chunks[index]))

    # Stdin was read by the parent, so a chunk holding "-" is checked here; the others may go to workers.
    shared = [i for i, chunk in enumerate(chunks) if "-" not in chunk]
    for index in sorted(set(range(len(chunks))) - set(shared)):
        here(index)
    workers = min(processes - 1, len(shared) - 1)  # the parent checks at least one chunk itself
    if sys.platform == "win32":  # ProcessPoolExecutor refuses more (ValueError; its _MAX_WINDOWS_WORKERS)
        workers = min(workers, MAX_WINDOWS_WORKERS)
    if workers >= 1:
        start = (files, settings.max_file_size, piped, limits, os.getpid())
        try:
            _share(chunks, shared, reports, here, workers, classes, start, settings, named, settings_for, progress)
        except _PoolUnavailable as exc:
            if on_fallback is not None:
                on_fallback(str(exc.__cause__ or exc))
    for index in shared:
        if reports[index] is None:  # no worker took it, or no worker could start
            here(index)
    return merge_reports([skipped] + [r for r in reports if r is not None], settings.keep_deployments)


class _PoolUnavailable(Exception):
    """No worker process could be started (the cause says why): the parent checks the chunks left."""


def _share(chunks: List[List[str]], shared: List[int], reports: List[Optional[Report]],
           here: Callable[[int], None], workers: int, classes: RunClasses, start: Tuple[Any, ...],
           settings: Settings, named: Collection[str], settings_for: Optional[SettingsFor],
           progress: Optional[Progress]) -> None:
    """Check the `shared` chunks with `workers` worker processes and the parent (`here`), each chunk once.

    A worker is handed one chunk at a time until its first result is back (it may take a second or more to start
    on a busy machine, and a chunk given to it early would wait there while the parent could check it), then two
    (one to check, one ready), while more chunks wait than the workers can take in one round; the parent checks
    the chunks nobody has been handed, from the back, and hands out more between its own."""
    waiting = deque(shared)  # chunks nobody has been handed yet
    try:
        import multiprocessing
        from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
        from concurrent.futures.process import BrokenProcessPool

        method = start_method()
    except _NO_POOL as exc:
        raise _PoolUnavailable() from exc
    initializer, initargs = _start_worker, start
    if method == "fork":
        here(waiting.pop())  # warm the parent first: each worker is a copy of it, imports and memos included
        _flush_std_streams()  # a forked worker flushes what it inherited as it ends
        initializer, initargs = _adopt_classes, (classes, os.getpid())
    try:
        pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context(method),
                                   initializer=initializer, initargs=initargs)
    except _NO_POOL as exc:
        raise _PoolUnavailable() from exc
    pending: Dict[Any, int] = {}  # future -> chunk
    state = {"warm": False, "stalled": False}

    def hand_out() -> None:
        ahead = 2 if state["warm"] and len(waiting) > 2 * workers else 1
        while waiting and len(pending) < ahead * workers and not state["stalled"]:
            index = waiting[0]
            # A worker gets each of its directories' Settings, not the parent's cache of configs.
            placed = None if settings_for is None else \
                PerDirectory({directory_of(p): settings_for(p) for p in chunks[index]})
            try:
                future = pool.submit(_check_chunk, chunks[index], settings, None, "-",
                                     named & set(chunks[index]), placed)
            except BrokenProcessPool:  # a worker died: the result of a chunk it was handed says where, below
                state["stalled"] = True
                return
            except _NO_POOL as exc:  # a submit starts the processes
                if not pending:
                    raise _PoolUnavailable() from exc
                state["stalled"] = True  # some started: they and the parent check the rest
                return
            pending[future] = waiting.popleft()

    try:
        hand_out()
        while waiting or pending:
            if waiting:
                here(waiting.pop())
                done = [future for future in pending if future.done()]
            else:
                done = list(wait(pending, return_when=FIRST_COMPLETED)[0])
            for future in done:
                index = pending.pop(future)
                try:
                    reports[index] = future.result()  # re-raises a worker's exception here
                except BrokenProcessPool as exc:  # a worker was killed (out of memory, a signal)
                    raise InternalError(f"a worker process died while checking {chunks[index][0]} "
                                        f"and {len(chunks[index]) - 1} more files ({exc}); "
                                        "try --jobs 1") from exc
                state["warm"] = True
                if progress:
                    progress(len(chunks[index]))
            hand_out()
    except BaseException:  # Ctrl-C, a worker's error: cancel the chunks no worker has begun (workers ignore SIGINT)
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


_WORKER_CLASSES: Optional[RunClasses] = None  # a worker process's run: its compute classes (_start_worker)


def start_method() -> str:
    """How workers start: forked from the (warm) parent on Linux, where fork is safe for a process that holds no
    thread (ctxlint's check starts none; the pool forks its workers before it starts its own threads): a copy of
    the parent after its first chunk has the imports and most first-seen work done, which a spawned worker does
    again (~0.2-0.5 s of CPU a forked worker against ~0.8-1.0 s a spawned one on the 1,000-file tree, issue 15's
    twenty-ninth pass). Spawned elsewhere (macOS, where fork is unsafe, and Windows, which has none)."""
    import multiprocessing
    from concurrent.futures.process import ProcessPoolExecutor

    # A pool from before CPython's fix for gh-90622 (python/cpython#91598) forks a worker at each submit, after its
    # manager thread has started (a fork from a process with a thread may deadlock the child); the fixed pool starts
    # every worker at the first submit, before the thread, and is the one with _launch_processes
    return "fork" if sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods() \
        and hasattr(ProcessPoolExecutor, "_launch_processes") else "spawn"


def _flush_std_streams() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (AttributeError, OSError, ValueError):
            pass


def _adopt_classes(classes: RunClasses, parent: Optional[int] = None) -> None:
    """A forked worker's run: the parent's RunClasses as it stood at the fork (what it read ahead included)."""
    global _WORKER_CLASSES
    _WORKER_CLASSES = classes
    _end_with(parent)


def _start_worker(files: List[str], max_bytes: int, stdin: Optional[Tuple[bytes, str]],
                  limits: Optional[Dict[str, int]] = None, parent: Optional[int] = None) -> None:
    global _WORKER_CLASSES
    _WORKER_CLASSES = RunClasses(files, max_bytes, stdin, limits)
    _end_with(parent)


PARENT_POLL = 0.5  # seconds between a worker's looks at its parent


def _end_with(parent: Optional[int]) -> None:
    """Leave Ctrl-C to the parent, and end this worker soon after its parent `parent` (a pid) ends. A worker waits
    for chunks on a pipe whose write end it holds itself, so a parent killed by a signal (`kill PID`, a wrapper's
    subprocess timeout, the OOM killer) would leave it waiting, or checking a chunk nobody reads, for ever: a daemon
    thread looks at the parent pid (which changes when the worker is re-parented, on POSIX) and ends the process
    when it does."""
    if parent is None:
        return
    import signal
    import threading
    import time

    # Ctrl-C reaches every process of the terminal's group: the parent stops the run (and says "Aborted!"); a worker
    # waiting for a chunk would print a KeyboardInterrupt traceback of its own
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL)
        os._exit(1)

    threading.Thread(target=watch, name="ctxlint-parent-watch", daemon=True).start()


def _check_chunk(files: List[str], settings: Settings, stdin: Optional[bytes] = None,
                 stdin_filename: str = "-", named: Collection[str] = (),
                 settings_for: Optional[SettingsFor] = None, everywhere: Optional[RunClasses] = None) -> Report:
    # `everywhere`: the whole run's compute classes (run_classes.run_files); a worker's own when not given
    return lint_paths(files, settings, stdin=stdin, stdin_filename=stdin_filename, named=set(named) & set(files),
                      settings_for=settings_for, run_files=everywhere if everywhere is not None else _WORKER_CLASSES)


class PerDirectory:
    """A chunk's Settings by directory, picklable for a spawned worker (pickle sends a Settings that
    several directories share once)."""

    def __init__(self, table: Dict[str, Settings]) -> None:
        self.table = table

    def __call__(self, path: str) -> Settings:
        return self.table[directory_of(path)]


def merge_reports(reports: Sequence[Report], per_deployment: bool = True) -> Report:
    """Concatenate every list field of the reports in order; sort findings as lint_paths does.

    Generic over Report's fields so that lists added to Report later (suppressed
    findings, ...) are merged too instead of silently dropped.
    """
    merged = Report()
    for field in fields(Report):
        values = [getattr(r, field.name) for r in reports]
        if all(isinstance(v, list) for v in values):
            setattr(merged, field.name, [item for value in values for item in value])
        elif all(isinstance(v, int) for v in values):
            setattr(merged, field.name, sum(values))  # counters (files excluded)
        elif values and any(v != values[0] for v in values):
            raise TypeError(f"cannot merge Report.{field.name}: not a list and differs between chunks")
        elif values:
            setattr(merged, field.name, values[0])
    merged.sort(per_deployment)
    return merged
