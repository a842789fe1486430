"""The CTX301 text an adapter gives a value the engine's parser refuses (refusal), and whether that refusal is a
warning (unsure). Apart from engine_roles because only an invocation with such a value asks: the adapters import
it inside their `for problem in inv.errors` loops, so a run that meets no refused value never loads it (issue 15)."""
from __future__ import annotations

from typing import Optional

from ctxlint.engines import Problem


def refusal(engine: str, release: Optional[str], problem: Problem, below: Optional[str] = None,
            unknown: Optional[str] = None) -> Optional[str]:
    """The CTX301 text for a value the engine's parser refuses, or None when this release reads it
    (a value refused only from some release on, Problem.since, or before one, Problem.until; unknown release:
    said so). `below`: a release the unknown one is known to be before (images.release_below: a fork's line),
    so a value refused only from it on is read. `unknown`: why the unknown release need not be the newest
    (release_unknown.why_unknown), said after the refusal (unsure() then makes it a warning)."""
    refused = problem.refused_by(release)
    if refused is None and below is not None and problem.since is not None and problem.until is None:
        from ctxlint.versions import parse_version
        since, cap = parse_version(problem.since), parse_version(below)
        if since is not None and cap is not None and since >= cap:
            return None
    if refused is False or refused is None and problem.until:
        # a value only releases before `until` refuse is read by the newest, which an unpinned image runs: with the
        # release unknown it is no error (uncertainty does not make one), as CTX109 leaves llama.cpp's release caps
        return None
    if refused is None:
        who = f"{engine} {problem.since} and later"
        if unknown is not None:
            return (f"{who} would {problem.effect or 'refuse to start'}: {problem.message}. Which {engine} release "
                    f"runs is unknown: {unknown}; a release before {problem.since} takes it, so this is a warning "
                    f"(the image's {engine} version says which; with that release pinned ctxlint can tell)")
    else:  # a release that refuses only what it dropped or changed: named
        who = f"{engine} {release}" if problem.since is not None or problem.until is not None else engine
    return f"{who} would {problem.effect or 'refuse to start'}: {problem.message}"


def unsure(release: Optional[str], problem: Problem, unknown: Optional[str]) -> bool:
    """A refusal that holds only for some releases, at a release that cannot be known and need not be the newest
    (refusal's `unknown`): CTX301 reports it as a warning."""
    return release is None and unknown is not None and problem.refused_by(None) is None
