"""A string `entrypoint` or `command` of a Compose service as the words Compose splits it into, each a node at
its place in the file (adapters/compose.py)."""
from __future__ import annotations

import shlex

from ctxlint.adapters.crd_common import clone
from ctxlint.adapters.scalar_spans import ScalarSpans
from ctxlint.nodes import SCALAR, SEQ, Marks, Node, Position


def words(node: Node, spans: ScalarSpans, resolver=None) -> Node:
    """A string `entrypoint` or `command` as the list of words Compose splits it into (shell-like
    quoting, no shell), each word a node at its own place when it is written as read. Compose interpolates
    the file before it splits (compose-spec/compose-go@e70e961c:types/command.go, shellwords.Parse of the
    interpolated string), so with `resolver` (the file's values) a `${EXTRA_ARGS}` holding several words is
    those words, each at the `${...}` it came from; a string with a name of the host's (or a `$$`) is split as
    typed and its words interpolated after, as before."""
    text, back = node.value, None
    if resolver is not None and "$" in text:
        from ctxlint.engines.compose_pass import compose_interpolated

        value, back, host = compose_interpolated(text, resolver, defaults=True)
        if host or "$" in value:
            back = None
        else:
            text = value
    try:
        split = shlex.split(text)
    except ValueError:
        return node
    offsets = spans.offsets(node)
    items, at = [], 0
    for i, word in enumerate(split):
        found = text.find(word, at)
        if found < 0 or offsets is None or found + len(word) > len(text):
            items.append(Node(SCALAR, word, Marks(node.start, node.end), f"{node.path}[{i}]"))
            continue
        at = found + len(word)
        first, last = (found, at) if back is None else (back[found][0], back[at - 1][1])
        if back is not None and node.value[first] == "$" and all(back[k] == back[found] for k in range(found, at)) \
                and back.count(back[found]) == len(word):
            word = node.value[first:last]  # a whole word one `${...}` gives: kept as typed, so it is said there
        if last > len(offsets):
            items.append(Node(SCALAR, word, Marks(node.start, node.end), f"{node.path}[{i}]"))
            continue
        start, end = offsets[first], offsets[last - 1] + 1
        (sl, sc), (el, ec) = spans.position(start), spans.position(end - 1)
        items.append(Node(SCALAR, word, Marks(Position(start, sl - 1, sc - 1), Position(end, el - 1, ec)),
                          f"{node.path}[{i}]"))
    return clone(node, kind=SEQ, value=items, keys={})
