"""Check many files in several processes, with the same Report as one process.

Files are discovered once in the parent, cut into contiguous chunks in discovery
order, and each chunk is checked by `ctxlint.engine.lint_paths` in a worker (so
whatever the engine does per file, the workers do too). Chunk results are put
back in chunk order and the findings sorted exactly as `lint_paths` sorts them,
so the output does not depend on `jobs`, on chunk size or on which worker
finished first.

Workers are started with the "spawn" method on every platform: it is what macOS
and Windows use anyway, and it never forks a parent that holds threads or open
output streams. The worker entry point is a module-level function with
picklable arguments, as spawn requires.
"""
from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Callable, Collection, Dict, List, Optional, Sequence, Tuple

from .records import fields
from ctxlint.adapters.run_classes import RunClasses
from ctxlint.discover import by_directory, directory_of, files_to_check, size_limits
from ctxlint.engine import InternalError, Report, Settings, SettingsFor, lint_paths
from ctxlint.registry import selected

Progress = Callable[[int], None]  # called with the number of files just finished
MAX_CHUNK = 16  # small enough to spread uneven files over workers and to move a progress bar


def resolve_jobs(jobs: int) -> int:
    """--jobs 0 means one process per CPU."""
    return max(1, os.cpu_count() or 1) if jobs == 0 else max(1, jobs)


def chunked(files: Sequence[str], jobs: int) -> List[List[str]]:
    """Contiguous chunks, about four per worker so a slow chunk does not hold the rest up.

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


def lint_paths_parallel(paths: Sequence[str], settings: Settings = Settings(), jobs: int = 1,
                        stdin: Optional[bytes] = None, stdin_filename: str = "-",
                        progress: Optional[Progress] = None, settings_for: Optional[SettingsFor] = None) -> Report:
    """`lint_paths` over `jobs` processes (0 = one per CPU); the same Report for any `jobs`.

    Raises what `lint_paths` raises (PathError, SelectorError, InternalError) in the
    parent: paths and selectors are checked before any worker starts, and so is every
    file's config (`settings_for`, as in lint_paths): a broken one is the parent's error.
    """
    jobs = resolve_jobs(jobs)
    selected(settings.select, settings.ignore)  # a bad selector is a usage error, before forking
    skipped = Report()
    files = files_to_check(paths, settings, skipped, settings_for)
    chunks = chunked(files, jobs)
    # Files named one by one get sibling context (engine.lint_paths); a chunk's files are all
    # passed as paths, so say which of them were named.
    named = {p for p in paths if p != "-" and not os.path.isdir(p)}
    reports: List[Optional[Report]] = [None] * len(chunks)
    # Stdin was read by the parent, so a chunk holding "-" is checked here.
    remote = [i for i, chunk in enumerate(chunks) if "-" not in chunk]
    if jobs == 1 or len(remote) <= 1:
        remote = []  # one chunk of work: starting a process would only cost time
    local = set(range(len(chunks))) - set(remote)
    # A worker gets each of its directories' Settings, not the parent's cache of configs.
    placed = [None if settings_for is None else
              PerDirectory({directory_of(p): settings_for(p) for p in chunk}) for chunk in chunks]
    # The run's files, where a pod's GKE compute class is looked for: given to each worker once as it starts
    # (not pickled and filtered again for each chunk of 16), and read at most once a process
    piped = None if stdin is None else (stdin, stdin_filename)
    limits = size_limits(files, settings_for, stdin_filename)
    classes = RunClasses(files, settings.max_file_size, piped, limits)
    for index, chunk in enumerate(chunks):
        if index in local:
            reports[index] = _check_chunk(chunk, settings, stdin, stdin_filename, named, placed[index], classes)
            if progress:
                progress(len(chunk))
    if remote:
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=min(jobs, len(remote)), mp_context=context, initializer=_start_worker,
                                 initargs=(files, settings.max_file_size, piped, limits)) as pool:
            pending = {pool.submit(_check_chunk, chunks[i], settings, None, "-", named & set(chunks[i]), placed[i]): i
                       for i in remote}
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    index = pending.pop(future)
                    try:
                        reports[index] = future.result()  # re-raises a worker's exception here
                    except BrokenProcessPool as exc:  # a worker was killed (out of memory, a signal)
                        raise InternalError(f"a worker process died while checking {chunks[index][0]} "
                                            f"and {len(chunks[index]) - 1} more files ({exc}); "
                                            "try --jobs 1") from exc
                    if progress:
                        progress(len(chunks[index]))
    return merge_reports([skipped] + [r for r in reports if r is not None], settings.keep_deployments)


_WORKER_CLASSES: Optional[RunClasses] = None  # a worker process's run: its compute classes (_start_worker)


def _start_worker(files: List[str], max_bytes: int, stdin: Optional[Tuple[bytes, str]],
                  limits: Optional[Dict[str, int]] = None) -> None:
    global _WORKER_CLASSES
    _WORKER_CLASSES = RunClasses(files, max_bytes, stdin, limits)


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
