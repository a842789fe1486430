"""`record`: a dataclass that costs almost nothing to define.

ctxlint defines ~80 record classes, and `dataclasses.dataclass` compiles up to six methods for
each with `exec` as the module is imported (~0.6 ms a class), and importing `dataclasses` itself
pulls in inspect, ast, dis and tokenize: most of a one-file run's import time (issue 15).
`record` takes the same arguments and gives the same behaviour without either:

- fields are collected from the class's annotations as `dataclass` collects them, by
  record_fields.py into its specs; `field()`, `fields()` and `replace()` come from there, and the
  dataclasses module's own functions still work on records through a `__dataclass_fields__`
  built on first access;
- `__eq__`, `__hash__`, the ordering methods and `__repr__` are shared code over an
  `operator.attrgetter` of the compared fields: the same tuples `dataclass` compares and hashes,
  so results, hashes and reprs are identical;
- a frozen record's `__setattr__` / `__delattr__` are two shared functions;
- `__init__` binds its arguments in plain Python for a class's first HOT instances, then is
  compiled from the text `dataclass` would generate: a run compiles only its busiest classes.

What `dataclass` would reject at definition (a field without a default after one with a
default, a mutable default) `record` rejects at definition too.
"""
from __future__ import annotations

from operator import attrgetter

from .record_fields import MISSING as _MISSING
from .record_fields import check_order, collect_fields, field, fields, replace

__all__ = ["record", "is_frozen", "field", "fields", "replace", "values_getter", "maker"]

_FROZEN = "__record_frozen__"


def record(cls=None, /, *, frozen: bool = False, order: bool = False):
    """`@record`, `@record(frozen=True)`, `@record(frozen=True, order=True)`: as `@dataclass`
    with the same arguments (eq is always on)."""
    def wrap(klass):
        return _process(klass, frozen, order)
    return wrap if cls is None else wrap(cls)


def is_frozen(cls: type) -> bool:
    """Whether instances of `cls` (a record class) are immutable."""
    return bool(cls.__dict__.get(_FROZEN, False))


def _process(cls, frozen: bool, order: bool):
    own = set(cls.__dict__)
    # The explicit hash test `dataclass` makes, taken before it touches the class: a body that
    # defines __eq__ gets __hash__ = None from Python, which is not an explicit hash.
    class_hash = cls.__dict__.get("__hash__", _MISSING)
    explicit_hash = not (class_hash is _MISSING or (class_hash is None and "__eq__" in own))
    specs = collect_fields(cls)
    setattr(cls, _FROZEN, frozen)
    check_order(cls, specs)
    if "__init__" not in own:
        cls.__init__ = _lazy_init(cls, specs, frozen)
        cls.__record_init__ = True  # record_fields.replace copies such records without calling it
    if "__repr__" not in own:
        cls.__repr__ = _repr([f.name for f in specs if f.repr])
    key = values_getter([f.name for f in specs if f.compare])
    if "__eq__" not in own:
        cls.__eq__ = _compare(key, tuple.__eq__)
    if order:
        for name, op in (("__lt__", tuple.__lt__), ("__le__", tuple.__le__),
                         ("__gt__", tuple.__gt__), ("__ge__", tuple.__ge__)):
            if name in own:
                raise TypeError(f"Cannot overwrite attribute {name} in class {cls.__name__}. "
                                "Consider using functools.total_ordering")
            setattr(cls, name, _compare(key, op))
    if frozen:
        cls.__setattr__ = _frozen_setattr
        cls.__delattr__ = _frozen_delattr
    if not explicit_hash:  # dataclass's table for eq=True, unsafe_hash=False
        cls.__hash__ = (lambda self: hash(key(self))) if frozen else None
    return cls


def values_getter(names):
    """A function giving (obj.a, obj.b, ...) for these attribute names: with the compared fields,
    the tuple `dataclass` compares and hashes (memo.py keys records by all their fields with it)."""
    if not names:
        return lambda obj: ()
    if len(names) == 1:
        name = names[0]
        return lambda obj: (getattr(obj, name),)
    return attrgetter(*names)


def _compare(key, op):
    def method(self, other):
        if other.__class__ is self.__class__:
            return op(key(self), key(other))
        return NotImplemented
    return method


