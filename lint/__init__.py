"""ctxlint: a pre-launch linter for LLM serving deployments."""
if __name__ != "ctxlint":  # the lint/ folder must only be imported as ctxlint
    raise ImportError(f"import ctxlint, not {__name__!r}")

__version__ = "0.1.0"

from ctxlint import pyyaml as _first  # noqa: E402 - before any other module imports yaml (pyyaml.py says why)

del _first
