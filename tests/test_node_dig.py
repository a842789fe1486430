"""Node.dig follows mapping keys without a get() call per key: the same nodes as through get()."""
from __future__ import annotations

from pathlib import Path

from conftest import REPO, SHARED
from ctxlint.loader import parse_text
from ctxlint.nodes import MAP, SEQ, Node


def _dig(node, *keys):
    """Node.dig as it was written (the oracle)."""
    for key in keys:
        if node is None:
            return None
        if isinstance(key, int):
            node = node.value[key] if node.kind == SEQ and -len(node.value) <= key < len(node.value) else None
        else:
            node = node.get(key)
    return node


def _files():
    for root in (REPO / "samples", SHARED / "corpus" / "real"):
        yield from sorted(p for p in Path(root).rglob("*") if p.suffix in (".yaml", ".yml", ".json"))


def test_every_path_of_every_file_digs_to_the_same_node():
    asked = 0
    for path in _files():
        try:
            docs = parse_text(path.read_text(encoding="utf-8"), path.name).documents
        except (UnicodeDecodeError, OSError):
            continue
        for doc in docs:
            trail = [(doc.root, ())]
            while trail:
                node, keys = trail.pop()
                children = node.value.items() if node.kind == MAP else enumerate(node.value) if node.kind == SEQ else ()
                for key, child in children:
                    trail.append((child, keys + (key,)))
                for extra in ((), ("missing",), (0,), (-1,), (5,), ("name", 0), (True,)):
                    path_keys = keys + extra
                    assert doc.root.dig(*path_keys) is _dig(doc.root, *path_keys), (path, path_keys)
                    asked += 1
    assert asked > 10_000


def test_a_scalar_or_a_list_has_no_keys_to_dig():
    root = parse_text("a: [x, {b: 1}]\nc: text\n", "d.yaml").documents[0].root
    assert root.dig("c", "x") is None and root.dig("a", "b") is None and root.dig("a", 1, "b").value == 1
    assert root.dig() is root and isinstance(root.dig("a", -1), Node) and root.dig("a", -3) is None
