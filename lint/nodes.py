"""A YAML/JSON tree in which every node knows its position and logical path.

PyYAML's composer gives nodes with file-global marks; ctxlint.node_builder turns them
into `Node`s carrying constructed Python scalars, 1-based positions and a logical path,
and records duplicate keys (PyYAML would keep the last one silently).
"""
from __future__ import annotations

from typing import Any, Callable, Dict, Iterator, Optional, Sequence, Union

import yaml

from ctxlint.lazyre import lazy_compile
from ctxlint.model import Source
from ctxlint.records import maker

MAP, SEQ, SCALAR = "map", "seq", "scalar"
_SIMPLE_KEY = lazy_compile(r"^[A-Za-z_][A-Za-z0-9_\-]*$")
STR_TAG = "tag:yaml.org,2002:str"

Key = Union[str, int]


_make_source: Optional[Callable[..., Source]] = None  # records.maker(Source): a Source without a class call


def _source_maker() -> Callable[..., Source]:
    """Made at the first position asked for, not at import (a one-file run asks for few)."""
    global _make_source
    _make_source = maker(Source)
    return _make_source


class Node:
    """One node: a mapping (dict of key -> Node), a sequence, or a scalar."""

    # `start` and `end` are the composer's marks (0-based index, line, column; or Positions), read
    # through the properties below: a run builds ~120 nodes a file and asks a few of them where
    # they are, so copying six numbers out of the marks into each node cost ~3% of a tree run.
    __slots__ = ("kind", "value", "_keys", "start", "end", "path", "style", "tag")

    def __init__(self, kind: str, value: Any, mark_node: yaml.Node, path: str) -> None:
        self.kind = kind
        self.value = value
        self._keys: Optional[Dict[Any, Any]] = None  # see `keys`
        self.start, self.end = mark_node.start_mark, mark_node.end_mark
        self.path = path
        self.style = getattr(mark_node, "style", None)
        self.tag = mark_node.tag

    @property
    def keys(self) -> Dict[Any, "Node"]:
        """Mapping only: key -> the key's own node (its position, for findings about the key).

        The builder leaves a mapping's keys as the composer's nodes (an `Unbuilt` dict); they
        become Nodes here, on the first read. A file's adapters read the keys of a few mappings,
        and a Node per key was ~40% of the nodes a file built."""
        keys = self._keys
        if type(keys) is not dict:
            path = self.path
            keys = self._keys = {} if keys is None else {
                key: key_node(found, key, child_path(path, key)) for key, found in keys.items()}
        return keys

    @keys.setter
    def keys(self, keys: Dict[Any, "Node"]) -> None:
        self._keys = keys

    # Read from the marks: the 1-based line and column of the first character and of the character
    # after the last (end_col is exclusive), and the file indices of both.
    line = property(lambda self: self.start.line + 1)
    col = property(lambda self: self.start.column + 1)
    end_line = property(lambda self: self.end.line + 1)
    end_col = property(lambda self: self.end.column + 1)
    start_index = property(lambda self: self.start.index)
    end_index = property(lambda self: self.end.index)

    def __repr__(self) -> str:
        return f"Node({self.kind}, {self.path!r}, {self.line}:{self.col})"

    def source(self, file: str) -> Source:
        start, end = self.start, self.end
        return (_make_source or _source_maker())(file, start.line + 1, start.column + 1, self.path, end.line + 1,
                                                 end.column + 1)

    def get(self, key: Any) -> Optional["Node"]:
        if self.kind != MAP:
            return None
        return self.value.get(key)

    def dig(self, *keys: Key) -> Optional["Node"]:
        """Follow keys (str for mappings, int for sequences); None if any is missing."""
        node: Optional[Node] = self
        for key in keys:
            if node is None:
                return None
            if isinstance(key, int):
                node = node.value[key] if node.kind == SEQ and -len(node.value) <= key < len(node.value) else None
            else:
                node = node.value.get(key) if node.kind == MAP else None  # get(), written out: ~3 keys a dig
        return node

    def plain(self) -> Any:
        """The node as plain Python data (dicts, lists, scalars)."""
        if self.kind == MAP:
            return {k: v.plain() for k, v in self.value.items()}
        if self.kind == SEQ:
            return [v.plain() for v in self.value]
        return self.value

    def walk(self) -> Iterator["Node"]:
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            if node.kind == MAP:
                stack.extend(reversed(list(node.value.values())))
            elif node.kind == SEQ:
                stack.extend(reversed(node.value))


