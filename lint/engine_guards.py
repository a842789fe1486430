"""What guards a run of the engine: an exception of ctxlint's own becomes an InternalError naming the
file (`blame`), and the garbage collector runs less often while files are checked
(`fewer_collections`). Apart from engine.py to keep it under 300 lines; engine re-exports
InternalError, its public name."""
from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator


class InternalError(RuntimeError):
    """A bug in ctxlint while checking a file: reported with the file, exit 2."""


@contextmanager
def fewer_collections() -> Iterator[None]:
    """Run the cyclic garbage collector less often during a run.

    Each YAML node allocates several objects, so with CPython's default threshold (700)
    the collector ran every few nodes, and its older generations rescanned every Node,
    Deployment and Finding still held: ~15-20% of a 1,000-file run. A young collection
    scans every young object (a directory's nodes are alive while it is checked): at
    50,000 it still took ~0.8 s of a 10,000-file run in 25 collections, at 200,000 ~0.2 s
    in 2, for ~8 MiB more at the peak. Nothing here relies on prompt collection of cycles;
    memory stays bounded (a collection still runs every 200,000 net allocations).
    """
    import gc

    old = gc.get_threshold()
    gc.set_threshold(max(old[0], 200_000), max(old[1], 50), max(old[2], 100))
    try:
        yield
    finally:
        gc.set_threshold(*old)


class blame:
    """`with blame(path):` turns an exception of ctxlint's own (a bug) into an InternalError that
    names the file, instead of a traceback. A class, not @contextmanager: entered ~4 times a file,
    and a generator-based manager cost ~2 us each time."""

    __slots__ = ("path",)

    def __init__(self, path: str) -> None:
        self.path = path

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: Any, exc: Any, traceback: Any) -> bool:
        if isinstance(exc, Exception):
            raise InternalError(f"internal error while checking {self.path}: {type(exc).__name__}: {exc}") from exc
        return False
