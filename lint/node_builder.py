"""Build positioned `Node`s (ctxlint.nodes) from the nodes PyYAML's composer gives.

Each file's documents are built by one Builder: constructed Python scalars, 1-based positions,
logical paths, duplicate keys reported (PyYAML would keep the last silently), aliases rebuilt
under each path they are used at, within a node budget (alias bombs) and a nesting limit.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Tuple

import yaml
from yaml.constructor import SafeConstructor
from yaml.nodes import MappingNode, ScalarNode, SequenceNode

from ctxlint.lazyre import lazy_compile
from ctxlint.nodes import MAP, SCALAR, SEQ, STR_TAG, Node, Unbuilt, child_path, key_node, simple_keys

_JSON_NUMBER = lazy_compile(r"^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$")
MERGE_TAG = "tag:yaml.org,2002:merge"
_PLAIN_SCALARS = {tag: SafeConstructor.yaml_constructors[tag] for tag in (
    "tag:yaml.org,2002:null", "tag:yaml.org,2002:bool", "tag:yaml.org,2002:int", "tag:yaml.org,2002:float")}


_CONSTRUCTED: Dict[Tuple[str, str], Any] = {}  # (tag, text) -> the null, bool, int or float it constructs
_UNSEEN = object()
_new_node = object.__new__  # a Node with its slots unset, filled by the builder (Node.__init__'s work, written out)


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
        self._inline = False  # _mapping builds plain string values itself (see there)

    def build_document(self, root: yaml.Node, aliases: bool = True) -> Node:
        """Build one document. Aliases never cross documents, and the caches are keyed by
        id(): a previous document's yaml nodes are freed, so their ids can be reused.
        `aliases=False` (the text has no `*` or no `&`, so no alias) builds each node as
        it comes, without remembering it: every yaml node is then met exactly once."""
        self._seen.clear()
        self._first.clear()
        self._depth = 0
        self._walk = self.build if aliases else self._plain
        self._inline = not aliases and not self._json_numbers
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
            # Node(SCALAR, value, node, path), its slots filled here (see _mapping)
            built = _new_node(Node)
            built.kind, built._keys, built.path = SCALAR, None, path
            built.value = node.value if node.tag == STR_TAG and not self._json_numbers else self._scalar(node)
            built.start, built.end, built.style, built.tag = node.start_mark, node.end_mark, node.style, node.tag
            return built
        if not isinstance(node, (MappingNode, SequenceNode)):
            return Node(SCALAR, self._scalar(node), node, path)
        # build()'s collection branch, written again here: a helper both called would add a Python
        # frame per nesting level (three instead of two: 768 of the 1,000 allowed at MAX_NESTING)
        self._depth += 1
        if self._depth > MAX_NESTING:
            raise TreeTooDeep(node.start_mark)
        if isinstance(node, MappingNode):
            result = self._mapping(node, path)
        else:
            result = Node(SEQ, [], node, path)
            plain = self._plain
            result.value = [plain(item, f"{path}[{i}]") for i, item in enumerate(node.value)]  # child_path's
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
                # a function of the tag and the text only, and immutable: remembered (ports, sizes, counts repeat)
                key = (tag, node.value)
                value = _CONSTRUCTED.get(key, _UNSEEN)
                if value is _UNSEEN:
                    value = plain(self._constructor, node)
                    if len(_CONSTRUCTED) < 65536 and len(node.value) <= 64:
                        _CONSTRUCTED[key] = value
                return value
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
        result = _new_node(Node)  # Node(MAP, {}, node, path), its slots filled here (see below)
        values = result.value = {}
        result.kind, result.path, result.style, result.tag = MAP, path, getattr(node, "style", None), node.tag
        result.start, result.end = node.start_mark, node.end_mark
        keys = result._keys = Unbuilt()  # key -> its composer node: a Node only when read (Node.keys)
        merged: List[Tuple[Any, Node, Node]] = []
        # Without aliases a plain string value is built here, not by a call per value: most of a
        # manifest's nodes are keys and string values (the same Node _plain would make).
        inline = self._inline
        simple = simple_keys.get  # True for a str key child_path writes with a dot
        text_keys = not self._json_numbers
        for written, value_node in node.value:  # the key as the composer wrote it, its value
            # a plain string key (most keys) first: its tag is no merge key's
            if written.tag == STR_TAG and text_keys and type(written) is ScalarNode:
                key = written.value  # what _key gives a plain string key
            elif written.tag == MERGE_TAG:
                sources = value_node.value if isinstance(value_node, yaml.SequenceNode) else [value_node]
                for src in sources:
                    if isinstance(src, yaml.MappingNode):
                        built = self._walk(src, path)
                        merged.extend((k, built.keys[k], v) for k, v in built.value.items())
                continue
            else:
                key = self._key(written)
                if not isinstance(written, yaml.ScalarNode) and self.on_complex_key is not None:
                    self.on_complex_key(written, path)
            # child_path(path, key), its common case written out: a call per key was ~0.3% of a run
            key_path = (f"{path}.{key}" if path else key) if simple(key) else child_path(path, key)
            if key in values:
                self._on_duplicate(key_node(keys[key], key, key_path), key_node(written, key, key_path), key_path)
            if inline and type(value_node) is ScalarNode and value_node.tag == STR_TAG:
                self._budget -= 1
                if self._budget < 0:
                    raise TreeTooLarge()
                # Node(SCALAR, value_node.value, value_node, key_path), its slots filled here: a class call
                # runs its __init__ in an interpreter loop of its own, for each of ~70 nodes a file
                built = values[key] = _new_node(Node)
                built.kind, built.value, built._keys, built.path = SCALAR, value_node.value, None, key_path
                built.start, built.end = value_node.start_mark, value_node.end_mark
                built.style, built.tag = value_node.style, STR_TAG
            else:
                values[key] = self._walk(value_node, key_path)
            keys[key] = written
        for key, merged_key, value in merged:  # explicit keys win over merged ones
            if key not in values:
                values[key] = value
                keys[key] = merged_key
        return result