class ForeignNode(Node):
    """A node of another file of the group, read beside this file's (a KServe InferenceService merged
    over the ServingRuntime of a sibling file): it reports its own file whatever file it is asked
    for, and ScalarSpans hands its spans to `spans`, the ScalarSpans of that file."""

    __slots__ = ("spans",)

    def source(self, file: str) -> Source:
        return Node.source(self, self.spans.file)


class EmbeddedNode(ForeignNode):
    """A node of a YAML document held in a string scalar of the file (a ConfigMap's `config.yaml: |`): its marks
    index that string, and `spans` (scalar_spans.EmbeddedSpans) places it, and the spans inside it, in the file."""

    __slots__ = ()

    def source(self, file: str) -> Source:
        return self.spans.node_source(self)


def adopt(node: Node, spans: Any, cls: type = ForeignNode) -> Node:
    """A copy of `node`'s tree as ForeignNodes of the file `spans` reads (ctxlint.adapters.scalar_spans),
    keys included: values merged from it into another file's objects keep their own file and position. `cls`
    EmbeddedNode: a document parsed out of a scalar, placed in the file that holds it."""
    copy = cls.__new__(cls)
    for slot in Node.__slots__:
        setattr(copy, slot, getattr(node, slot))
    copy.spans = spans
    if node.kind == MAP:
        copy.value = {k: adopt(v, spans, cls) for k, v in node.value.items()}
        copy._keys = {k: adopt(v, spans, cls) for k, v in node.keys.items()}
    elif node.kind == SEQ:
        copy.value = [adopt(v, spans, cls) for v in node.value]
    return copy


def key_node(found: Any, key: Any, key_path: str) -> "Node":
    """The Node of a mapping's key from what `Unbuilt` holds for it: the composer's node of the key,
    or the key's Node already (a key merged in with `<<`)."""
    return found if type(found) is Node else Node(SCALAR, key, found, key_path)


class Unbuilt(dict):
    """A mapping's keys as the builder leaves them: key -> the composer's node of the key (or the
    Node of a key merged in with `<<`), in the order and with the values the built keys would have."""

    __slots__ = ()


class Position:
    """A place in the text as a composer's mark gives it (0-based), for a node placed anew."""

    __slots__ = ("index", "line", "column")

    def __init__(self, index: int, line: int, column: int) -> None:
        self.index, self.line, self.column = index, line, column


class Marks:
    """The composer's view of a node placed anew (a word of a string, a script, an env file's value): its start and
    end Positions, its style (None: plain) and tag (a string scalar unless told)."""

    __slots__ = ("start_mark", "end_mark", "style", "tag")

    def __init__(self, start: Position, end: Position, style: Optional[str] = None, tag: Optional[str] = STR_TAG):
        self.start_mark, self.end_mark, self.style, self.tag = start, end, style, tag


simple_keys: Dict[str, bool] = {}  # key -> matches _SIMPLE_KEY; the same few hundred keys recur in every file


def dotted_sources(mapping: "Node", place: Callable[["Node"], Source], prefix: str = "") -> Dict[str, Source]:
    """Every key under a mapping, nested ones dotted (`kv_cache_config.max_tokens`) -> place(value),
    as engine config files are keyed once flattened (engines.config.apply_config)."""
    sources: Dict[str, Source] = {}
    for key, child in mapping.value.items() if mapping.kind == MAP else ():
        dotted = f"{prefix}{key}"
        sources[dotted] = place(child)
        if child.kind == MAP:
            sources.update(dotted_sources(child, place, dotted + "."))
    return sources


def child_path(parent: str, key: Key) -> str:
    if isinstance(key, int):
        return f"{parent}[{key}]"
    simple = simple_keys.get(key)
    if simple is None:
        simple = bool(_SIMPLE_KEY.match(key))
        if len(simple_keys) < 100_000:
            simple_keys[key] = simple
    if simple:
        return f"{parent}.{key}" if parent else key
    return f'{parent}["{key}"]'


def path_of(parts: Sequence[Key]) -> str:
    path = ""
    for part in parts:
        path = child_path(path, part)
    return path
