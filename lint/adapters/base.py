"""What every adapter returns."""
from __future__ import annotations

from typing import List

from ctxlint.findings import Diagnostic
from ctxlint.model import Deployment
from ctxlint.routes import BodyLimit, Route, Service

from ..records import field, record


@record
class AdaptResult:
    deployments: List[Deployment] = field(default_factory=list)
    diagnostics: List[Diagnostic] = field(default_factory=list)
    # The stack in front of the engines (ctxlint.routes): joined to deployments in ctxlint.stack.
    routes: List[Route] = field(default_factory=list)
    services: List[Service] = field(default_factory=list)
    body_limits: List[BodyLimit] = field(default_factory=list)
    # script files a deployment here runs as its container's command (compose_scripts): none of their own
    scripts: List[str] = field(default_factory=list)
    # Dockerfiles a compose service here builds its image from and reads (compose_build): no CTX011 of their own
    dockerfiles: List[str] = field(default_factory=list)

    def extend(self, other: "AdaptResult") -> None:
        self.deployments.extend(other.deployments)
        self.diagnostics.extend(other.diagnostics)
        self.routes.extend(other.routes)
        self.services.extend(other.services)
        self.body_limits.extend(other.body_limits)
        self.scripts.extend(other.scripts)
        self.dockerfiles.extend(other.dockerfiles)
