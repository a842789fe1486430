"""`record` behaves as `dataclass` with the same arguments: same equality, hashes, order,
reprs, immutability, defaults, factories and __post_init__, and the dataclasses helpers work."""
import dataclasses
import pickle
from typing import List, Optional, Tuple

import pytest

from conftest import REPO

from ctxlint import record_fields, records
from ctxlint.records import field, fields, is_frozen, record, replace


@pytest.fixture(autouse=True, params=[64, 0], ids=["binding __init__", "compiled __init__"])
def init_phase(request, monkeypatch):
    """Every test runs with the first instances' argument-binding __init__ and with the compiled one."""
    monkeypatch.setattr(records, "HOT", request.param)


def _pair(frozen: bool, order: bool = False):
    """The same class body as a record and as a dataclass."""
    def body(field):
        class Point:
            x: int
            y: float = 0.5
            tags: Tuple[str, ...] = ()
            notes: List[str] = field(default_factory=list)
            label: str = field(default="", compare=False)
            hidden: Optional[int] = field(default=None, repr=False)
        return Point
    return (record(frozen=frozen, order=order)(body(field)),
            dataclasses.dataclass(frozen=frozen, order=order)(body(dataclasses.field)))


@pytest.mark.parametrize("frozen", [True, False])
def test_same_values_reprs_and_equality_as_dataclass(frozen):
    ours, theirs = _pair(frozen)
    a, b = ours(1, 2.0, ("t",), ["n"], "l", 7), theirs(1, 2.0, ("t",), ["n"], "l", 7)
    assert repr(a) == repr(b) == "_pair.<locals>.body.<locals>.Point(x=1, y=2.0, tags=('t',), notes=['n'], label='l')"
    assert dataclasses.asdict(a) == dataclasses.asdict(b)
    assert [f.name for f in dataclasses.fields(a)] == [f.name for f in dataclasses.fields(b)]
    assert a == ours(1, 2.0, ("t",), ["n"], "other label", 7)     # label is compare=False
    assert a != ours(2, 2.0, ("t",), ["n"], "l", 7)
    assert a != b and (a == b) is False                              # other class: NotImplemented
    assert ours(3).notes is not ours(3).notes                        # a factory per instance
    assert ours(3) == ours(3, 0.5, (), [], "", None) and ours(3).y == theirs(3).y


def test_repr_is_dataclass_repr():
    ours, theirs = _pair(True)
    assert repr(ours(1, tags=("a",))) == repr(theirs(1, tags=("a",)))


def test_frozen_hash_matches_dataclass_and_assignment_raises():
    ours, theirs = _pair(True)
    a = ours(1, 2.0, ("t",), (), "l", 7)
    assert hash(a) == hash(theirs(1, 2.0, ("t",), (), "l", 7))
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.x = 2
    with pytest.raises(dataclasses.FrozenInstanceError):
        del a.x
    assert is_frozen(ours)
    assert dataclasses.replace(a, x=5).x == 5 and a.x == 1


def test_mutable_record_is_unhashable_and_assignable():
    ours, _ = _pair(False)
    a = ours(1)
    a.x = 4
    assert a.x == 4 and not is_frozen(ours)
    with pytest.raises(TypeError):
        hash(a)


def test_order_compares_the_compared_fields_as_dataclass_does():
    ours, theirs = _pair(True, order=True)
    values = [(2, 1.0), (1, 3.0), (1, 2.0), (2, 0.5)]
    assert [(p.x, p.y) for p in sorted(ours(*v) for v in values)] == \
           [(p.x, p.y) for p in sorted(theirs(*v) for v in values)]
    assert ours(1) < ours(2) and ours(2) >= ours(1) and ours(1) <= ours(1) and ours(3) > ours(2)
    with pytest.raises(TypeError):
        ours(1) < theirs(2)  # noqa: B015 - different classes do not order


@record(frozen=True)
class Sized:
    items: Tuple[int, ...]
    total: int = field(init=False, default=0)

    def __post_init__(self):
        object.__setattr__(self, "total", sum(self.items))


