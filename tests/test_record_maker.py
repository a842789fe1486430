"""records.maker: the instance a record class's __init__ would give, built without calling the class."""
from __future__ import annotations

import importlib
import pkgutil

import pytest

import ctxlint
from ctxlint import nodes
from ctxlint.model import Source
from ctxlint.records import field, fields, maker, record, replace
from ctxlint.records import _MISSING


def _records():
    for info in pkgutil.walk_packages(ctxlint.__path__, "ctxlint."):
        if ".probe" in info.name or info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if isinstance(value, type) and "__record_fields__" in vars(value) and value.__module__ == module.__name__:
                yield value


RECORDS = sorted(set(_records()), key=lambda c: (c.__module__, c.__qualname__))


def test_every_record_class_is_built_by_its_maker_as_by_its_init():
    built = 0
    for cls in RECORDS:
        try:
            make = maker(cls)
        except TypeError:  # an __init__ of its own or a __post_init__: no maker
            assert "__init__" in vars(cls) and not vars(cls).get("__record_init__") or hasattr(cls, "__post_init__")
            continue
        required = [f.name for f in fields(cls) if f.init and f.default is _MISSING and f.default_factory is _MISSING]
        args = [object() for _ in required]
        a, b = make(*args), cls(*args)
        assert type(a) is cls and list(vars(a).items()) == list(vars(b).items()), cls  # same fields, same order
        for name, value in vars(a).items():  # a factory default is a new object each time, as __init__'s
            if isinstance(value, (list, dict, set)):
                assert value is not vars(make(*args))[name]
        assert make(*args, **{f.name: "x" for f in fields(cls) if f.init and f.name not in required}) == \
            cls(*args, **{f.name: "x" for f in fields(cls) if f.init and f.name not in required})
        built += 1
    assert built > 60


def test_a_made_source_is_the_source():
    made = maker(Source)("a.yaml", 3, 4, "spec.x")
    assert made == Source("a.yaml", 3, 4, "spec.x") and hash(made) == hash(Source("a.yaml", 3, 4, "spec.x"))
    assert replace(made, line=5) == Source("a.yaml", 5, 4, "spec.x")
    with pytest.raises(TypeError):
        maker(Source)("a.yaml", 3)
    with pytest.raises(Exception):
        made.line = 1  # frozen, as any Source


def test_no_maker_for_a_class_with_a_post_init():
    @record
    class Later:
        x: int = 0
        seen: list = field(default_factory=list)

        def __post_init__(self) -> None:
            self.seen.append(self.x)

    with pytest.raises(TypeError):
        maker(Later)


def test_positions_are_made_sources():
    from ctxlint.loader import parse_text

    root = parse_text("a:\n  b: [1, 'x']\n", "d.yaml").documents[0].root
    assert root.dig("a", "b", 1).source("d.yaml") == Source("d.yaml", 2, 10, "a.b[1]", 2, 13)
    assert nodes._make_source is not None


def test_words_as_typed_are_made_tokens():
    from ctxlint.engines import tokens
    from ctxlint.engines.tokens import Token, typed

    made = typed("abc", 2)
    assert made == Token("abc", 0, 3, (0, 1, 2), (1, 2, 3), (), 2) and list(vars(made)) == [f.name for f in fields(Token)]
    assert tokens._make_token is not None
