"""The loader's shortcuts give exactly the tree of the general path.

- Documents whose text cannot hold an alias are built without remembering nodes
  (`node_builder.Builder._plain`); every other document goes through `Builder.build`.
- Plain scalars' tags are remembered by their text (`yaml_loaders.Resolving`).
- Without path resolvers, the composer's calls around each node do nothing (`yaml_loaders.Unpathed`).
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml

from ctxlint import loader, yaml_loaders
from ctxlint.node_builder import Builder
from ctxlint.nodes import MAP, SEQ

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "corpus"


def _files():
    roots = [ROOT / "samples", ROOT / "tests", SHARED]
    for root in roots:
        for dirpath, _, names in os.walk(root):
            for name in sorted(names):
                if name.endswith((".yaml", ".yml", ".json")):
                    yield Path(dirpath) / name


FILES = sorted(_files())


def _dump(node, out, seen_keys=True):
    out.append((node.kind, node.path, node.line, node.col, node.end_line, node.end_col, node.start_index,
                node.end_index, node.style, node.tag, None if node.kind in (MAP, SEQ) else repr(node.value)))
    if node.kind == MAP:
        for key, child in node.value.items():
            out.append(("key", repr(key)))
            _dump(node.keys[key], out)
            _dump(child, out)
    elif node.kind == SEQ:
        for child in node.value:
            _dump(child, out)
    return out


def _trees(text: str, json_numbers: bool, aliases: bool, resolver=yaml_loaders.Resolving):
    dupes = []
    builder = Builder(json_numbers, lambda first, second, path: dupes.append((first.line, second.line, path)))
    docs = [builder.build_document(doc, aliases) for doc in yaml.compose_all(text, Loader=resolver)
            if doc is not None]
    return [_dump(doc, []) for doc in docs], dupes


def _text(path: Path):
    try:
        text = path.read_text(encoding="utf-8")
        list(yaml.compose_all(text, Loader=yaml_loaders.BaseLoader))
    except (UnicodeDecodeError, yaml.YAMLError, RecursionError, ValueError):
        return None
    return text


def test_there_are_files_to_compare():
    assert len(FILES) > 50


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(p.parents[2])))
def test_every_file_builds_the_same_tree_by_either_path(path):
    text = _text(path)
    if text is None or len(text) > 2_000_000:
        pytest.skip("not parsable as YAML here (the bad-input tests cover it), or huge")
    json_numbers = path.suffix == ".json"
    general = _trees(text, json_numbers, aliases=True, resolver=yaml_loaders.BaseLoader)
    assert _trees(text, json_numbers, aliases=True, resolver=yaml_loaders.Unpathed) == general
    if "*" in text and "&" in text:
        # the loader takes the general path for these; check the remembered tags on it
        assert _trees(text, json_numbers, aliases=True) == general
    else:
        assert _trees(text, json_numbers, aliases=False) == general


MERGES = """\
base: {a: 1, b: [x, y]}
svc:
  <<: {a: 2, c: 3}
  a: 4
  d: [1, {e: 5}]
