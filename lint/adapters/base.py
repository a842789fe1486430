"""What every adapter returns."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import List

from ctxlint.findings import Diagnostic
from ctxlint.model import Deployment


@dataclass
class AdaptResult:
    deployments: List[Deployment] = field(default_factory=list)
    diagnostics: List[Diagnostic] = field(default_factory=list)

    def extend(self, other: "AdaptResult") -> None:
        self.deployments.extend(other.deployments)
        self.diagnostics.extend(other.diagnostics)
