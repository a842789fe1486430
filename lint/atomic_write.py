"""Writing report, audit, baseline and lock files atomically, with the mode a plain
`open(path, "w")` would give.

A temporary file beside the target is renamed over it, so a reader (a CI artifact
uploader, a concurrent run) never sees half a file. `tempfile.mkstemp` creates
that file 0600, which the rename would carry over: the report would be unreadable
to other users and to uploaders that run as another user. So the file gets the
existing target's mode, else 0666 less the umask, before the rename.

A target that exists and is not a regular file (`-o /dev/null`, `/dev/stdout`, a named pipe) is written in
place: renaming a file over it would replace the device or pipe itself (as root, `-o /dev/null` left a regular
file at /dev/null for every later program), and a reader of a pipe wants the bytes, not a new directory entry.
"""
from __future__ import annotations

import os
import stat
import tempfile
from typing import Callable, TextIO


class OutputError(OSError):
    """The output file cannot be written; the message names the path and why."""


def _umask() -> int:
    # The only portable way to read the umask is to set it; set it straight back.
    mask = os.umask(0)
    os.umask(mask)
    return mask


def target_mode(path: str) -> int:
    """The permission bits a new file at `path` gets: the existing file's, else 0666 & ~umask."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        return 0o666 & ~_umask()


def write_atomically(path: str, write: Callable[[TextIO], None], newline: str = "", fsync: bool = False) -> None:
    """Call `write(stream)` on a temporary file beside `path`, then rename it over `path`.

    Raises OutputError (an OSError) with a readable message when the directory is
    missing or not writable, or `path` is a directory.
    """
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise OutputError(f"cannot write {path}: it is a directory")
    if not os.path.isdir(folder):
        raise OutputError(f"cannot write {path}: directory {os.path.dirname(path) or folder} does not exist")
    if _special(path):
        try:
            with open(path, "w", encoding="utf-8", newline=newline) as stream:
                write(stream)
        except OSError as exc:
            raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None
        return
    mode = target_mode(path)
    try:
        handle, temp = tempfile.mkstemp(prefix=".ctxlint-", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline=newline) as stream:
            write(stream)
            if fsync:
                stream.flush()
                os.fsync(stream.fileno())
        os.chmod(temp, mode)
        os.replace(temp, path)
    except OSError as exc:
        _discard(temp)
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None
    except BaseException:
        _discard(temp)
        raise


def _special(path: str) -> bool:
    """An existing target that is not a regular file (a device, a FIFO, a socket), its links followed."""
    try:
        return not stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def _discard(temp: str) -> None:
    try:
        os.unlink(temp)
    except OSError:
        pass
