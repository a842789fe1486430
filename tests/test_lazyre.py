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


def _stand_ins_given_to_re_functions(source: str) -> list:
    """Calls such as `re.sub(_PATTERN, ...)` whose pattern is a module-level lazy_compile stand-in."""
    import ast

    tree = ast.parse(source)
    lazy = {target.id for node in tree.body if isinstance(node, (ast.Assign, ast.AnnAssign))
            for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
            if isinstance(target, ast.Name) and isinstance(node.value, ast.Call)
            and getattr(node.value.func, "id", None) == "lazy_compile"}
    return [f"line {call.lineno}: re.{call.func.attr}({call.args[0].id}, ...)" for call in ast.walk(tree)
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
            and getattr(call.func.value, "id", None) == "re" and call.args
            and isinstance(call.args[0], ast.Name) and call.args[0].id in lazy]


def test_no_stand_in_is_given_to_a_module_level_re_function():
    # re.sub, re.match... accept compiled patterns and strings only: a stand-in there raises TypeError
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    found = {str(path.relative_to(root)): bad for path in sorted(root.glob("lint/**/*.py")) + sorted(
        root.glob("rules/**/*.py")) if (bad := _stand_ins_given_to_re_functions(path.read_text(encoding="utf-8")))}
    assert found == {}


def test_the_scan_finds_a_stand_in_given_to_re():
    source = "import re\nfrom ctxlint.lazyre import lazy_compile\n_P = lazy_compile('a')\nre.sub(_P, 'b', 'c')\n"
    assert _stand_ins_given_to_re_functions(source) == ["line 4: re.sub(_P, ...)"]
    with pytest.raises(TypeError):
        re.sub(lazy_compile("a"), "b", "c")
