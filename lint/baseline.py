"""Baselines: accept today's findings, fail only on new ones.

An entry is keyed by rule, file (relative, posix), logical path, deployment and
a fingerprint of the offending value's text, never by line number, so adding a
comment or a key above a finding does not turn it into a "new" one. Entries
carry counts: with 1 baselined and 2 identical findings now, 1 is new, so a new
problem cannot hide behind an old one with the same key.

    {"version": 1, "tool": "ctxlint", "entries": [{"rule": "CTX101", "name": ..., "file": ...,
     "path": ..., "deployment": ..., "fingerprint": "sha256:...", "count": 1}, ...]}

Entries are sorted and the JSON is written with sorted keys, for stable diffs.
"""
from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from ctxlint.atomic_write import write_atomically
from ctxlint.findings import Finding
from ctxlint.globs import relative_posix
from ctxlint.lazyre import lazy_compile
from ctxlint.lines import split_lines

VERSION = 1
TOOL = "ctxlint"
DEFAULT_FILE = ".ctxlint-baseline.json"
ValueReader = Callable[[Finding], Optional[str]]  # the offending value's text, None if unknown
Key = Tuple[str, str, str, str, str]  # rule, file, path, deployment, fingerprint
_COMMENT = lazy_compile(r"(^|\s)#.*$")


class BaselineError(ValueError):
    """An unreadable or invalid baseline file (a usage error, exit 2)."""


# --- value text and keys --------------------------------------------------------------------------

def text_reader(texts: Mapping[str, str]) -> ValueReader:
    """Read values from in-memory file texts keyed like `Finding.file` (e.g. LoadedFile.text)."""
    return lambda finding: _slice(texts.get(finding.file), finding)


def file_reader() -> ValueReader:
    """Read values from the files on disk (each file read once)."""
    cache: Dict[str, Optional[str]] = {}

    def read(finding: Finding) -> Optional[str]:
        if finding.file not in cache:
            try:
                with open(finding.file, encoding="utf-8-sig") as fh:
                    cache[finding.file] = fh.read()
            except (OSError, UnicodeDecodeError):
                cache[finding.file] = None
        return _slice(cache[finding.file], finding)
    return read


def _slice(text: Optional[str], finding: Finding) -> Optional[str]:
    if text is None or finding.line < 1:
        return None
    lines = split_lines(text)
    if finding.line > len(lines):
        return None
    start = max(finding.column - 1, 0)
    end_line = finding.end_line or finding.line
    if end_line == finding.line:
        line = lines[finding.line - 1]
        if finding.end_column > finding.column:
            return line[start:finding.end_column - 1]
        return _COMMENT.sub("", line[start:])
    chunk = [lines[finding.line - 1][start:]] + lines[finding.line:end_line - 1]
    if end_line <= len(lines):
        chunk.append(lines[end_line - 1][:max(finding.end_column - 1, 0)])
    return "\n".join(_COMMENT.sub("", part) for part in chunk)


def normalize(value: str) -> str:
    """Whitespace and the quoting style do not change what a value says."""
    value = " ".join(value.split())
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        value = value[1:-1]
    return value


def fingerprint(finding: Finding, read_value: Optional[ValueReader] = None) -> str:
    text = read_value(finding) if read_value else None
    return "sha256:" + hashlib.sha256(normalize(text or "").encode("utf-8")).hexdigest()


def _file_key(file: str, root: Optional[str]) -> str:
    if file in ("-", "") or file.startswith("<"):
        return file
    rel = relative_posix(file, root or os.getcwd())
    return rel if rel is not None else file.replace(os.sep, "/")


def key(finding: Finding, read_value: Optional[ValueReader] = None, root: Optional[str] = None) -> Key:
    return (finding.rule, _file_key(finding.file, root), finding.path, finding.deployment or "",
            fingerprint(finding, read_value))


def _entry_key(entry: Mapping[str, Any]) -> Key:
    return (entry["rule"], entry["file"], entry.get("path", ""), entry.get("deployment") or "",
            entry["fingerprint"])


# --- building, applying, maintaining --------------------------------------------------------------

def create(findings: Iterable[Finding], read_value: Optional[ValueReader] = None,
           root: Optional[str] = None) -> Dict[str, Any]:
    """A baseline accepting exactly `findings`."""
    counts: Counter = Counter()
    names: Dict[Key, str] = {}
    for finding in findings:
        k = key(finding, read_value, root)
        counts[k] += 1
        names[k] = finding.name
    return _document(_entry(k, n, names.get(k, "")) for k, n in counts.items())


