"""Known engine defects (lint/data/advisories.json): which versions, which configurations.

The data names each defect's engine, affected version ranges, the first fixed
release and a small declarative trigger (evaluated in ctxlint.rules._advisories)
so that adding an advisory is a data change, not a code change.
"""
from __future__ import annotations

import json
import os
from functools import lru_cache
from typing import Any, Mapping, Optional, Tuple

from ctxlint.versions import Version, in_range

from .records import record

DATA = os.path.join(os.path.dirname(__file__), "data", "advisories.json")  # a str: pathlib is not imported
SCHEMA = os.path.join(os.path.dirname(__file__), "data", "advisories.schema.json")


@record(frozen=True)
class Advisory:
    id: str
    title: str
    engine: str
    affected: Tuple[Tuple[Optional[str], Optional[str]], ...]  # (introduced, fixed), fixed exclusive
    fixed_in: Optional[str]
    fixed_in_confirmed: bool
    severity: str
    trigger: Mapping[str, Any]
    impact: str
    remedy: str
    version_evidence: str
    references: Tuple[str, ...]

    def affects(self, version: Version) -> bool:
        return any(in_range(version, low, high) for low, high in self.affected)

    def ranges(self) -> str:
        """The affected ranges for messages: '< 0.5.22', '>= 0.8.0 (no fixed release known)'."""
        parts = []
        for low, high in self.affected:
            bounds = [f">= {low}" if low else "", f"< {high}" if high else ""]
            parts.append(", ".join(b for b in bounds if b) or "all versions")
        return " or ".join(parts)

    def fix(self) -> str:
        if not self.fixed_in:
            return "no fixed release known"
        if not self.fixed_in_confirmed:
            return f"fixed in {self.fixed_in}, not confirmed upstream"
        return f"fixed in {self.fixed_in}"


@lru_cache(maxsize=None)
def load_advisories() -> Tuple[Advisory, ...]:
    with open(DATA, encoding="utf-8") as handle:
        data = json.load(handle)
    return tuple(Advisory(
        id=a["id"], title=a["title"], engine=a["engine"],
        affected=tuple((r["introduced"], r["fixed"]) for r in a["affected"]),
        fixed_in=a["fixed_in"], fixed_in_confirmed=a["fixed_in_confirmed"], severity=a["severity"], trigger=a["trigger"], impact=a["impact"],
        remedy=a["remedy"], version_evidence=a["version_evidence"], references=tuple(a["references"]),
    ) for a in data["advisories"])
