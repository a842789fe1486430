"""A YAML/JSON tree in which every node knows its position and logical path.

PyYAML's composer gives nodes with file-global marks; this module turns them into
`Node`s carrying constructed Python scalars, 1-based positions and a logical path,
and records duplicate keys (PyYAML would keep the last one silently).
"""
from __future__ import annotations

import re
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple, Union

import yaml
from yaml.constructor import SafeConstructor
from yaml.nodes import MappingNode, ScalarNode, SequenceNode

from ctxlint.model import Source

MAP, SEQ, SCALAR = "map", "seq", "scalar"
_SIMPLE_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]*$")
_JSON_NUMBER = re.compile(r"^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$")
MERGE_TAG = "tag:yaml.org,2002:merge"
STR_TAG = "tag:yaml.org,2002:str"

Key = Union[str, int]
_PLAIN_SCALARS = {tag: SafeConstructor.yaml_constructors[tag] for tag in (
    "tag:yaml.org,2002:null", "tag:yaml.org,2002:bool", "tag:yaml.org,2002:int", "tag:yaml.org,2002:float")}


class Node:
    """One node: a mapping (dict of key -> Node), a sequence, or a scalar."""

    __slots__ = ("kind", "value", "keys", "line", "col", "end_line", "end_col",
                 "path", "style", "start_index", "end_index", "tag")

    def __init__(self, kind: str, value: Any, mark_node: yaml.Node, path: str) -> None:
        self.kind = kind
        self.value = value
        self.keys: Dict[Any, "Node"] = {}  # mapping only: key -> the key's own node
        start, end = mark_node.start_mark, mark_node.end_mark
        self.line, self.col = start.line + 1, start.column + 1
        self.end_line, self.end_col = end.line + 1, end.column + 1
        self.start_index, self.end_index = start.index, end.index
        self.path = path
        self.style = getattr(mark_node, "style", None)
        self.tag = mark_node.tag

    def __repr__(self) -> str:
        return f"Node({self.kind}, {self.path!r}, {self.line}:{self.col})"

    def source(self, file: str) -> Source:
        return Source(file, self.line, self.col, self.path, self.end_line, self.end_col)

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
                node = node.get(key)
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


_simple: Dict[str, bool] = {}  # key -> matches _SIMPLE_KEY; the same few hundred keys recur in every file


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


def line_starts(text: str) -> List[int]:
    """Index of the first character of every line ("\n"-separated, as editors count them)."""
    starts, find = [0], text.find
    at = find("\n")
    while at >= 0:  # str.find runs in C: a per-character Python loop is ~50x slower
        starts.append(at + 1)
        at = find("\n", at + 1)
    return starts


def child_path(parent: str, key: Key) -> str:
    if isinstance(key, int):
        return f"{parent}[{key}]"
    simple = _simple.get(key)
    if simple is None:
        simple = bool(_SIMPLE_KEY.match(key))
        if len(_simple) < 100_000:
            _simple[key] = simple
    if simple:
        return f"{parent}.{key}" if parent else key
    return f'{parent}["{key}"]'


def path_of(parts: Sequence[Key]) -> str:
    path = ""
    for part in parts:
        path = child_path(path, part)
    return path


class TreeTooLarge(Exception):
    """Alias expansion would make the document larger than the node budget."""


class TreeTooDeep(Exception):
    """A mapping or list nested more than MAX_NESTING levels deep; `mark` is where."""

    def __init__(self, mark: Optional[yaml.Mark]) -> None:
        super().__init__("nested too deeply")
        self.mark = mark


# Real deployment files nest a few dozen levels. The limit is ctxlint's own, so the outcome
# does not depend on the libyaml build (0.2.6 stops at 1,000 levels, 0.2.5 never) or on
# Python's recursion limit (building recurses about twice per level).
MAX_NESTING = 256


# Every alias is rebuilt under its own path (a finding must name the path it sits at), so
# a "billion laughs" document expands exponentially. Real files alias a few mappings;
# the second budget stops a bomb after ~0.5 s instead of after two million nodes.
MAX_ALIAS_EXPANSION = 100_000