def _repr(names):
    def __repr__(self):
        parts = ", ".join(f"{name}={getattr(self, name)!r}" for name in names)
        return f"{self.__class__.__qualname__}({parts})"
    return __repr__


def _frozen_setattr(self, name, value):
    from dataclasses import FrozenInstanceError  # an error path: no import for the runs that never take it

    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_delattr(self, name):
    from dataclasses import FrozenInstanceError

    raise FrozenInstanceError(f"cannot delete field {name!r}")


class _Factory:
    """The default of a parameter whose field has a default_factory."""
    def __repr__(self) -> str:
        return "<factory>"


_HAS_FACTORY = _Factory()


# Instantiations after which a class gets its compiled __init__. A one-file run builds most
# classes a few times (compiling each would cost ~0.13 ms: 34 classes, ~4.5 ms); a tree run
# builds the hot ones thousands of times, where the compiled __init__ is ~3x faster.
HOT = 64


def _lazy_init(cls, specs, frozen: bool):
    """An __init__ that binds arguments itself for the class's first HOT instances, then
    compiles the one `dataclass` would generate and hands over to it."""
    names = tuple(f.name for f in specs if f.init)
    known = frozenset(names)
    steps = tuple((f.name, f.init, f.default, f.default_factory) for f in specs)
    setter = object.__setattr__ if frozen else setattr
    post = hasattr(cls, "__post_init__")
    calls = 0
    compiled = None  # not `cls.__init__ is __init__`: a function naming itself is a cycle, freed only by the GC
    plan = None  # _bind_plan's, on the first call (the class is whole by then); () when it does not apply

    def __init__(self, *args, **kwargs):
        nonlocal calls, compiled, plan
        calls += 1
        if calls > HOT:
            if compiled is None:  # once: later calls go to the compiled one
                compiled = cls.__init__ = _compile_init(cls, specs, frozen)
            return compiled(self, *args, **kwargs)
        if plan is None:
            plan = _bind_plan(cls, specs, frozen)
        if plan and len(args) <= len(names):
            # The fields' values in one dict copied in C (a record is built ~340 bytecodes cheaper than by the loop
            # below, ~3,800 times in a run's first-seen files): the template holds every stored field in field
            # order, and an update keeps a key's place, so the instance dict is filled in the order the compiled
            # __init__ (and the loop below) assigns. Anything unusual (an unknown or repeated keyword, a required
            # field not given by keyword when some positional ones are) takes the loop, which raises as before.
            template, required, factories = plan
            if kwargs.keys() <= known and (not args or kwargs.keys().isdisjoint(names[:len(args)])) and (
                    kwargs.keys() >= required if not args else len(args) >= len(required)):
                values = template.copy()
                if args:
                    values.update(zip(names, args))
                if kwargs:
                    values.update(kwargs)
                for name, factory in factories:  # in field order, as the compiled __init__ calls them
                    if values[name] is _HAS_FACTORY:
                        values[name] = factory()
                self.__dict__.update(values)
                if post:
                    self.__post_init__()
                return
        if len(args) > len(names):
            raise TypeError(f"{cls.__qualname__}.__init__() takes {len(names) + 1} positional arguments "
                            f"but {len(args) + 1} were given")
        given = dict(zip(names, args))
        for key, value in kwargs.items():
            if key not in known:
                raise TypeError(f"{cls.__qualname__}.__init__() got an unexpected keyword argument {key!r}")
            if key in given:
                raise TypeError(f"{cls.__qualname__}.__init__() got multiple values for argument {key!r}")
            given[key] = value
        for name, init, default, factory in steps:  # in field order, as the compiled one assigns
            if init and name in given:
                value = given[name]
            elif factory is not _MISSING:
                value = factory()
            elif default is not _MISSING:
                value = default
            elif init:
                raise TypeError(f"{cls.__qualname__}.__init__() missing 1 required positional argument: {name!r}")
            else:
                continue
            setter(self, name, value)
        if post:
            self.__post_init__()
    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    return __init__


