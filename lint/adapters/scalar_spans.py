"""Map a character span of a scalar's decoded value back to file positions.

A command line usually sits inside one YAML scalar (a list item, a `sh -c`
string, a `|` block), and the engine splitter reports spans in the *decoded*
value. To point a finding at the `131072` the user typed, each decoded
character is aligned with the raw source slice of the scalar: quotes, `''`
and backslash escapes, folded line breaks and block indentation are skipped.
When the alignment fails (an exotic escape, a non-string scalar whose text
differs from its value) the scalar's own start is used instead, never a guess
(scalar_alignment.py).
"""
from __future__ import annotations

import bisect
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from ctxlint.model import Source
from ctxlint.lines import line_starts
from ctxlint import nodes
from ctxlint.nodes import SCALAR, Node, adopt

_UNSEEN = object()


class ScalarSpans:
    """Positions inside the scalars of one file (`LoadedFile.path`, `LoadedFile.text`)."""

    def __init__(self, file: str, text: str) -> None:
        self.file, self.text = file, text or ""
        self._line_starts: Optional[List[int]] = None  # built on the first position(): most files need none
        self._cache: Dict[Any, Optional[Sequence[int]]] = {}  # id(node), or (id(node), text) -> offsets
        self.helm_actions: Optional[bool] = None  # whether the text holds Helm's template actions (asked once)

    def position(self, index: int) -> Tuple[int, int]:
        """1-based (line, column) of a character index into the file text."""
        starts = self._line_starts
        if starts is None:
            starts = self._line_starts = line_starts(self.text)
        line = bisect.bisect_right(starts, index) - 1
        return line + 1, index - starts[line] + 1

    def source(self, node: Node, start: int, end: int, value: Optional[str] = None,
               path: Optional[str] = None) -> Source:
        """Source of decoded[start:end] of a scalar node (the node's own source on failure).

        value: the decoded text the span indexes (defaults to the node's value as a string).
        path: the logical path to report when the span is found (defaults to the node's).
        """
        if type(node) is not Node and node.spans is not self:  # a nodes.ForeignNode: its own file's text
            return node.spans.source(node, start, end, value, path)
        if node.kind != SCALAR or start < 0 or end <= start:
            return node.source(self.file)
        offsets = self.offsets(node, value)
        if offsets is None or end > len(offsets):
            return node.source(self.file)
        # position() of both ends, written out (a call each was a tenth of this), the end's line found
        # from the start's when both sit on one line, as most values do
        starts = self._line_starts
        if starts is None:
            starts = self._line_starts = line_starts(self.text)
        first, last = offsets[start], offsets[end - 1]
        line = bisect.bisect_right(starts, first) - 1
        end_line = line if last < (starts[line + 1] if line + 1 < len(starts) else last + 1) and last >= first \
            else bisect.bisect_right(starts, last) - 1
        return (nodes._make_source or nodes._source_maker())(  # Source(...) without a class call
            self.file, line + 1, first - starts[line] + 1, node.path if path is None else path,
            end_line + 1, last - starts[end_line] + 2)

    def within(self, node: Node, value: Optional[str] = None, begin: int = 0) -> Callable[[Node], Source]:
        """Where each node of a YAML document parsed out of a scalar's decoded text (from
        decoded index `begin` on) is in the file, with the path '<scalar path>:<inner path>'."""
        return lambda n: self.source(node, begin + n.start_index, begin + n.end_index, value,
                                     f"{node.path}:{n.path}")

    def offsets(self, node: Node, value: Optional[str] = None) -> Optional[Sequence[int]]:
        """File index of every decoded character, or None when they cannot be aligned."""
        key = id(node) if value is None else (id(node), value)  # exact: a hash of the pair could collide
        found = self._cache.get(key, _UNSEEN)
        if found is _UNSEEN:
            from ctxlint.adapters.scalar_alignment import align  # a file whose spans are never asked for skips it

            decoded = value if value is not None else (node.value if isinstance(node.value, str) else None)
            found = self._cache[key] = None if decoded is None else align(self.text, node, decoded)
        return found


class EmbeddedSpans(ScalarSpans):
    """Positions inside a YAML document held in the string scalar `holder` of the file `outer` reads (a ConfigMap's
    `config.yaml: |`): the document's nodes (nodes.EmbeddedNode, adopted with these spans) and the spans inside
    their scalars are placed where that text is written in the file, through the holder's decoded characters."""

    def __init__(self, outer: ScalarSpans, holder: Node, inner_text: str) -> None:
        super().__init__(outer.file, inner_text)  # `text` is the document: its nodes' marks index it
        self.outer, self.holder = outer, holder

    def node_source(self, node: Node) -> Source:
        return self.outer.source(self.holder, node.start_index, node.end_index, None, f"{self.holder.path}:{node.path}")

    def position(self, index: int) -> Tuple[int, int]:
        offsets = self.outer.offsets(self.holder)
        if offsets is None or not 0 <= index < len(offsets):
            return self.outer.position(self.holder.start_index)
        return self.outer.position(offsets[index])

    def source(self, node: Node, start: int, end: int, value: Optional[str] = None,
               path: Optional[str] = None) -> Source:
        if type(node) is Node or getattr(node, "spans", None) is not self:  # not of this document
            return ScalarSpans.source(self, node, start, end, value, path)
        offsets = self.offsets(node, value) if node.kind == SCALAR and 0 <= start < end else None
        if offsets is None or end > len(offsets):
            return node.source(self.file)
        return self.outer.source(self.holder, offsets[start], offsets[end - 1] + 1, None,
                                 f"{self.holder.path}:{node.path if path is None else path}")


def adopted(files: Sequence[Any], index: int, node: Node, done: Dict[int, Node],
            spans: Dict[int, "ScalarSpans"]) -> Node:
    """`node`, an object of files[index] joined into another file's deployment (crd_refs, config_map_refs), with
    positions in its own file: adopted once per node, each file's spans built once (`done`, `spans`: the caches)."""
    found = done.get(id(node))
    if found is None:
        file_spans = spans.get(index)
        if file_spans is None:
            loaded = files[index]
            file_spans = spans[index] = ScalarSpans(loaded.path, loaded.text)
        found = done[id(node)] = adopt(node, file_spans)
    return found