def test_post_init_non_init_fields_and_pickling():
    sized = Sized((1, 2, 3))
    assert sized.total == 6
    assert pickle.loads(pickle.dumps(sized)) == sized  # --jobs sends findings between processes


def test_own_methods_are_kept():
    @record(frozen=True)
    class Named:
        name: str

        def __repr__(self):
            return f"<{self.name}>"

        def __eq__(self, other):
            return isinstance(other, Named) and self.name.lower() == other.name.lower()

    assert repr(Named("a")) == "<a>" and Named("A") == Named("a")
    assert Named.__hash__ is not None  # frozen + eq: a hash over the fields, as dataclass gives


def test_field_order_error_at_definition_like_dataclass():
    with pytest.raises(TypeError, match="non-default argument 'b'"):
        @record
        class Bad:
            a: int = 1
            b: int


def test_wrong_arguments_fail_like_a_dataclass_init():
    ours, _ = _pair(True)
    with pytest.raises(TypeError):
        ours()
    with pytest.raises(TypeError):
        ours(1, nope=2)


def test_subclass_extends_fields():
    @record(frozen=True)
    class Base:
        a: int

    @record(frozen=True)
    class Child(Base):
        b: str = "x"

    assert Child(1) == Child(1, "x") and Child(1).a == 1
    assert repr(Child(2, "y")).endswith("Child(a=2, b='y')")


def test_field_defaults_become_class_attributes_and_mutable_defaults_are_refused():
    ours, theirs = _pair(True)
    assert ours.y == theirs.y == 0.5 and ours.label == theirs.label == ""
    assert "notes" not in ours.__dict__ and "notes" not in theirs.__dict__  # a factory leaves no attribute
    assert ours.__match_args__ == getattr(theirs, "__match_args__", ours.__match_args__)  # dataclass: 3.10+
    assert dataclasses.is_dataclass(ours) and dataclasses.is_dataclass(ours(1))
    with pytest.raises(ValueError, match="mutable default"):
        @record
        class Bad:
            items: list = []  # noqa: RUF012 - the point of the test


def test_class_variables_are_refused_rather_than_misread():
    with pytest.raises(TypeError, match="ClassVar"):
        @record
        class Counter:
            total: "ClassVar[int]" = 0  # noqa: F821 - a string annotation, never evaluated


def test_a_class_switches_to_the_compiled_init_and_builds_the_same_objects():
    ours, theirs = _pair(True)
    made = [ours(i, float(i), (str(i),), [i], "l", i) for i in range(records.HOT + 5)]
    assert [dataclasses.astuple(m) for m in made] == \
           [dataclasses.astuple(theirs(i, float(i), (str(i),), [i], "l", i)) for i in range(records.HOT + 5)]
    assert ours.__init__.__code__.co_varnames[:7] == ("self", "x", "y", "tags", "notes", "label", "hidden")


def test_records_own_fields_and_replace_without_the_dataclasses_module():
    ours, theirs = _pair(True)
    assert [f.name for f in fields(ours)] == [f.name for f in dataclasses.fields(theirs)]
    a = ours(1, tags=("t",))
    assert replace(a, x=2) == ours(2, tags=("t",)) and replace(a) == a
    with pytest.raises(TypeError):
        replace(theirs(1))  # not a record
    with pytest.raises(TypeError):
        replace(a, nope=1)
    assert Sized((1,)).total == 1
    with pytest.raises(ValueError, match="init=False"):
        replace(Sized((1,)), total=3)


def test_a_plain_run_never_imports_dataclasses():
    import subprocess
    import sys
    code = ("import sys; from ctxlint.engine import Settings, lint_paths\n"
            "lint_paths([sys.argv[1]], Settings())\n"
            "print('dataclasses' in sys.modules)")
    sample = str(__import__("pathlib").Path(__file__).resolve().parents[1] / "samples" / "incident")
    out = subprocess.run([sys.executable, "-c", code, sample], capture_output=True, text=True)
    assert out.stdout.strip() == "False", out.stderr


def _by_init(obj, **changes):
    """replace() as dataclasses defines it: every init field given to the class's own __init__."""
    return type(obj)(**{**{f.name: getattr(obj, f.name) for f in fields(obj) if f.init}, **changes})