class Builder:
    """Converts composed PyYAML nodes to `Node`s for one file."""

    def __init__(self, json_numbers: bool, on_duplicate: Callable[[Node, Node, str], None],
                 max_nodes: int = 2_000_000, max_alias_expansion: int = MAX_ALIAS_EXPANSION) -> None:
        self._constructor = yaml.constructor.SafeConstructor()
        self._json_numbers = json_numbers
        self._on_duplicate = on_duplicate
        self.on_complex_key: Optional[Callable[[yaml.Node, str], None]] = None
        self._budget = max_nodes
        self._seen: Dict[Tuple[int, str], Node] = {}  # alias expansions: (id, path) -> Node
        self._first: Dict[int, list] = {}  # id -> [path, Node] of the first build
        self._alias_budget = max_alias_expansion
        self._depth = 0
        self._walk: Optional[Callable[[yaml.Node, str], Node]] = None  # build or _plain, during build_document

    def build_document(self, root: yaml.Node, aliases: bool = True) -> Node:
        """Build one document. Aliases never cross documents, and the caches are keyed by
        id(): a previous document's yaml nodes are freed, so their ids can be reused.
        `aliases=False` (the text has no `*` or no `&`, so no alias) builds each node as
        it comes, without remembering it: every yaml node is then met exactly once."""
        self._seen.clear()
        self._first.clear()
        self._depth = 0
        self._walk = self.build if aliases else self._plain
        try:
            return self._walk(root)
        finally:
            self._walk = None  # a bound method held by its own object is a cycle: the file's nodes would wait for the GC

    def _plain(self, node: yaml.Node, path: str = "") -> Node:
        """build() for a document without aliases: ~40% of a file's loading was build()'s
        bookkeeping of nodes met twice, which only aliases do."""
        self._budget -= 1
        if self._budget < 0:
            raise TreeTooLarge()
        if type(node) is ScalarNode:
            value = node.value if node.tag == STR_TAG and not self._json_numbers else self._scalar(node)
            return Node(SCALAR, value, node, path)
        if not isinstance(node, (MappingNode, SequenceNode)):
            return Node(SCALAR, self._scalar(node), node, path)
        self._depth += 1
        if self._depth > MAX_NESTING:
            raise TreeTooDeep(node.start_mark)
        if isinstance(node, MappingNode):
            result = self._mapping(node, path)
        else:
            result = Node(SEQ, [], node, path)
            plain = self._plain
            result.value = [plain(item, child_path(path, i)) for i, item in enumerate(node.value)]
        self._depth -= 1
        return result

    def build(self, node: yaml.Node, path: str = "") -> Node:
        # Results are remembered per (yaml node, path): an alias is rebuilt under each new path,
        # and a node met again under the same path is the same Node. The first build of a
        # node is kept in _first, so the common case costs one dict lookup, not a tuple key.
        nid = id(node)
        first = self._first.get(nid)
        if first is None:
            entry = self._first[nid] = [path, None]
        else:
            if first[0] == path and first[1] is not None:
                return first[1]
            entry = None
            key = (nid, path)
            if key in self._seen:
                return self._seen[key]
        self._budget -= 1
        if first is not None:
            self._alias_budget -= 1
            if self._alias_budget < 0:
                raise TreeTooLarge()
        if self._budget < 0:
            raise TreeTooLarge()
        if isinstance(node, (MappingNode, SequenceNode)):
            self._depth += 1
            if self._depth > MAX_NESTING:
                raise TreeTooDeep(node.start_mark)
            if isinstance(node, MappingNode):
                result = self._mapping(node, path)
            else:
                result = Node(SEQ, [], node, path)
                result.value = [self.build(item, child_path(path, i)) for i, item in enumerate(node.value)]
            self._depth -= 1
        else:
            result = Node(SCALAR, self._scalar(node), node, path)
        if entry is not None:
            entry[1] = result
        else:
            self._seen[(nid, path)] = result
        return result

    def _scalar(self, node: yaml.ScalarNode) -> Any:
        tag = node.tag
        if self._json_numbers and not node.style and tag == STR_TAG and _JSON_NUMBER.match(node.value):
            # JSON reads 1e6 as a number; YAML 1.1 (PyYAML) reads it as a string.
            number = float(node.value)
            return int(number) if number.is_integer() and "." not in node.value and "e" not in node.value.lower() else number
        if tag == STR_TAG:
            return node.value  # what SafeConstructor.construct_yaml_str returns
        try:
            plain = _PLAIN_SCALARS.get(tag)
            if plain is not None:  # null/bool/int/float: SafeConstructor's own function, minus its bookkeeping
                return plain(self._constructor, node)
            return self._constructor.construct_object(node)
        except (yaml.YAMLError, ValueError, TypeError, OverflowError):
            return node.value  # e.g. an impossible timestamp: keep the text

    def _key(self, node: yaml.Node) -> Any:
        if isinstance(node, yaml.ScalarNode):
            if node.tag == STR_TAG and not self._json_numbers:
                return node.value  # the common case, as _scalar would give it
            value = self._scalar(node)
            return value if isinstance(value, (str, int)) and not isinstance(value, bool) else str(value)
        return f"<{type(node).__name__}>"  # complex keys are never meaningful to ctxlint

    def _mapping(self, node: yaml.MappingNode, path: str) -> Node:
        result = Node(MAP, {}, node, path)
        values, keys = result.value, result.keys
        merged: List[Tuple[Any, Node, Node]] = []
        # Without aliases a plain string value is built here, not by a call per value: most of a
        # manifest's nodes are keys and string values (the same Node _plain would make).
        inline = self._walk == self._plain and not self._json_numbers
        for key_node, value_node in node.value:
            tag = key_node.tag
            if tag == MERGE_TAG:
                sources = value_node.value if isinstance(value_node, yaml.SequenceNode) else [value_node]
                for src in sources:
                    if isinstance(src, yaml.MappingNode):
                        built = self._walk(src, path)
                        merged.extend((k, built.keys[k], v) for k, v in built.value.items())
                continue
            if tag == STR_TAG and not self._json_numbers and type(key_node) is ScalarNode:
                key = key_node.value  # what _key gives a plain string key
            else:
                key = self._key(key_node)
                if not isinstance(key_node, yaml.ScalarNode) and self.on_complex_key is not None:
                    self.on_complex_key(key_node, path)
            key_path = child_path(path, key)
            built_key = Node(SCALAR, key, key_node, key_path)
            if key in values:
                self._on_duplicate(keys[key], built_key, key_path)
            if inline and type(value_node) is ScalarNode and value_node.tag == STR_TAG:
                self._budget -= 1
                if self._budget < 0:
                    raise TreeTooLarge()
                values[key] = Node(SCALAR, value_node.value, value_node, key_path)
            else:
                values[key] = self._walk(value_node, key_path)
            keys[key] = built_key
        for key, key_node, value in merged:  # explicit keys win over merged ones
            if key not in result.value:
                result.value[key] = value
                result.keys[key] = key_node
        return result
