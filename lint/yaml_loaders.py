"""The PyYAML loaders ctxlint composes with: libyaml's, with plain scalars' tags remembered and,
when no path resolver is registered (the usual case), the composer's per-node resolver calls
skipped. ctxlint.loader builds positioned nodes from what they compose."""
from __future__ import annotations

import yaml

try:  # libyaml is about six times faster; fall back when PyYAML was built without it
    from yaml import CSafeLoader as BaseLoader
except ImportError:  # pragma: no cover - depends on the PyYAML build
    from yaml import SafeLoader as BaseLoader  # type: ignore[assignment]


_TAGS: dict = {}  # a plain scalar's text -> its tag, for Resolving and Unpathed
_COLLECTION_TAGS = {yaml.MappingNode: BaseLoader.DEFAULT_MAPPING_TAG, yaml.SequenceNode: BaseLoader.DEFAULT_SEQUENCE_TAG}


class Resolving(BaseLoader):
    """The loader, with plain scalars' tags remembered by their text.

    PyYAML resolves every plain scalar (keys too) by trying its implicit resolvers' regular
    expressions in turn: ~1 us each, a tenth of a tree run's composing. A plain scalar's tag
    depends on its text alone (SafeLoader has no path resolvers), and trees repeat the same
    keys and values in every file. Quoted scalars are strings without asking."""

    def resolve(self, kind, value, implicit, _tags: dict = _TAGS):
        if kind is not yaml.ScalarNode or self.yaml_path_resolvers:
            return BaseLoader.resolve(self, kind, value, implicit)
        if not implicit[0]:
            return self.DEFAULT_SCALAR_TAG
        tag = _tags.get(value)
        return tag if tag is not None else _remembered(self, kind, value, implicit)


class Unpathed(Resolving):
    """Resolving for the usual case of a loader without path resolvers (yaml.add_path_resolver).

    The composer calls descend_resolver and ascend_resolver around every node; without path
    resolvers both return at once, but a Python method call each still cost ~4% of composing.
    Here they are C callables that ignore their arguments (their results are never read):
    `slice(parent, index)` and `tuple()`. parse_text uses Resolving when path resolvers exist."""

    descend_resolver = staticmethod(slice)
    ascend_resolver = staticmethod(tuple)

    def resolve(self, kind, value, implicit, _tags: dict = _TAGS, _scalar=yaml.ScalarNode,
                _str=BaseLoader.DEFAULT_SCALAR_TAG, _default: dict = _COLLECTION_TAGS):
        # Resolving.resolve without its test for path resolvers (there are none) and its global
        # lookups: it runs for every node. A mapping or a list gets its default tag, as
        # BaseResolver.resolve gives it without path resolvers.
        if kind is not _scalar:
            tag = _default.get(kind)
            return tag if tag is not None else BaseLoader.resolve(self, kind, value, implicit)
        if not implicit[0]:
            return _str
        tag = _tags.get(value)
        return tag if tag is not None else _remembered(self, kind, value, implicit)


def _remembered(loader, kind, value: str, implicit) -> str:
    """A plain scalar's tag as the resolver gives it, remembered for its text."""
    tag = BaseLoader.resolve(loader, kind, value, implicit)
    if len(value) <= 256 and len(_TAGS) < 100_000:  # bounded: any tree, any file
        _TAGS[value] = tag
    return tag


def composer() -> type:
    """The loader parse_text composes with."""
    return Resolving if Resolving.yaml_path_resolvers else Unpathed
