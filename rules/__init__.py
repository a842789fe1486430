"""The rule registry: every rule module, listed once, in ID order."""
if __name__ != "ctxlint.rules":  # the rules/ folder must only be imported as ctxlint.rules
    raise ImportError(f"import ctxlint.rules, not {__name__!r}")
