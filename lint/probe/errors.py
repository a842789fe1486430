"""The probe's one error type: a bad target or setting, reported with exit code 2."""
from __future__ import annotations


class ProbeError(ValueError):
    """The probe cannot run as asked (unreachable or refused target, unreadable manifest)."""