dup: 1
dup: 2
"""


def test_inline_merge_keys_and_duplicates_without_aliases():
    assert "*" not in MERGES
    plain, plain_dupes = _trees(MERGES, False, aliases=False)
    general, general_dupes = _trees(MERGES, False, aliases=True, resolver=yaml_loaders.BaseLoader)
    assert plain == general and plain_dupes == general_dupes == [(6, 7, "dup")]


def test_the_loader_takes_the_general_path_when_an_alias_is_possible():
    text = "a: &x {b: [1, 2]}\nc: *x\nd: *x\n"
    parsed = loader.parse_text(text, "f.yaml")
    root = parsed.documents[0].root
    assert root.dig("c", "b", 1).path == "c.b[1]" and root.dig("d", "b", 0).path == "d.b[0]"
    assert root.get("c").line == root.get("d").line == 1  # an alias points at its anchor's text
    assert _trees(text, False, True) == _trees(text, False, True, resolver=yaml_loaders.BaseLoader)


# Plain scalars of every implicit type, look-alikes that are strings, and the empty scalar.
SCALARS = ["", "~", "null", "Null", "NULL", "true", "True", "yes", "No", "on", "OFF", "y", "n", "0", "-0", "+12",
           "0x1F", "0o17", "017", "0b101", "1_000", "190:20:30", "1.5", "-.5", "1e6", "1.0e+6", "6.8523015e+5",
           ".inf", "-.Inf", ".NaN", "2001-12-14", "2001-12-14t21:59:43.10-05:00", "2001-12-14 21:59:43.10 -5",
           "<<", "=", "1M", "32k", "v0.6.3", "nvidia.com/gpu", "--max-model-len", "4096", "0.9", "1.", "e5",
           "yes please", "1,000", "12:30", "2001-1-1", "-", "--", ".", "._", "tru", "nulls"]


@pytest.mark.parametrize("quoted", [False, True])
def test_remembered_tags_are_the_resolvers(quoted):
    text = "\n".join(f"- {json.dumps(s) if quoted else s}" for s in SCALARS)
    for _ in range(2):  # the second pass answers from what the first remembered
        mine = [n.tag for n in yaml.compose(text, Loader=yaml_loaders.Resolving).value]
        theirs = [n.tag for n in yaml.compose(text, Loader=yaml_loaders.BaseLoader).value]
        unpathed = [n.tag for n in yaml.compose(text, Loader=yaml_loaders.Unpathed).value]
        assert mine == theirs == unpathed
    if not quoted:
        assert len(set(theirs)) >= 5  # null, bool, int, float, timestamp, str, merge: the test reaches them


@pytest.mark.parametrize("other", ["\x85", "\u2028", "\u2029"])
def test_lines_are_counted_by_newlines_only(other):
    # libyaml counts NEL, LINE SEPARATOR and PARAGRAPH SEPARATOR as line breaks; editors count "\n".
    text = f'a: "x{other}y"\nb: [1, é]\n'
    root = loader.parse_text(text, "f.yaml").documents[0].root
    assert (root.keys["b"].line, root.keys["b"].col) == (2, 1)
    assert [(n.line, n.col, n.end_line, n.end_col) for n in root.get("b").value] == [(2, 5, 2, 6), (2, 8, 2, 9)]
    assert (root.get("a").end_line, root.get("a").end_col) == (1, 9)


def test_path_resolvers_take_the_loader_that_honours_them():
    text = 'spec:\n  replicas: "3"\n'  # a path resolver tags what no implicit resolver does: quoted
    assert yaml_loaders.composer() is yaml_loaders.Unpathed
    yaml_loaders.Resolving.add_path_resolver("!replicas", ["spec", "replicas"], yaml.ScalarNode)
    try:
        assert yaml_loaders.composer() is yaml_loaders.Resolving
        assert yaml.compose(text, Loader=yaml_loaders.composer()).value[0][1].value[0][1].tag == "!replicas"
    finally:
        del yaml_loaders.Resolving.yaml_path_resolvers
    assert yaml_loaders.composer() is yaml_loaders.Unpathed and not yaml_loaders.Resolving.yaml_path_resolvers


def test_remembered_scalars_are_what_the_constructor_builds():
    # null, bool, int and float scalars are remembered by (tag, text): the second pass reads the memo
    extra = ["0", "-0", "1_000", "0x1F", "0o17", "-.inf", ".NaN", "yes", "Off", "~", "3.0", "-1e3", "!!int 7",
             "2", "!!float 2", "!!bool true", "!!null ''"]
    items = [s for s in SCALARS + extra if s not in ("<<", "=")]  # the merge and value tags: not in a list
    text = "\n".join(f"- {s}" for s in items)
    theirs = yaml.load(text, Loader=yaml_loaders.BaseLoader)
    for _ in range(2):
        ours = [n.plain() for n in loader.parse_text(text, "f.yaml").documents[0].root.value]
        assert [(type(v), repr(v)) for v in ours] == [(type(v), repr(v)) for v in theirs]


def _pairs(mark_node, node):
    """(composed node, Node) pairs of one document built without aliases; a mapping with merge keys or
    duplicate keys is skipped (its Node holds another number of entries than the composed one)."""
    yield mark_node, node
    if node.kind == MAP and len(mark_node.value) == len(node.value):
        for (key_mark, value_mark), (key, child) in zip(mark_node.value, node.value.items()):
            yield key_mark, node.keys[key]
            yield from _pairs(value_mark, child)
    elif node.kind == SEQ:
        for item_mark, child in zip(mark_node.value, node.value):
            yield from _pairs(item_mark, child)


@pytest.mark.parametrize("path", FILES[::7], ids=lambda p: p.name)
def test_positions_read_from_the_marks_are_the_numbers_nodes_held(path):
    # Node keeps the composer's marks and reads its positions from them; before, it copied these
    # numbers out of the marks as it was built.
    text = _text(path)
    if text is None:
        return
    builder = Builder(False, lambda *_: None)
    for doc in yaml.compose_all(text, Loader=yaml_loaders.Resolving):
        if doc is None:
            continue
        for mark_node, node in _pairs(doc, builder.build_document(doc, aliases=False)):
            start, end = mark_node.start_mark, mark_node.end_mark
            expected = (start.line + 1, start.column + 1, end.line + 1, end.column + 1, start.index, end.index)
            assert (node.line, node.col, node.end_line, node.end_col, node.start_index, node.end_index) == expected
            source = node.source("f.yaml")
            assert (source.line, source.col, source.end_line, source.end_col, source.path) == (
                *expected[:4], node.path)


def _eager_keys(mark_node, path, builder):
    """The keys a mapping held when the builder made a Node for each key as it met it: in the order
    of first appearance, the last duplicate's node, merged keys after the explicit ones."""
    from ctxlint.nodes import Node, child_path

    keys, merged = {}, {}
    for key_mark, value_mark in mark_node.value:
        if key_mark.tag == "tag:yaml.org,2002:merge":
            sources = value_mark.value if isinstance(value_mark, yaml.SequenceNode) else [value_mark]
            for source in sources:
                if isinstance(source, yaml.MappingNode):
                    for key, node in _eager_keys(source, path, builder).items():
                        merged.setdefault(key, node)
            continue
        key = builder._key(key_mark)
        keys[key] = Node("scalar", key, key_mark, child_path(path, key))
    for key, node in merged.items():
        keys.setdefault(key, node)
    return keys