def _bind_plan(cls, specs, frozen: bool) -> tuple:
    """(a dict of every stored field in field order: its default, _HAS_FACTORY for a factory's, _MISSING for a required
    one; the required fields' names; (name, factory) of the factory fields) for _lazy_init's dict fill, or () when the
    loop must bind: an instance without a __dict__, a field name that is a data descriptor (a slot, a property), a
    non-frozen class with a __setattr__ of its own (assigning through the dict is then not what `self.x = v` does)."""
    if cls.__dictoffset__ == 0 or any(hasattr(type(getattr(cls, f.name, None)), "__set__") for f in specs):
        return ()
    if not frozen and cls.__setattr__ is not object.__setattr__:
        return ()
    template: dict = {}
    required, factories = [], []
    for f in specs:
        if f.default_factory is not _MISSING:
            template[f.name] = _HAS_FACTORY
            factories.append((f.name, f.default_factory))
        elif f.default is not _MISSING:
            template[f.name] = f.default
        elif f.init:
            template[f.name] = _MISSING
            required.append(f.name)
    # the required init fields come first (_check_order): given positionally, len(args) >= len(required) covers them
    names = [f.name for f in specs if f.init]
    if names[:len(required)] != required:
        return ()
    return template, frozenset(required), tuple(factories)


def _compile_init(cls, specs, frozen: bool, make: bool = False):
    """The __init__ `dataclass` would generate: same parameters, defaults, factories,
    assignment (object.__setattr__ when frozen) and __post_init__ call."""
    scope = {"__object_setattr": object.__setattr__, "__has_factory": _HAS_FACTORY}
    params, body = ["self"], []
    # A frozen instance is filled through its __dict__ when that is what object.__setattr__ would
    # do (the instance has a __dict__, no field's name is a data descriptor such as a slot): the
    # same dict, ~2.5x faster, and a run builds ~300 frozen records a file.
    direct = frozen and cls.__dictoffset__ != 0 and not any(
        hasattr(type(getattr(cls, f.name, None)), "__set__") for f in specs)
    for f in specs:
        value = f.name
        if f.init:
            if f.default_factory is not _MISSING:
                scope[f"__factory_{f.name}"] = f.default_factory
                params.append(f"{f.name}=__has_factory")
                value = f"{_made(f)} if {f.name} is __has_factory else {f.name}"
            elif f.default is not _MISSING:
                scope[f"__default_{f.name}"] = f.default
                params.append(f"{f.name}=__default_{f.name}")
            else:
                params.append(f.name)
        elif f.default_factory is not _MISSING:
            scope[f"__factory_{f.name}"] = f.default_factory
            value = _made(f)
        elif f.default is not _MISSING:
            scope[f"__default_{f.name}"] = f.default
            value = f"__default_{f.name}"
        else:
            continue
        body.append(f"__dict[{f.name!r}] = {value}" if direct else
                    f"__object_setattr(self, {f.name!r}, {value})" if frozen else f"self.{f.name} = {value}")
    if direct and body:
        body.insert(0, "__dict = self.__dict__")
    if hasattr(cls, "__post_init__"):
        body.append("self.__post_init__()")
    if make:  # the same body on a new instance, returned (maker)
        scope.update(__new=object.__new__, __cls=cls)
        params, body = params[1:], ["self = __new(__cls)", *body, "return self"]
    name = "make" if make else "__init__"
    text = f"def {name}({', '.join(params)}):\n    " + ("\n    ".join(body) or "pass") + "\n"
    namespace: dict = {}
    exec(text, scope, namespace)  # noqa: S102 - generated from the class's own field names
    init = namespace[name]
    init.__qualname__ = f"{cls.__qualname__}.{name}"
    return init


def maker(cls):
    """A function taking __init__'s arguments that builds an instance of the record class `cls` as its compiled
    __init__ does, without calling the class: a class call runs the Python __init__ in an interpreter loop of its
    own (type.__call__, then slot_tp_init), ~700 instructions a record where a function call is inlined. For the
    hot sites of a few classes (a value's Source, a word's Token); a class with a __post_init__ or an __init__ of
    its own has none."""
    if "__init__" in cls.__dict__ and not cls.__dict__.get("__record_init__") or hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__qualname__}: no maker for a class with its own __init__ or a __post_init__")
    return _compile_init(cls, list(cls.__record_fields__.values()), is_frozen(cls), make=True)


def _made(f) -> str:
    """The expression that makes a factory field's default: a new empty list or dict as a display (`[]`, `{}`:
    the same new object as `list()` and `dict()`, without a call), any other factory called."""
    return "[]" if f.default_factory is list else "{}" if f.default_factory is dict else f"__factory_{f.name}()"
