"""The words of a Compose service's `entrypoint` and `command` (adapters/compose.py): a string as the words Compose
splits it into, each a node at its place in the file (words), and what those words are: a program that may run a
script file (program_nodes), or arguments Compose gives the image's engine (given_to_engine)."""
from __future__ import annotations

import shlex
from typing import List, Optional

from ctxlint.adapters.crd_common import clone
from ctxlint.adapters.scalar_spans import ScalarSpans
from ctxlint.engines.tokens import SHELLS
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


def program_nodes(entrypoint: Optional[Node], command: Optional[Node], cleared: bool, image) -> List[Node]:
    """The entrypoint and command nodes whose words the container runs as its program, when the first word may
    run a script file (a shell, a `*.sh`): the entrypoint's then the command's, or, where the image's own
    entrypoint is cleared or is not the engine, the command's. [] for any other (most services: no import)."""
    parts = [n for n in (entrypoint, command) if n is not None and (n.kind == SEQ or (
        n.kind == SCALAR and isinstance(n.value, str)))]
    if not parts or (parts[0].kind == SEQ and not parts[0].value):
        return []
    first = parts[0].value[0] if parts[0].kind == SEQ else parts[0]
    text = first.value if first.kind == SCALAR and isinstance(first.value, str) else ""
    text = (text.split(None, 1) or [""])[0].strip("'\"") if first is parts[0] else text
    if not (text.rsplit("/", 1)[-1] in SHELLS or text.endswith((".sh", ".bash"))):
        return []
    if entrypoint is None and not cleared:
        from ctxlint.engines.images import image_entrypoint_is_engine  # loaded with the workload core

        if image_entrypoint_is_engine(image):
            return []  # the command is the engine's arguments
    return parts


def given_to_engine(command: str, image: Optional[Node | str]) -> bool:
    """A string `command` on an image whose ENTRYPOINT is the engine: Compose splits it into words (shell-like
    quoting, no shell) and appends them to that ENTRYPOINT, so the engine is given them, a program's own words
    (`/bin/sh -c "..."`, `vllm serve M`) too, and flags on the more-indented lines of a folded (`>`) string, whose
    line breaks YAML keeps, as much as those on the first line: no shell splits its lines into commands there. A
    string with a `\\` is left to the shell reading it was (a line-end escape is a word of its own to Compose's
    go-shellwords, a blank that POSIX splitting drops: vllm_words.surely_extra), unless it names a program."""
    text = image.value if isinstance(image, Node) else image
    if not isinstance(text, str):
        return False
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    from ctxlint.engines.detect import entrypoint_detection, names_program  # loaded with the workload core

    return (names_program(words) or ("\n" in command.strip() and "\\" not in command)) \
        and bool(entrypoint_detection(text))