@pytest.mark.parametrize("text", [MERGES, "a: 1\nb: 2\na: 3\nb: 4\na: 5\n", "x: &m {p: 1, q: 2}\ny: {<<: *m, q: 3}\n",
                                  "k: [{a: 1}, {b: {c: 2}}]\n1: one\ntrue: yes\n3.5: f\n"])
def test_a_mappings_keys_are_built_on_first_read_as_the_builder_built_them(text):
    builder = Builder(False, lambda *_: None)
    for doc in yaml.compose_all(text, Loader=yaml_loaders.Resolving):
        root = builder.build_document(doc, aliases="*" in text)
        stack = [(doc, root)]
        while stack:
            mark_node, node = stack.pop()
            if node.kind != MAP:
                continue
            assert type(node._keys) is not dict  # nothing has read them yet
            expected = _eager_keys(mark_node, node.path, builder)
            got = node.keys
            assert list(got) == list(expected) == list(node.value)
            assert [_dump(n, []) for n in got.values()] == [_dump(n, []) for n in expected.values()]
            assert node.keys is got  # built once
            for key_mark, value_mark in mark_node.value:
                if key_mark.tag != "tag:yaml.org,2002:merge" and builder._key(key_mark) in node.value:
                    stack.append((value_mark, node.value[builder._key(key_mark)]))


@pytest.mark.parametrize("text", ["a: {b.c: 1, 'd e': [x, {f: 2}], 7: {g: 3}, -h: 4, _i-j: [[1]]}\n",
                                  "[{k: v}, [a, {'': 1}]]\n", "'x\"y': {1.5: a, null: b, true: c}\n"])
def test_paths_written_inline_are_child_paths(text):
    # Builder._mapping and _plain write the common child paths themselves instead of calling child_path
    from ctxlint.nodes import child_path

    for aliases in (False, True):
        stack = [loader.parse_text(text, "p.yaml").documents[0].root] if not aliases else [
            Builder(False, lambda *_: None).build_document(yaml.compose(text, Loader=yaml_loaders.Resolving), True)]
        while stack:
            node = stack.pop()
            children = node.value.items() if node.kind == MAP else enumerate(node.value) if node.kind == SEQ else ()
            for key, child in children:
                assert child.path == child_path(node.path, key)
                if node.kind == MAP:
                    assert node.keys[key].path == child.path
                stack.append(child)