@pytest.mark.parametrize("frozen", [True, False])
def test_replace_copies_a_plain_record_exactly_as_its_init_would_build_it(frozen):
    ours, _ = _pair(frozen)
    a = ours(1, tags=("t",), notes=["n"])
    a.__dict__["extra"] = "not a field"  # e.g. a value cached on the instance: never copied
    for changes in ({}, {"x": 2}, {"notes": [], "hidden": 3}, {"label": "l", "y": 1.5, "x": 0}):
        made, expected = replace(a, **changes), _by_init(a, **changes)
        assert type(made) is ours and list(made.__dict__.items()) == list(expected.__dict__.items())
    assert replace(a).notes is a.notes  # values are shared, as dataclasses.replace shares them
    assert record_fields._PLAIN[ours]  # the copy, not __init__, made them


def test_replace_calls_init_for_records_that_need_it():
    @record(frozen=True)
    class Checked:
        x: int

        def __post_init__(self):
            object.__setattr__(self, "double", 2 * self.x)

    @record
    class Guarded:
        x: int

        def __setattr__(self, name, value):
            object.__setattr__(self, name, value + 1 if name == "x" else value)

    @record
    class Own:
        x: int

        def __init__(self, x):
            self.x = x * 10

    assert replace(Checked(1), x=4).double == 8 and replace(Guarded(1), x=4).x == 5 and replace(Own(1), x=4).x == 40
    assert replace(Sized((1, 2)), items=(3,)).total == 3  # an init=False field is built again
    for cls in (Checked, Guarded, Own, Sized):
        assert record_fields._PLAIN[cls] == ()


def test_replace_of_every_record_a_run_builds_is_what_init_builds():
    import gc

    from ctxlint.engine import Settings, lint_paths

    report = lint_paths([str(p) for p in sorted((REPO / "samples").rglob("*.yaml"))],
                        Settings(keep_deployments=True))
    seen = {}
    for obj in gc.get_objects():
        if getattr(type(obj), "__record_fields__", None) is not None and type(obj) not in seen:
            seen[type(obj)] = obj
    assert len(seen) > 30 and report.findings
    for cls, obj in seen.items():
        init = [f.name for f in fields(obj) if f.init]
        for changes in ({}, {init[0]: getattr(obj, init[-1])} if init else {}):
            try:
                expected = _by_init(obj, **changes)
            except Exception as exc:  # what init refuses, replace refuses alike
                with pytest.raises(type(exc)):
                    replace(obj, **changes)
                continue
            made = replace(obj, **changes)
            assert type(made) is cls and list(made.__dict__.items()) == list(expected.__dict__.items()), cls


@pytest.mark.parametrize("frozen", [True, False])
def test_replace_copies_the_whole_dict_only_when_it_holds_the_fields_in_their_order(frozen):
    # the instance dict copied in C when it is exactly the fields in field order; a dict in another order
    # (a field deleted and set again) or with more keys is read field by field, as __init__ would store them
    ours, _ = _pair(frozen)
    plain = ours(1, tags=("t",), notes=["n"])
    shuffled = ours(1, tags=("t",), notes=["n"])
    value = shuffled.__dict__.pop("x")
    shuffled.__dict__["x"] = value
    assert list(shuffled.__dict__) != list(plain.__dict__)
    for a in (plain, shuffled):
        for changes in ({}, {"x": 2}, {"notes": [], "label": "l"}):
            made, expected = replace(a, **changes), _by_init(a, **changes)
            assert list(made.__dict__.items()) == list(expected.__dict__.items())


