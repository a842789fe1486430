"""A file's bytes, read the cheap way, and the encoding they are in.

`read_regular` reads a regular file with bare os.read calls (file_reader.py stats it first), and
`BOMS` and `sniff_bomless` name the encoding of a text from its byte-order mark or, without one,
from the null pattern of its first character. They know nothing of YAML or of findings, which is
why they sit apart from file_reader.py, whose `_decode` turns what they say into text or a parse error.
"""
from __future__ import annotations

import codecs
import os
from typing import Optional

BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"),
)

# O_NONBLOCK: the stat said a regular file; if a FIFO replaced it since, opening must not wait for a writer.
READ_FLAGS = os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_NONBLOCK", 0)


def read_regular(path: str, size: int, max_bytes: int) -> bytes:
    """A regular file's bytes, read with os.read: up to its size + 1 (asking for its own size rather
    than the limit, since a read allocates what it asks for first), and, when it grew since the
    stat, on up to the limit + 1, so that parse_bytes still refuses it. A buffered file object cost
    about as much again in syscalls (fstat, ioctl) and objects as the reading itself."""
    fd = os.open(path, READ_FLAGS)
    try:
        chunks, total, want = [], 0, size + 1
        while total < want:
            chunk = os.read(fd, want - total)
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > size:
                want = max(want, max_bytes + 1)
        return b"".join(chunks)
    finally:
        os.close(fd)


def sniff_bomless(data: bytes) -> Optional[str]:
    """UTF-16/32 without a BOM, by the null pattern of a first ASCII character (YAML 1.2, 5.2)."""
    head = data[:4]
    if len(head) == 4 and head[:3] == b"\0\0\0" and head[3]:
        return "utf-32-be"
    if len(head) == 4 and head[0] and head[1:] == b"\0\0\0":
        return "utf-32-le"
    if len(head) >= 2 and not head[0] and head[1] and not data[2:4:2].strip(b"\0"):
        return "utf-16-be"
    if len(head) >= 2 and head[0] and not head[1] and not data[3:4].strip(b"\0"):
        return "utf-16-le"
    return None