def _entry(k: Key, count: int, name: str, extra: Optional[Mapping[str, Any]] = None) -> Dict[str, Any]:
    entry = dict(extra or {})
    entry.update(rule=k[0], name=name or entry.get("name", ""), file=k[1], path=k[2],
                 deployment=k[3] or None, fingerprint=k[4], count=count)
    return entry


def _document(entries: Iterable[Dict[str, Any]]) -> Dict[str, Any]:
    ordered = sorted(entries, key=lambda e: (e["file"], e["rule"], e["path"], e["deployment"] or "",
                                             e["fingerprint"]))
    return {"version": VERSION, "tool": TOOL, "entries": ordered}


def apply(findings: Sequence[Finding], baseline: Mapping[str, Any], read_value: Optional[ValueReader] = None,
          root: Optional[str] = None) -> Tuple[List[Finding], int, int]:
    """(new findings, how many matched the baseline, how many baselined ones are fixed)."""
    allowance: Counter = Counter()
    for entry in baseline.get("entries", []):
        allowance[_entry_key(entry)] += int(entry.get("count", 1))
    remaining = Counter(allowance)
    new: List[Finding] = []
    matched = 0
    for finding in sorted(findings):  # deterministic: the later duplicates are the new ones
        k = key(finding, read_value, root)
        if remaining[k] > 0:
            remaining[k] -= 1
            matched += 1
        else:
            new.append(finding)
    fixed = sum(n for n in remaining.values() if n > 0)
    return new, matched, fixed


def update(baseline: Mapping[str, Any], findings: Iterable[Finding], read_value: Optional[ValueReader] = None,
           root: Optional[str] = None) -> Dict[str, Any]:
    """Accept the current findings: add new entries, set counts to today's, drop fixed ones.

    Extra fields a team added to an entry (e.g. a "note") are kept.
    """
    current = create(findings, read_value, root)
    old = {_entry_key(e): e for e in baseline.get("entries", [])}
    return _document(_entry(_entry_key(e), e["count"], e["name"], old.get(_entry_key(e)))
                     for e in current["entries"])


def prune(baseline: Mapping[str, Any], findings: Iterable[Finding], read_value: Optional[ValueReader] = None,
          root: Optional[str] = None) -> Dict[str, Any]:
    """Drop what no longer matches: counts only go down, entries are only removed, never added."""
    counts: Counter = Counter(key(f, read_value, root) for f in findings)
    kept = []
    for entry in baseline.get("entries", []):
        k = _entry_key(entry)
        still = min(int(entry.get("count", 1)), counts[k])
        counts[k] -= still  # two entries with one key share today's findings, not double-count them
        if still > 0:
            kept.append(dict(entry, count=still))
    return _document(kept)


# --- files ----------------------------------------------------------------------------------------

def load(path: str) -> Dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except FileNotFoundError:
        raise BaselineError(f"baseline file does not exist: {path} (create it with `ctxlint baseline create`)") \
            from None
    except (OSError, UnicodeDecodeError) as exc:
        raise BaselineError(f"cannot read baseline {path}: {exc}") from None
    except json.JSONDecodeError as exc:
        raise BaselineError(f"{path}:{exc.lineno}:{exc.colno}: invalid JSON in baseline: {exc.msg}") from None
    if not isinstance(data, dict) or data.get("tool") != TOOL:
        raise BaselineError(f"{path}: not a ctxlint baseline (expected \"tool\": \"{TOOL}\")")
    if data.get("version") != VERSION:
        raise BaselineError(f"{path}: baseline version {data.get('version')!r} is not supported "
                            f"(this ctxlint reads version {VERSION}); recreate it")
    entries = data.get("entries")
    required = ("rule", "file", "fingerprint")
    if not isinstance(entries, list) or not all(
            isinstance(e, dict) and all(isinstance(e.get(f), str) for f in required)
            and isinstance(e.get("count", 1), int) and e.get("count", 1) >= 1 for e in entries):
        raise BaselineError(f"{path}: malformed baseline entries (each needs rule, file, fingerprint "
                            "and a positive count)")
    return data


def write(path: str, data: Mapping[str, Any]) -> None:
    """Write atomically: a reader (or a crash) never sees half a baseline. Raises OutputError."""
    text = json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    write_atomically(path, lambda fh: fh.write(text), newline="\n", fsync=True)
