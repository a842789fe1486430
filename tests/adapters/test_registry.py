"""Every adapter module is registered: a new input format is one module plus one line."""
from __future__ import annotations

import importlib
import pkgutil

import ctxlint.adapters as adapters


def test_every_module_with_adapt_is_in_ADAPTERS():
    found = set()
    for info in pkgutil.iter_modules(adapters.__path__):
        module = importlib.import_module(f"ctxlint.adapters.{info.name}")
        if callable(getattr(module, "adapt", None)):
            found.add(module.__name__)
    registered = {m.__name__ for m in adapters.ADAPTERS}
    assert found == registered, f"not registered: {sorted(found - registered)}"
    assert all(isinstance(getattr(m, "NAME", None), str) and m.NAME for m in adapters.ADAPTERS)
    assert adapters.ADAPTERS[0].__name__ == "ctxlint.adapters.native"  # the native manifest is read first