@pytest.mark.parametrize("frozen", [True, False])
def test_list_and_dict_factories_make_a_new_empty_object_each_as_the_factory_would(frozen):
    # the compiled __init__ writes `[]` and `{}` for list and dict factories, and calls any other factory
    @record(frozen=frozen)
    class Bag:
        items: List[int] = field(default_factory=list)
        table: dict = field(default_factory=dict)
        kept: set = field(default_factory=set)
        later: List[int] = field(default_factory=list, init=False)

    @dataclasses.dataclass(frozen=frozen)
    class Theirs:
        items: List[int] = dataclasses.field(default_factory=list)
        table: dict = dataclasses.field(default_factory=dict)
        kept: set = dataclasses.field(default_factory=set)
        later: List[int] = dataclasses.field(default_factory=list, init=False)

    made = [Bag() for _ in range(records.HOT + 5)] + [Bag([1], {"a": 1})]  # the last ones by the compiled one
    assert Bag.__init__.__code__.co_varnames[:3] == ("self", "items", "table")
    for a, b in zip(made, made[1:]):
        assert a.items is not b.items and a.table is not b.table and a.kept is not b.kept and a.later is not b.later
    for m in made:
        assert type(m.items) is list and type(m.table) is dict and type(m.kept) is set and type(m.later) is list
        assert list(m.__dict__.items()) == list(Theirs(m.items, m.table, m.kept).__dict__.items())


def _shapes():
    """Record classes of every shape the binding __init__ handles: required and defaulted fields, factories
    (list, dict, others), init=False fields with and without defaults, a __post_init__, frozen or not."""
    def made():
        return {"made": 1}

    @record(frozen=True)
    class Frozen:
        a: int
        b: str
        c: float = 1.5
        d: tuple = ()
        e: list = field(default_factory=list)
        f: dict = field(default_factory=made)
        g: int = field(default=7, init=False)
        h: list = field(default_factory=dict, init=False)

    @record
    class Plain:
        a: int
        b: Optional[int] = None
        c: list = field(default_factory=list)
        d: str = field(default="x", init=False)

    @record(frozen=True)
    class Post:
        a: int
        b: int = 2

        def __post_init__(self):
            object.__setattr__(self, "total", self.a + self.b)

    @record(frozen=True)
    class Defaults:
        a: int = 1
        b: int = 2
    return Frozen, Plain, Post, Defaults


_CALLS = [((1, "s"), {}), ((), {"a": 1, "b": "s"}), ((), {"b": "s", "a": 1}), ((1,), {"b": "s"}),
          ((1, "s", 2.5), {"e": [1]}), ((), {"f": {}, "b": "t", "a": 3, "c": 0.0}), ((1, "s", 2.0, (1,), [2], {3: 4}), {}),
          ((), {"a": 1}), ((1, 2, 3, 4, 5, 6, 7), {}), ((1,), {"a": 2, "b": "s"}), ((), {"a": 1, "b": 2, "g": 3}),
          ((), {"a": 1, "b": 2, "zz": 3}), ((), {}), ((1,), {}), ((), {"b": 2}), ((1, 2), {"c": 3, "b": 4})]


def _outcome(cls, args, kwargs):
    try:
        obj = cls(*args, **kwargs)
    except TypeError as exc:
        return "error", str(exc)
    return "made", list(vars(obj).items())


def test_binding_init_fills_the_instance_as_the_compiled_one(monkeypatch):
    """The first instances' __init__ (a dict of defaults updated with the arguments) leaves the same instance
    dict, keys in the same order, and raises where the compiled __init__ raises, for every call shape."""
    for position in range(4):
        monkeypatch.setattr(records, "HOT", 1 << 30)
        bound = [[_outcome(_shapes()[position], a, k) for a, k in _CALLS] for _ in range(2)]
        monkeypatch.setattr(records, "HOT", 0)
        compiled = [_outcome(_shapes()[position], a, k) for a, k in _CALLS]
        assert bound[0] == bound[1]
        # the errors' texts are the argument-binding loop's, as before (the compiled one words one differently)
        assert [o if o[0] == "made" else o[0] for o in bound[0]] == [o if o[0] == "made" else o[0] for o in compiled]
    made = [outcome for outcome in compiled if outcome[0] == "made"]
    assert made  # the shapes are built by some calls


def test_binding_init_leaves_factories_fresh(monkeypatch):
    monkeypatch.setattr(records, "HOT", 1 << 30)
    frozen = _shapes()[0]
    one, two = frozen(1, "s"), frozen(1, "s")
    assert one.e is not two.e and one.f is not two.f and one.h is not two.h and one.f == {"made": 1}
