"""Mechanical fixes: `ctxlint check --fix` writes them, `--diff` shows them.

A fix (findings.Fix) respells the text of its finding's own span as the engine accepts it with
the same meaning: SGLang's refused `128K` as `128Ki`, a switch given `=false` as its `--no-`
spelling (engines.suffixes.suffix_fix, engines.flag_values.switch_fix). Nothing here decides a
capacity: a window, a pool or a memory fraction is never changed. A fix is applied only where
the file still holds its `old` text at the reported span, on one line, so a quoted, escaped or
since-edited value is left as it is rather than guessed at. Applying the fixes of a fixed file
finds nothing more to do.
"""
from __future__ import annotations

import os
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from ctxlint.findings import Finding
from ctxlint.lines import split_lines
from ctxlint.versions import parse_version

from .records import record

# vLLM read `--x=false` for its boolean settings (StoreBoolean, nargs "?") until they became
# BooleanOptionalAction switches, and only since then has `--no-x`: a fix to a `--no-` spelling is
# certain only on a release known to have them. 0.9.2 is one (`--no-enable-chunked-prefill` parsed,
# vllm#20914 and vllm#21645); earlier or unknown vLLM releases get no such fix.
NEGATIVES_SINCE = {"vllm": "0.9.2"}


def spelling_exists(engine: str, version: Optional[str], spelling: str) -> bool:
    """Whether the engine release surely accepts a fix's `--no-x` spelling (other fixes: True)."""
    if not spelling.startswith("--no-") or engine not in NEGATIVES_SINCE:
        return True
    parsed = parse_version(version) if version else None
    return parsed is not None and parsed >= parse_version(NEGATIVES_SINCE[engine])


@record(frozen=True)
class FileFix:
    path: str
    before: str
    after: str
    applied: int  # findings fixed in this file

    def diff(self) -> str:
        import difflib  # only --diff prints one

        return "".join(difflib.unified_diff(split_lines(self.before, keepends=True),
                                            split_lines(self.after, keepends=True),
                                            f"a/{self.path}", f"b/{self.path}"))


def fixable(findings: Iterable[Finding]) -> Dict[str, List[Finding]]:
    """Findings with a fix on a single line, by file."""
    by_file: Dict[str, List[Finding]] = {}
    for finding in findings:
        if finding.fix is not None and finding.file != "-" and finding.end_line in (0, finding.line):
            by_file.setdefault(finding.file, []).append(finding)
    return by_file


def apply_to_text(text: str, findings: Sequence[Finding]) -> Tuple[str, int]:
    """`text` with every fix whose span still holds its old text replaced; (new text, fixes applied)."""
    bom = "\ufeff" if text.startswith("\ufeff") else ""  # the loader counts columns after a byte-order mark
    lines = split_lines(text[len(bom):], keepends=True)
    applied, leftmost = 0, {}  # line index -> start of the leftmost edit made (edits go right to left)
    edits = sorted({(f.line, f.column, f.end_column or f.column + len(f.fix.old), f.fix.old, f.fix.new)
                    for f in findings}, reverse=True)
    for line, column, end_column, old, new in edits:
        index, start, end = line - 1, column - 1, end_column - 1
        if not 0 <= index < len(lines) or lines[index][start:end] != old:
            continue  # the file does not hold what the engine read there: leave it
        if end > leftmost.get(index, end):
            continue  # overlaps an edit already made on this line
        lines[index] = lines[index][:start] + new + lines[index][end:]
        leftmost[index] = start
        applied += 1
    return bom + "".join(lines), applied


def plan(findings: Iterable[Finding]) -> List[FileFix]:
    """The fixed text of every file that has a fix that applies, in file order."""
    planned = []
    for path, found in sorted(fixable(findings).items()):
        try:
            with open(path, encoding="utf-8", newline="") as handle:
                before = handle.read()
        except (OSError, UnicodeDecodeError):
            continue  # unreadable now: the check already said what it could
        after, applied = apply_to_text(before, found)
        if applied:
            planned.append(FileFix(path, before, after, applied))
    return planned


def write(fixed: FileFix) -> None:
    """Replace the file atomically, keeping its permission bits."""
    mode = os.stat(fixed.path).st_mode & 0o7777
    import tempfile  # only --fix writes; tempfile imports shutil, random, bz2, lzma (~6 ms)

    handle, temp = tempfile.mkstemp(prefix=".ctxlint-fix-", dir=os.path.dirname(os.path.abspath(fixed.path)))
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as stream:
            stream.write(fixed.after)
        os.chmod(temp, mode)
        os.replace(temp, fixed.path)
    except BaseException:
        if os.path.exists(temp):
            os.unlink(temp)
        raise
