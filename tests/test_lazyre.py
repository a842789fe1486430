"""ctxlint.lazyre: module-level patterns compiled on first use, and behaving as compiled ones."""
from __future__ import annotations

import copy
import importlib
import pickle
import pkgutil
import re

import pytest

import ctxlint
from ctxlint.lazyre import LazyPattern, lazy_compile

CASES = [(r"(\d+)([kKmM]?)", 0, "a 128k b 64M"), (r"^ab+$", re.M, "x\nabb\nab"), (r"\s+", 0, "a  b\tc")]


@pytest.mark.parametrize("pattern, flags, text", CASES)
def test_a_lazy_pattern_answers_as_the_compiled_one(pattern, flags, text):
    lazy, real = lazy_compile(pattern, flags), re.compile(pattern, flags)
    assert "match" not in vars(lazy)  # nothing compiled before a use
    assert [m.span() for m in lazy.finditer(text)] == [m.span() for m in real.finditer(text)]
    assert "match" in vars(lazy)  # the compiled pattern's methods are kept on the stand-in
    assert lazy.findall(text) == real.findall(text) and lazy.split(text) == real.split(text)
    assert lazy.sub("_", text) == real.sub("_", text) and lazy.subn("_", text) == real.subn("_", text)
    assert (lazy.pattern, lazy.flags, lazy.groups, lazy.groupindex) == (real.pattern, real.flags, real.groups,
                                                                        real.groupindex)
    for method in ("match", "search", "fullmatch"):
        found, expected = getattr(lazy, method)(text), getattr(real, method)(text)
        assert (found and found.span()) == (expected and expected.span())


def test_a_lazy_pattern_copies_and_pickles_as_the_call_that_made_it():
    lazy = lazy_compile(r"x(\d)", re.I)
    for clone in (pickle.loads(pickle.dumps(lazy)), copy.deepcopy(lazy)):
        assert isinstance(clone, LazyPattern) and clone.match("X7").group(1) == "7"
    with pytest.raises(AttributeError):
        lazy.__no_such_special__  # noqa: B018 - special names are never delegated


def test_every_module_level_pattern_compiles():
    # a pattern's mistakes now show at its first use, not at import: every one is compiled here
    found = 0
    for module in pkgutil.walk_packages(ctxlint.__path__, "ctxlint."):
        if module.name.startswith("ctxlint.__main__"):
            continue
        loaded = importlib.import_module(module.name)
        for name, value in vars(loaded).items():
            if type(value) is LazyPattern and getattr(loaded, name) is value:
                value.search("")  # compiles
                found += 1
    assert found >= 60
