"""Engine command lines: shell splitting with spans, engine detection, flag specs, parsing."""
from __future__ import annotations
