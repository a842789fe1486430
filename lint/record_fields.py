"""A record's fields, collected from its class as `dataclass` collects them, and `field()`, `fields()`,
`replace()` for records, without the dataclasses module.

`import dataclasses` imports inspect (with ast, dis and tokenize): ~7 ms of a ~80 ms one-file
run (issue 15). Records keep their field specs here; the dataclasses module's own functions
still work on them: `__dataclass_fields__` is built, with real `dataclasses.Field` objects,
the first time something (a test, `dataclasses.asdict`) asks for it.
"""
from __future__ import annotations

from typing import Any, Dict, Tuple


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()  # no default (dataclasses.MISSING's role)


class Field:
    """What `dataclasses.Field` holds for a record: name, annotation, default or factory, and
    whether the field is a parameter of __init__, shown by repr and compared."""
    __slots__ = ("name", "type", "default", "default_factory", "init", "repr", "compare")

    def __init__(self, default: Any, default_factory: Any, init: bool, repr: bool, compare: bool) -> None:
        self.name: str = ""
        self.type: Any = None
        self.default, self.default_factory = default, default_factory
        self.init, self.repr, self.compare = init, repr, compare


def field(*, default: Any = MISSING, default_factory: Any = MISSING, init: bool = True, repr: bool = True,
          compare: bool = True) -> Any:
    """As `dataclasses.field`, for records."""
    if default is not MISSING and default_factory is not MISSING:
        raise ValueError("cannot specify both default and default_factory")
    return Field(default, default_factory, init, repr, compare)


def collect_fields(cls) -> list:
    """The fields `dataclass` would collect, as ctxlint.records.record makes a class: the bases' first, then
    this class's annotations. Done here rather than by dataclass(init=False, ...): that still costs ~0.05 ms
    a class, most of it matching each string annotation against ClassVar and InitVar, and imports inspect."""
    found: dict = {}
    for base in cls.__mro__[-1:0:-1]:
        found.update(base.__dict__.get("__record_fields__") or {})
    for name, annotation in cls.__dict__.get("__annotations__", {}).items():
        text = annotation if isinstance(annotation, str) else repr(annotation)
        if text.replace("typing.", "").startswith(("ClassVar", "InitVar", "dataclasses.InitVar", "KW_ONLY")):
            raise TypeError(f"{cls.__qualname__}.{name}: record does not support {text}; use @dataclass")
        default = getattr(cls, name, MISSING)
        if type(default).__module__ == "dataclasses":
            raise TypeError(f"{cls.__qualname__}.{name}: use ctxlint.records.field, not dataclasses.field")
        spec = default if isinstance(default, Field) else field(default=default)
        spec.name, spec.type = name, annotation
        if spec.default is not MISSING and spec.default.__class__.__hash__ is None:
            raise ValueError(f"mutable default {type(spec.default)} for field {name} is not allowed: "
                             "use default_factory")
        if spec is default:  # a field(...) in the body: the class attribute becomes its default
            if spec.default is MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, spec.default)
        found[name] = spec
    cls.__record_fields__ = found
    cls.__dataclass_fields__ = DataclassFields()
    cls.__match_args__ = tuple(f.name for f in found.values() if f.init)
    return list(found.values())


def check_order(cls, specs) -> None:
    """What `dataclass` rejects at definition: an __init__ field without a default after one with a default."""
    seen_default = False
    for f in specs:
        if not f.init:
            continue
        if f.default is MISSING and f.default_factory is MISSING:
            if seen_default:
                raise TypeError(f"non-default argument {f.name!r} follows default argument "
                                f"in {cls.__qualname__}")
        else:
            seen_default = True


def fields(record_or_class: Any) -> Tuple[Field, ...]:
    """A record's fields in order (as `dataclasses.fields`)."""
    spec = getattr(record_or_class, "__record_fields__", None)
    if spec is None:
        raise TypeError("fields() takes a record or a record class")
    return tuple(spec.values())


def replace(obj: Any, **changes: Any) -> Any:
    """A copy of the record `obj` with `changes` (as `dataclasses.replace`)."""
    cls = type(obj)
    spec: Dict[str, Field] = getattr(cls, "__record_fields__", None)
    if spec is None:
        raise TypeError("replace() should be called on record instances")
    plain = _PLAIN.get(cls)
    if plain is None:
        plain = _PLAIN[cls] = _plain(cls, spec)
    if plain and changes.keys() <= plain[1]:
        # What the generated __init__ would store, in its order: the fields' values, then the changes.
        values, new = obj.__dict__, object.__new__(cls)
        if len(values) == len(plain[0]) and tuple(values) == plain[0]:  # the fields alone, in their order
            new.__dict__.update(values, **changes)  # the same dict as below, copied in C
            return new
        try:
            new.__dict__.update({name: values[name] for name in plain[0]}, **changes)
        except KeyError:  # a field deleted from the instance: __init__ below says what is wrong
            pass
        else:
            return new
    for f in spec.values():
        if not f.init:
            if f.name in changes:
                raise ValueError(f"field {f.name} is declared with init=False, it cannot be specified with replace()")
        elif f.name not in changes:
            changes[f.name] = getattr(obj, f.name)
    return type(obj)(**changes)


_PLAIN: Dict[type, tuple] = {}  # record class -> (field names, their set), or () when replace must call __init__


def _plain(cls: type, spec: Dict[str, Field]) -> tuple:
    """Whether a copy of an instance of `cls` with some fields changed is exactly its field values in a
    fresh __dict__: the class's __init__ is the one records generate (it stores each argument in
    field order, through the instance dict when frozen, through object.__setattr__ when not), every
    field is an __init__ argument (replace() gives an init=False field its default again), and no
    __post_init__, __new__ or __setattr__ of the class's own runs. Copying by hand skips building
    every field's keyword and binding them again: most of replace(), ~6 calls a file."""
    from ctxlint.records import _frozen_setattr

    ok = (cls.__dict__.get("__record_init__") is True and not hasattr(cls, "__post_init__")
          and cls.__new__ is object.__new__ and cls.__setattr__ in (object.__setattr__, _frozen_setattr)
          and cls.__dictoffset__ != 0 and all(f.init for f in spec.values())
          and not any(hasattr(type(cls.__dict__.get(name)), "__set__") for name in spec))
    names = tuple(spec)
    return (names, frozenset(names)) if ok else ()


class DataclassFields:
    """`__dataclass_fields__` of a record class: built on first access (importing dataclasses),
    so `dataclasses.fields()`, `replace()`, `asdict()` and `is_dataclass()` work on records."""

    def __get__(self, obj: Any, owner: type) -> Dict[str, Any]:
        import dataclasses

        out = {}
        for f in owner.__record_fields__.values():
            real = dataclasses.field(
                default=dataclasses.MISSING if f.default is MISSING else f.default,
                default_factory=dataclasses.MISSING if f.default_factory is MISSING else f.default_factory,
                init=f.init, repr=f.repr, compare=f.compare)
            real.name, real.type = f.name, f.type
            real._field_type = dataclasses._FIELD  # type: ignore[attr-defined]
            if getattr(real, "kw_only", False) is dataclasses.MISSING:  # Python 3.10+: what dataclass sets
                real.kw_only = False  # type: ignore[attr-defined]
            out[f.name] = real
        type.__setattr__(owner, "__dataclass_fields__", out)  # built once per class
        return out
