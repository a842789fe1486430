"""The rare half of word expansion (word_expansion.expand_word): a word holding characters of another list item
(`[sh, -c, SCRIPT, _, WORDS]`: an array element typed in the list's own item) is cooked one character at a time,
each foreign character with its item and the reference's span, and `Near` finds the references among many that
overlap a span. Kept apart so the usual word, all of its own item, is joined by segments."""
from __future__ import annotations

from bisect import bisect_left
from itertools import repeat
from typing import Optional

from .tokens import Token


def per_char_tokens(segs: list, word, item: Optional[int], refs: list, carried: list, placed: bool,
                    assignment: bool, vanish: bool) -> list[Token]:
    """The tokens of `segs` (expand_word's segments), as word_expansion._tokens makes them, where some characters
    are another item's: a token wholly of that item is there, one that mixes them has each foreign character at
    the reference that gave it (_placed)."""
    chars: list[tuple] = []  # (char, start, end, splittable[, (item, start, end)])
    for text, starts, ends, split, where in segs:
        if where is None:
            chars.extend(zip(text, starts, ends, repeat(split)))
        else:
            chars.extend(zip(text, starts, ends, repeat(split), repeat(where)))
    if vanish and not chars:
        return []
    pieces: list[list[tuple]] = [[]]
    for ch in chars:
        if ch[3] and ch[0] in " \t\n" and not assignment:
            pieces.append([])
        else:
            pieces[-1].append(ch)
    keep_empty = word.had_quotes and len(pieces) == 1
    near = Near(carried) if len(carried) > 16 and len(pieces) > 16 else None  # `"${A[@]}"` of many elements
    out = []
    for piece in pieces:
        if not piece and not keep_empty:
            continue
        at = item
        if any(len(c) > 4 for c in piece):
            at, piece = _placed(piece, item)
            if at != item:  # a word wholly of another item: there, where it is typed
                out.append(Token("".join(c[0] for c in piece), piece[0][1], piece[-1][2],
                                 tuple(c[1] for c in piece), tuple(c[2] for c in piece),
                                 tuple(r for r in carried if r.item == at), at))
                continue
        if len(pieces) == 1 and not placed:  # the usual case: the token is the word as typed
            start, end = word.span()
        else:
            start, end = min(c[1] for c in piece), max(c[2] for c in piece)
        mine = tuple(r for r in refs if r.style == "go-if" or r.start < end and r.end > start) or ()
        if carried and piece:  # an element's references are where the element is typed
            low, high = min(c[1] for c in piece), max(c[2] for c in piece)
            mine += near.overlapping(low, high) if near is not None else \
                tuple(r for r in carried if r.start < high and r.end > low)
        out.append(Token("".join(c[0] for c in piece), start, end,
                         tuple(c[1] for c in piece), tuple(c[2] for c in piece), mine, item))
    return out


class Near:
    """The references among many that overlap a span, in their order, without reading them all for each word (a
    loop that appends thousands of flags gives as many elements, each with its references: quadratic before)."""

    __slots__ = ("refs", "order", "starts", "longest")

    def __init__(self, refs: list) -> None:
        self.refs = refs
        self.order = sorted(range(len(refs)), key=lambda k: refs[k].start)
        self.starts = [refs[k].start for k in self.order]
        self.longest = max(r.end - r.start for r in refs)

    def overlapping(self, low: int, high: int) -> tuple:
        first, last = bisect_left(self.starts, low - self.longest), bisect_left(self.starts, high)
        found = sorted(k for k in self.order[first:last] if self.refs[k].end > low)
        return tuple(self.refs[k] for k in found)


def _placed(piece: list, item: Optional[int]) -> tuple[Optional[int], list]:
    """(item, chars) of a word with characters of another list item (5-tuples: their item and the reference's
    span): all of one item, that item; mixed with this item's (`--max-model-len=$1`), each foreign character at
    the reference that gave it, as a token has only one item."""
    items = {c[4][0] if len(c) > 4 else item for c in piece}
    if len(items) == 1:
        return items.pop(), piece
    return item, [(c[0], c[4][1], c[4][2], c[3]) if len(c) > 4 else c for c in piece]
